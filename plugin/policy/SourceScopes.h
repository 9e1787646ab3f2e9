//===- SourceScopes.h - Scopes and policies from the source -----*- C++ -*-===//
//
// Turns clang's `annotate` attributes into what the scope-alloc pass reads:
//
//   __attribute__((annotate("scope:global.workspace"))) char buf[4096];
//     arrives as  call @llvm.var.annotation(ptr %buf, ptr "scope:...", ...)
//     becomes     %buf = alloca ..., !scope !{!"global.workspace"}
//
//   __attribute__((annotate("scope-alloc-max-stack-alloca=256"))) void f();
//     arrives in  @llvm.global.annotations
//     becomes     "scope-alloc-max-stack-alloca"="256" on @f
//   (also "scope-alloc-frame-budget=<bytes>",
//    "scope-alloc-dynamic=<keep|demote|reject>", "scope-alloc-pool=<pool>")
//
// It runs at the start of every pipeline (before SROA), because SROA cannot
// see through the annotation call and would otherwise leave the buffer alone
// or, once the call is gone, split it into allocas that carry no scope.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_SOURCESCOPES_H
#define SCOPEALLOC_SOURCESCOPES_H

#include "llvm/IR/PassManager.h"

namespace scopealloc {

/// Annotation prefix of a local variable's scope: "scope:<spelling>".
inline constexpr const char *ScopeAnnotationPrefix = "scope:";

class SourceScopesPass : public llvm::PassInfoMixin<SourceScopesPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  // Must run at -O0 too, and on optnone functions.
  static bool isRequired() { return true; }
};

} // namespace scopealloc

#endif
