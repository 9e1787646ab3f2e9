//===- scopealloc/mlir/Passes.h - ScopeAlloc's MLIR passes ----------------===//
//
// Two passes for code generators that lower memrefs with MLIR 19's upstream
// pipeline (finalize-memref-to-llvm, convert-scf-to-cf, ...). Both run before
// that lowering; in mlir-opt-19 load them with
//
//   mlir-opt-19 --load-pass-plugin=<P>/lib/ScopeAllocMLIRPlugin.so \
//     --pass-pipeline='builtin.module(scopealloc-loop-alloca-scopes,
//         scopealloc-memref-scopes, convert-scf-to-cf,
//         finalize-memref-to-llvm, ..., reconcile-unrealized-casts)'
//
// scopealloc-memref-scopes
//   finalize-memref-to-llvm creates a fresh llvm.alloca for every
//   memref.alloca and drops its discardable attributes, `scopealloc.scope`
//   included. This pass lowers exactly the memref.alloca ops that carry a
//   scope (the same descriptor, element count and alignment as upstream's
//   pattern) and copies the attribute onto the llvm.alloca; everything else is
//   left to the usual pipeline. Options:
//     default-scope=<scope>  also lowers memref.alloca ops without a scope and
//                            gives them this one (e.g. the buffers that
//                            promote-buffers-to-stack creates);
//     index-bitwidth=<n>     as finalize-memref-to-llvm's (0: data layout).
//
// scopealloc-loop-alloca-scopes
//   scf.for, scf.parallel, scf.forall and affine.for are allocation scopes:
//   a memref.alloca in their body is freed at the end of each iteration. MLIR
//   19 lowers them without llvm.stacksave/llvm.stackrestore, so such a buffer
//   takes new stack every iteration (and, once ScopeAlloc moves it, new pool
//   memory: the peak grows with the trip count). This pass brackets the body
//   of every loop that directly allocates with llvm.intr.stacksave /
//   llvm.intr.stackrestore (what memref.alloca_scope lowers to; written
//   directly because canonicalize inlines an alloca_scope that fills a loop
//   body). A body that yields a memref defined inside it is left alone, with
//   a warning.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_MLIR_PASSES_H
#define SCOPEALLOC_MLIR_PASSES_H

#include "mlir/IR/PatternMatch.h"
#include <memory>
#include <string>

namespace mlir {
class LLVMTypeConverter;
class Pass;
} // namespace mlir

namespace scopealloc {

struct MemRefScopesOptions {
  /// Scope for memref.alloca ops without `scopealloc.scope`; empty: they are
  /// left to finalize-memref-to-llvm.
  std::string defaultScope;
  /// Index bitwidth; 0 derives it from the data layout.
  unsigned indexBitwidth = 0;
};

/// The pass `scopealloc-memref-scopes` (on builtin.module).
std::unique_ptr<mlir::Pass>
createMemRefScopesPass(MemRefScopesOptions options = {});
/// The pass `scopealloc-loop-alloca-scopes` (on builtin.module).
std::unique_ptr<mlir::Pass> createLoopAllocaScopesPass();

/// Registers both with the global pass registry (mlir-opt, pass pipelines).
void registerScopeAllocPasses();

/// For code generators that run their own memref-to-LLVM conversion: the
/// pattern that lowers memref.alloca as upstream does and keeps its
/// `scopealloc.scope`. Add it with a benefit above the upstream patterns' (1).
void populateMemRefScopesConversionPatterns(
    const mlir::LLVMTypeConverter &converter, mlir::RewritePatternSet &patterns,
    mlir::PatternBenefit benefit = 2);

} // namespace scopealloc

#endif // SCOPEALLOC_MLIR_PASSES_H
