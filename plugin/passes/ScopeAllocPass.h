//===- ScopeAllocPass.h - Decide where stack buffers live -------*- C++ -*-===//
//
// The scope-alloc module pass: for every alloca, reads its scope, applies the
// target's stack-alloca policy (Placement.h), reports the decision as a
// remark, and hands the allocas that must leave the stack to AllocaDemotion.
// Its pipeline parameters (scope-alloc<limit=0;...>) are policy settings,
// PolicyOptions.h.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_SCOPEALLOCPASS_H
#define SCOPEALLOC_SCOPEALLOCPASS_H

#include "policy/PolicyOptions.h"

#include "llvm/IR/PassManager.h"

namespace scopealloc {

class ScopeAllocPass : public llvm::PassInfoMixin<ScopeAllocPass> {
public:
  /// Which pipeline an extension point put the pass in (LTODeferral.h):
  ///   Anywhere     decides every function (opt -passes=scope-alloc)
  ///   CompileStep  a compile step's: defers an LTO pre-link module's
  ///                decisions to the link
  ///   LinkStep     an LTO backend's: decides the functions whose compile
  ///                step deferred them, with that step's options
  enum StageTy { Anywhere, CompileStep, LinkStep };

  /// \p WholeProgram: the module is the whole program (full LTO's link),
  /// where the policy's stack bounds are fitted (BoundFit.h).
  explicit ScopeAllocPass(StageTy Stage = Anywhere, bool WholeProgram = false)
      : Stage(Stage), WholeProgram(WholeProgram) {
    Params.Origin = PolicyOptions::PassParameters;
  }
  explicit ScopeAllocPass(PolicyOptions Params) : Params(std::move(Params)) {}

  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  void printPipeline(llvm::raw_ostream &OS,
                     llvm::function_ref<llvm::StringRef(llvm::StringRef)>
                         MapClassName2PassName);
  // optnone functions at -O0 must be handled too.
  static bool isRequired() { return true; }

private:
  PolicyOptions Params;
  StageTy Stage = Anywhere;
  bool WholeProgram = false;
};

} // namespace scopealloc

#endif
