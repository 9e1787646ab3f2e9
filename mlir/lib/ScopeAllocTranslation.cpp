//===- ScopeAllocTranslation.cpp - scopealloc.scope -> !scope -------------===//
//
// The `scopealloc` dialect owns the discardable attribute `scopealloc.scope`.
// Its LLVMTranslationDialectInterface turns the attribute on llvm.alloca and
// llvm.call into `!scope !{!"<scope>"}` on the instruction the LLVM dialect
// translation created; anything else is a diagnostic naming the op.
//
//===----------------------------------------------------------------------===//
#include "scopealloc/mlir/ScopeAllocTranslation.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/Target/LLVMIR/LLVMTranslationInterface.h"
#include "mlir/Target/LLVMIR/ModuleTranslation.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"

using namespace mlir;

MLIR_DEFINE_EXPLICIT_TYPE_ID(scopealloc::ScopeAllocDialect)

namespace scopealloc {

ScopeAllocDialect::ScopeAllocDialect(MLIRContext *context)
    : Dialect(getDialectNamespace(), context,
              TypeID::get<ScopeAllocDialect>()) {}

LogicalResult verifyScopeAttribute(Operation *op, NamedAttribute attribute) {
  if (attribute.getName().getValue() != kScopeAttrName)
    return op->emitOpError()
           << "has unknown ScopeAlloc attribute '"
           << attribute.getName().getValue() << "' (the only one is '"
           << kScopeAttrName << "')";
  auto scope = dyn_cast<StringAttr>(attribute.getValue());
  if (!scope)
    return op->emitOpError()
           << "attribute '" << kScopeAttrName
           << "' must be a string naming a scope (e.g. \"global.npu_sram\"), "
              "got "
           << attribute.getValue();
  if (scope.getValue().empty())
    return op->emitOpError() << "attribute '" << kScopeAttrName
                             << "' is an empty string; a scope is e.g. "
                                "\"global\", \"global.workspace\" or "
                                "\"global.<pool>\"";
  return success();
}

LogicalResult
ScopeAllocDialect::verifyOperationAttribute(Operation *op,
                                            NamedAttribute attribute) {
  return verifyScopeAttribute(op, attribute);
}

namespace {

class ScopeAllocTranslationInterface : public LLVMTranslationDialectInterface {
public:
  using LLVMTranslationDialectInterface::LLVMTranslationDialectInterface;

  LogicalResult
  amendOperation(Operation *op, ArrayRef<llvm::Instruction *> instructions,
                 NamedAttribute attribute,
                 LLVM::ModuleTranslation &moduleTranslation) const override {
    if (failed(verifyScopeAttribute(op, attribute)))
      return failure();
    if (!isa<LLVM::AllocaOp, LLVM::CallOp>(op))
      return op->emitOpError()
             << "carries '" << kScopeAttrName
             << "', but only llvm.alloca and llvm.call take a scope into "
                "LLVM IR (on memref.alloca, run scopealloc-memref-scopes "
                "before finalize-memref-to-llvm)";
    llvm::LLVMContext &ctx = moduleTranslation.getLLVMContext();
    StringRef scope = cast<StringAttr>(attribute.getValue()).getValue();
    llvm::MDNode *node =
        llvm::MDNode::get(ctx, llvm::MDString::get(ctx, scope));
    unsigned tagged = 0;
    for (llvm::Instruction *inst : instructions) {
      if (isa<llvm::AllocaInst>(inst) ||
          (isa<LLVM::CallOp>(op) && isa<llvm::CallBase>(inst))) {
        inst->setMetadata(kScopeMetadataKind, node);
        ++tagged;
      }
    }
    if (tagged == 0)
      return op->emitOpError() << "carries '" << kScopeAttrName
                               << "', but its translation created no "
                               << (isa<LLVM::AllocaOp>(op) ? "alloca" : "call")
                               << " instruction to put it on";
    return success();
  }
};

} // namespace

void registerScopeAllocDialectTranslation(DialectRegistry &registry) {
  registry.insert<ScopeAllocDialect>();
  registry.addExtension(+[](MLIRContext *, ScopeAllocDialect *dialect) {
    dialect->addInterfaces<ScopeAllocTranslationInterface>();
  });
  // A parsed module names the dialect only in attribute names, which do not
  // load it; without the loaded dialect the translation never asks its
  // interface. Every module that reaches the LLVM IR translation has the LLVM
  // dialect loaded, so load ours with it.
  registry.addExtension(+[](MLIRContext *context, LLVM::LLVMDialect *) {
    context->getOrLoadDialect<ScopeAllocDialect>();
  });
}

void registerScopeAllocDialectTranslation(MLIRContext &context) {
  DialectRegistry registry;
  registerScopeAllocDialectTranslation(registry);
  context.appendDialectRegistry(registry);
}

} // namespace scopealloc
