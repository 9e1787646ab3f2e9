//===- scopealloc-mlir-translate.cpp - mlir-translate with scopes ---------===//
//
// mlir-translate-19 with ScopeAlloc's dialect translation registered:
// `scopealloc.scope = "<scope>"` on llvm.alloca and llvm.call becomes
// `!scope !{!"<scope>"}` in --mlir-to-llvmir's output. Every other upstream
// translation is there unchanged.
//
//===----------------------------------------------------------------------===//
#include "scopealloc/mlir/ScopeAllocTranslation.h"

#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllTranslations.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"

// LLVM 19's switch between debug records and debug intrinsics in printed IR
// (libLLVM; mlir-translate-19's --mlir-to-llvmir honours it the same way).
extern llvm::cl::opt<bool> WriteNewDbgInfoFormat;

namespace {

// mlir::registerAllTranslations() minus registerToLLVMIRTranslation(): the
// dialects a translation may see are fixed by its registration, so
// --mlir-to-llvmir is registered here again, with the scopealloc dialect.
void registerTranslations() {
  mlir::registerFromLLVMIRTranslation();
  mlir::registerFromSPIRVTranslation();
  mlir::registerToCppTranslation();
  mlir::registerToSPIRVTranslation();

  mlir::TranslateFromMLIRRegistration toLLVMIR(
      "mlir-to-llvmir",
      "Translate MLIR to LLVMIR (scopealloc.scope becomes !scope)",
      [](mlir::Operation *op, llvm::raw_ostream &output) {
        llvm::LLVMContext llvmContext;
        std::unique_ptr<llvm::Module> llvmModule =
            mlir::translateModuleToLLVMIR(op, llvmContext);
        if (!llvmModule)
          return mlir::failure();
        // Print in the debug-info format LLVM 19 prints by default.
        llvm::ScopedDbgInfoFormatSetter formatSetter(*llvmModule,
                                                     WriteNewDbgInfoFormat);
        if (WriteNewDbgInfoFormat)
          llvmModule->removeDebugIntrinsicDeclarations();
        llvmModule->print(output, nullptr);
        return mlir::success();
      },
      [](mlir::DialectRegistry &registry) {
        registry.insert<mlir::DLTIDialect, mlir::func::FuncDialect>();
        mlir::registerAllToLLVMIRTranslations(registry);
        scopealloc::registerScopeAllocDialectTranslation(registry);
      });
}

} // namespace

int main(int argc, char **argv) {
  registerTranslations();
  return mlir::failed(mlir::mlirTranslateMain(
      argc, argv, "ScopeAlloc MLIR translation driver"));
}
