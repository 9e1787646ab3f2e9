//===- scopealloc/mlir/MemRefScopes.h - scopes across memref lowering -----===//
//
// MLIR 19's finalize-memref-to-llvm creates a fresh llvm.alloca for every
// memref.alloca and drops its discardable attributes, `scopealloc.scope`
// included. The pass `scopealloc-memref-scopes` lowers exactly the
// memref.alloca ops that carry a scope (the same descriptor, size and
// alignment as upstream) and copies the attribute onto the llvm.alloca; the
// other ops are left to the usual pipeline. Run it before
// finalize-memref-to-llvm:
//
//   mlir-opt-19 --load-pass-plugin=<P>/lib/ScopeAllocMLIRPlugin.so \
//     --pass-pipeline='builtin.module(scopealloc-memref-scopes,
//         finalize-memref-to-llvm, ..., reconcile-unrealized-casts)'
//
// Options:
//   default-scope=<scope>  also lowers memref.alloca ops without a scope,
//                          giving them this one (e.g. the buffers that
//                          promote-buffers-to-stack creates);
//   index-bitwidth=<n>     as finalize-memref-to-llvm's option (0: from the
//                          data layout).
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_MLIR_MEMREFSCOPES_H
#define SCOPEALLOC_MLIR_MEMREFSCOPES_H

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
  /// left alone.
  std::string defaultScope;
  /// Index bitwidth; 0 derives it from the data layout.
  unsigned indexBitwidth = 0;
};

/// The pass `scopealloc-memref-scopes` (on builtin.module).
std::unique_ptr<mlir::Pass> createMemRefScopesPass(MemRefScopesOptions options = {});
/// Registers it with the global pass registry (mlir-opt, pass pipelines).
void registerMemRefScopesPass();

/// For code generators that run their own memref-to-LLVM conversion: the
/// pattern that lowers memref.alloca with `scopealloc.scope` and keeps the
/// attribute. Add it with a benefit above the upstream patterns' (1).
void populateMemRefScopesConversionPatterns(const mlir::LLVMTypeConverter &converter,
                                            mlir::RewritePatternSet &patterns,
                                            mlir::PatternBenefit benefit = 2);

} // namespace scopealloc

#endif // SCOPEALLOC_MLIR_MEMREFSCOPES_H
