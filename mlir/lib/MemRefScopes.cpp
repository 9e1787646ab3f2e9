//===- MemRefScopes.cpp - keep scopealloc.scope across memref lowering ----===//
//
// finalize-memref-to-llvm (MLIR 22) rebuilds every memref.alloca as a new
// llvm.alloca without its discardable attributes. This pass lowers the
// memref.alloca ops that carry `scopealloc.scope` (or all of them, with
// default-scope) as upstream's AllocaOpLowering does (the same
// ConvertOpToLLVMPattern helpers), so the descriptor, the element count and
// the alignment are exactly upstream's, and copies the scope onto the
// llvm.alloca. Uses of the
// memref that are not lowered yet see an unrealized_conversion_cast, which
// reconcile-unrealized-casts removes at the end of the usual pipeline.
//
//===----------------------------------------------------------------------===//
#include "scopealloc/mlir/Passes.h"
#include "scopealloc/mlir/ScopeAllocTranslation.h"

#include "mlir/Analysis/DataLayoutAnalysis.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace scopealloc {
namespace {

/// The scope `op` ends up with: its own attribute, else the default (null
/// when there is none, or when the op's attribute is not a string).
StringAttr scopeOf(Operation *op, StringAttr defaultScope) {
  if (Attribute attr = op->getAttr(kScopeAttrName))
    return dyn_cast<StringAttr>(attr);
  return defaultScope;
}

/// memref.alloca with a scope -> llvm.alloca with the same scope. Mirrors
/// MLIR 22's AllocaOpLowering (MemRefToLLVM.cpp) and adds the attribute.
struct ScopedAllocaOpLowering
    : public ConvertOpToLLVMPattern<memref::AllocaOp> {
  ScopedAllocaOpLowering(const LLVMTypeConverter &converter,
                         StringAttr defaultScope, PatternBenefit benefit)
      : ConvertOpToLLVMPattern<memref::AllocaOp>(converter, benefit),
        defaultScope(defaultScope) {}

  LogicalResult
  matchAndRewrite(memref::AllocaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemRefType memRefType = op.getType();
    if (!isConvertibleAndHasIdentityMaps(memRefType))
      return rewriter.notifyMatchFailure(op, "incompatible memref type");
    FailureOr<unsigned> addrSpace =
        getTypeConverter()->getMemRefAddressSpace(memRefType);
    if (failed(addrSpace))
      return rewriter.notifyMatchFailure(op, "unsupported address space");

    // Static sizes as constants, dynamic ones from the operands; the size
    // is an element count (an alloca gets a typed pointer right away).
    SmallVector<Value, 4> sizes;
    SmallVector<Value, 4> strides;
    Value size;
    getMemRefDescriptorSizes(loc, memRefType, adaptor.getOperands(), rewriter,
                             sizes, strides, size, /*sizeInBytes=*/false);
    Type elementType = typeConverter->convertType(memRefType.getElementType());
    auto elementPtrType =
        LLVM::LLVMPointerType::get(rewriter.getContext(), *addrSpace);
    auto alloca =
        LLVM::AllocaOp::create(rewriter, loc, elementPtrType, elementType, size,
                               op.getAlignment().value_or(0));
    if (StringAttr scope = scopeOf(op, defaultScope))
      alloca->setAttr(kScopeAttrName, scope);
    else if (Attribute malformed = op->getAttr(kScopeAttrName))
      alloca->setAttr(kScopeAttrName, malformed); // the translation reports it
    Value descriptor = createMemRefDescriptor(loc, memRefType, alloca, alloca,
                                              sizes, strides, rewriter);
    rewriter.replaceOp(op, descriptor);
    return success();
  }

  StringAttr defaultScope;
};

struct MemRefScopesPass
    : public PassWrapper<MemRefScopesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MemRefScopesPass)

  MemRefScopesPass() = default;
  MemRefScopesPass(const MemRefScopesPass &other) : PassWrapper(other) {}
  explicit MemRefScopesPass(const MemRefScopesOptions &options) {
    defaultScope = options.defaultScope;
    indexBitwidth = options.indexBitwidth;
  }

  StringRef getArgument() const final { return "scopealloc-memref-scopes"; }
  StringRef getDescription() const final {
    return "Lower memref.alloca ops that carry scopealloc.scope to "
           "llvm.alloca, keeping the attribute (run before "
           "finalize-memref-to-llvm)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect, ScopeAllocDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    StringAttr fallback;
    if (!defaultScope.empty())
      fallback = StringAttr::get(context, defaultScope);

    const auto &dataLayoutAnalysis = getAnalysis<DataLayoutAnalysis>();
    LowerToLLVMOptions options(context,
                               dataLayoutAnalysis.getAtOrAbove(module));
    if (indexBitwidth != 0)
      options.overrideIndexBitwidth(indexBitwidth);
    LLVMTypeConverter typeConverter(context, options, &dataLayoutAnalysis);

    // A malformed scope is reported here, on the op the user wrote, rather
    // than later on an llvm.alloca.
    bool malformed = false;
    module.walk([&](memref::AllocaOp op) {
      if (Attribute attr = op->getAttr(kScopeAttrName))
        if (failed(verifyScopeAttribute(
                op, NamedAttribute(StringAttr::get(context, kScopeAttrName),
                                   attr))))
          malformed = true;
    });
    if (malformed)
      return signalPassFailure();

    RewritePatternSet patterns(context);
    patterns.add<ScopedAllocaOpLowering>(typeConverter, fallback,
                                         PatternBenefit(1));
    ConversionTarget target(*context);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addDynamicallyLegalOp<memref::AllocaOp>(
        [&](memref::AllocaOp op) { return !scopeOf(op, fallback); });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }

  Option<std::string> defaultScope{
      *this, "default-scope",
      llvm::cl::desc("Scope for memref.alloca ops without scopealloc.scope "
                     "(empty: leave them to finalize-memref-to-llvm)"),
      llvm::cl::init("")};
  Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("Bitwidth of the index type, 0 to use the size of the "
                     "machine word (as finalize-memref-to-llvm)"),
      llvm::cl::init(0)};
};

} // namespace

std::unique_ptr<Pass> createMemRefScopesPass(MemRefScopesOptions options) {
  return std::make_unique<MemRefScopesPass>(options);
}

void registerMemRefScopesPass() { PassRegistration<MemRefScopesPass>(); }

void populateMemRefScopesConversionPatterns(const LLVMTypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            PatternBenefit benefit) {
  patterns.add<ScopedAllocaOpLowering>(converter, StringAttr(), benefit);
}

} // namespace scopealloc
