//===- scopealloc/mlir/ScopeAllocTranslation.h - scopes from MLIR ---------===//
//
// The MLIR side of ScopeAlloc: a code generator that lowers to the LLVM
// dialect and translates with mlir::translateModuleToLLVMIR gets `!scope`
// metadata on its allocas from one discardable attribute,
//
//   %p = llvm.alloca %n x f32 {scopealloc.scope = "global.npu_sram"} : (i64) ->
//   !llvm.ptr
//
// becomes
//
//   %p = alloca float, i64 %n, align 4, !scope !0
//   !0 = !{!"global.npu_sram"}
//
// (also on llvm.call: a workspace call tagged with a scope, see the README's
// "Promotion of workspace calls"). The value must be a non-empty string; its
// spelling (global, local, global.stack, global.workspace, global.<pool>) is
// checked by the ScopeAlloc pass, which names the function and the value.
//
// MLIR 19 drops discardable attributes when it lowers memref.alloca, so a
// scope written on memref.alloca needs the pass in <scopealloc/mlir/Passes.h>
// (scopealloc-memref-scopes) before finalize-memref-to-llvm.
//
// Link: libScopeAllocMLIR.a, then the MLIR libraries (MLIRIR, MLIRLLVMDialect,
// MLIRTargetLLVMIRExport, MLIRMemRefToLLVM, MLIRLLVMCommonConversion,
// MLIRTransforms) or libMLIR.so.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_MLIR_SCOPEALLOCTRANSLATION_H
#define SCOPEALLOC_MLIR_SCOPEALLOCTRANSLATION_H

#include "mlir/IR/Dialect.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;
class MLIRContext;
class NamedAttribute;
class Operation;
} // namespace mlir

namespace scopealloc {

/// The dialect namespace of ScopeAlloc's attributes.
inline constexpr llvm::StringLiteral kDialectNamespace = "scopealloc";
/// The discardable attribute that carries a scope: `scopealloc.scope`.
inline constexpr llvm::StringLiteral kScopeAttrName = "scopealloc.scope";
/// The LLVM IR metadata kind it becomes (the ScopeAlloc pass reads it).
inline constexpr llvm::StringLiteral kScopeMetadataKind = "scope";

/// The `scopealloc` dialect: no operations, no types; it owns the
/// `scopealloc.*` attributes, verifies them where it is loaded and (with
/// registerScopeAllocDialectTranslation) translates them to LLVM IR.
class ScopeAllocDialect : public mlir::Dialect {
public:
  explicit ScopeAllocDialect(mlir::MLIRContext *context);
  static constexpr llvm::StringLiteral getDialectNamespace() {
    return kDialectNamespace;
  }
  mlir::LogicalResult
  verifyOperationAttribute(mlir::Operation *op,
                           mlir::NamedAttribute attribute) override;
};

/// Checks one `scopealloc.*` attribute of `op`: the name is `scopealloc.scope`
/// and the value a non-empty string. Emits an error naming the op otherwise.
mlir::LogicalResult verifyScopeAttribute(mlir::Operation *op,
                                         mlir::NamedAttribute attribute);

/// Registers the `scopealloc` dialect with its LLVM IR translation interface,
/// and makes sure the dialect is loaded whenever the LLVM dialect is (so that
/// the translation sees `scopealloc.scope` attributes of a parsed module).
/// Call it next to mlir::registerLLVMDialectTranslation etc.
void registerScopeAllocDialectTranslation(mlir::DialectRegistry &registry);
/// The same, for a context that already exists.
void registerScopeAllocDialectTranslation(mlir::MLIRContext &context);

} // namespace scopealloc

MLIR_DECLARE_EXPLICIT_TYPE_ID(scopealloc::ScopeAllocDialect)

#endif // SCOPEALLOC_MLIR_SCOPEALLOCTRANSLATION_H
