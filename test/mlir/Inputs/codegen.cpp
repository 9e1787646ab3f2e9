// A code generator that links the installed libScopeAllocMLIR.a: it lowers a
// memref kernel with its own one-shot conversion to the LLVM dialect (the
// upstream func/arith/memref patterns plus ScopeAlloc's alloca pattern at a
// higher benefit, so the scope survives), builds one more function directly
// in the LLVM dialect with scopealloc.scope on an llvm.alloca, and translates
// with translateModuleToLLVMIR after registerScopeAllocDialectTranslation.
// Prints the LLVM IR, or the diagnostics and exits 1.
#include "scopealloc/mlir/Passes.h"
#include "scopealloc/mlir/ScopeAllocTranslation.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

static const char *kernel = R"mlir(
func.func @kernel(%i: index) -> f32 {
  %t = memref.alloca() {alignment = 64 : i64, scopealloc.scope = "global.npu_sram"} : memref<64x64xf32>
  %v = memref.load %t[%i, %i] : memref<64x64xf32>
  return %v : f32
}
)mlir";

// --context: the registration on a context whose LLVM dialect is loaded
// already; a parsed module.
static int contextRegistration() {
  mlir::MLIRContext context;
  context.loadDialect<mlir::LLVM::LLVMDialect>();
  mlir::registerBuiltinDialectTranslation(context);
  mlir::registerLLVMDialectTranslation(context);
  scopealloc::registerScopeAllocDialectTranslation(context);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
llvm.func @parsed() -> !llvm.ptr {
  %c = llvm.mlir.constant(512 : i64) : i64
  %p = llvm.alloca %c x i8 {scopealloc.scope = "global.dma"} : (i64) -> !llvm.ptr
  llvm.return %p : !llvm.ptr
}
)mlir", &context);
  if (!module)
    return 1;
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(*module, llvmContext);
  if (!llvmModule)
    return 1;
  llvmModule->print(llvm::outs(), nullptr);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && llvm::StringRef(argv[1]) == "--context")
    return contextRegistration();
  bool badScope = argc > 1 && llvm::StringRef(argv[1]) == "--bad-scope";
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::memref::MemRefDialect, mlir::LLVM::LLVMDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  scopealloc::registerScopeAllocDialectTranslation(registry);
  mlir::MLIRContext context(registry);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kernel, &context);
  if (!module)
    return 1;

  // The code generator's own lowering to the LLVM dialect.
  mlir::LLVMTypeConverter converter(&context);
  mlir::RewritePatternSet patterns(&context);
  mlir::populateFuncToLLVMConversionPatterns(converter, patterns);
  mlir::arith::populateArithToLLVMConversionPatterns(converter, patterns);
  mlir::populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
  scopealloc::populateMemRefScopesConversionPatterns(converter, patterns);
  mlir::LLVMConversionTarget target(context);
  target.addLegalOp<mlir::ModuleOp>();
  if (mlir::failed(mlir::applyFullConversion(*module, target, std::move(patterns))))
    return 1;

  // One more function, built directly in the LLVM dialect:
  //   llvm.func @direct() { %p = llvm.alloca 4096 x i8 {scopealloc.scope} ... }
  mlir::OpBuilder b(&context);
  b.setInsertionPointToEnd(module->getBody());
  mlir::Location loc = b.getUnknownLoc();
  auto ptr = mlir::LLVM::LLVMPointerType::get(&context);
  auto fn = b.create<mlir::LLVM::LLVMFuncOp>(
      loc, "direct", mlir::LLVM::LLVMFunctionType::get(ptr, {}));
  b.setInsertionPointToStart(fn.addEntryBlock(b));
  mlir::Value count = b.create<mlir::LLVM::ConstantOp>(loc, b.getI64Type(), 4096);
  auto alloca = b.create<mlir::LLVM::AllocaOp>(loc, ptr, b.getI8Type(), count, 16);
  if (badScope)
    alloca->setAttr(scopealloc::kScopeAttrName, b.getI64IntegerAttr(7));
  else
    alloca->setAttr(scopealloc::kScopeAttrName, b.getStringAttr("global.workspace"));
  b.create<mlir::LLVM::ReturnOp>(loc, alloca.getResult());

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(*module, llvmContext);
  if (!llvmModule)
    return 1;
  llvmModule->print(llvm::outs(), nullptr);
  return 0;
}
