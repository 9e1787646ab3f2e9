//===- ScopeAllocPass.h - Decide where stack buffers live -------*- C++ -*-===//
//
// The scope-alloc module pass: for every alloca, reads its scope, applies the
// target's stack-alloca policy, reports the decision as a remark, and hands
// the allocas that must leave the stack to AllocaDemotion.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_SCOPEALLOCPASS_H
#define SCOPEALLOC_SCOPEALLOCPASS_H

#include "llvm/IR/PassManager.h"

namespace scopealloc {

class ScopeAllocPass : public llvm::PassInfoMixin<ScopeAllocPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  // optnone functions at -O0 must be handled too.
  static bool isRequired() { return true; }
};

} // namespace scopealloc

#endif
