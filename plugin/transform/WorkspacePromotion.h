//===- WorkspacePromotion.h - Workspace calls back to the stack -*- C++ -*-===//
//
// The scope-alloc-promote function pass: workspace-runtime calls that a code
// generator emitted (TVMBackendAllocWorkspace/TVMBackendFreeWorkspace pairs,
// and our own __scopealloc_mark/alloc/release) become entry-block allocas
// when their scope allows the stack, their size is a constant within the
// target's limit, and they are released on every path to a return. It runs
// at the start of the pipeline so that SROA/mem2reg can then turn the buffers
// into registers. The rules are scope-alloc's (Placement.h): a buffer is
// promoted only when scope-alloc would keep it, frame budget included.
// Its pipeline parameters are those of scope-alloc (PolicyOptions.h).
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_WORKSPACEPROMOTION_H
#define SCOPEALLOC_WORKSPACEPROMOTION_H

#include "policy/PolicyOptions.h"
#include "policy/StackPolicy.h"

#include "llvm/IR/PassManager.h"

#include <optional>
#include <string>

namespace scopealloc {

class PromoteWorkspacePass : public llvm::PassInfoMixin<PromoteWorkspacePass> {
public:
  PromoteWorkspacePass() { Params.Origin = PolicyOptions::PassParameters; }
  explicit PromoteWorkspacePass(PolicyOptions Params)
      : Params(std::move(Params)) {}

  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &AM);
  void printPipeline(llvm::raw_ostream &OS,
                     llvm::function_ref<llvm::StringRef(llvm::StringRef)>
                         MapClassName2PassName);
  // Runs at -O0 and on optnone functions too (harmless there).
  static bool isRequired() { return true; }

private:
  /// The module-wide layers of \p M's policy, computed on the first
  /// function of a module and reused for its other functions.
  const ModulePolicy &modulePolicy(const llvm::Module &M);

  PolicyOptions Params;
  const llvm::Module *PolicyModule = nullptr;
  std::string PolicyModuleID;
  std::optional<ModulePolicy> Policy;
};

} // namespace scopealloc

#endif
