//===- scopealloc-mlir-translate.cpp - mlir-translate with scopes ---------===//
//
// mlir-translate-22 with ScopeAlloc's dialect translation registered:
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
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"

namespace {

// mlir::registerAllTranslations() minus registerToLLVMIRTranslation(): the
// dialects a translation may see are fixed by its registration, so
// --mlir-to-llvmir is registered here again, with the scopealloc dialect.
void registerTranslations() {
  mlir::registerFromLLVMIRTranslation();
  mlir::registerFromSPIRVTranslation();
  mlir::registerIRDLToCppTranslation();
  mlir::registerFromWasmTranslation();
  mlir::registerToCppTranslation();
  mlir::registerToSPIRVTranslation();
  mlir::smt::registerExportSMTLIBTranslation();

  mlir::TranslateFromMLIRRegistration toLLVMIR(
      "mlir-to-llvmir",
      "Translate MLIR to LLVMIR (scopealloc.scope becomes !scope)",
      [](mlir::Operation *op, llvm::raw_ostream &output) {
        llvm::LLVMContext llvmContext;
        std::unique_ptr<llvm::Module> llvmModule =
            mlir::translateModuleToLLVMIR(op, llvmContext);
        if (!llvmModule)
          return mlir::failure();
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
