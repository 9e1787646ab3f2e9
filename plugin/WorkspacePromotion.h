//===- WorkspacePromotion.h - Workspace calls back to the stack -*- C++ -*-===//
//
// The scope-alloc-promote function pass: workspace-runtime calls that a code
// generator emitted (TVMBackendAllocWorkspace/TVMBackendFreeWorkspace pairs,
// and our own __scopealloc_mark/alloc/release) become entry-block allocas
// when their scope allows the stack, their size is a constant within the
// target's limit, and they are released on every path to a return. It runs
// at the start of the pipeline so that SROA/mem2reg can then turn the buffers
// into registers.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_WORKSPACEPROMOTION_H
#define SCOPEALLOC_WORKSPACEPROMOTION_H

#include "llvm/IR/PassManager.h"

namespace scopealloc {

class PromoteWorkspacePass : public llvm::PassInfoMixin<PromoteWorkspacePass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &AM);
  // Runs at -O0 and on optnone functions too (harmless there).
  static bool isRequired() { return true; }
};

} // namespace scopealloc

#endif
