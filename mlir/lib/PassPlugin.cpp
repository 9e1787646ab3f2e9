//===- PassPlugin.cpp - ScopeAlloc's MLIR passes for mlir-opt -------------===//
//
// ScopeAllocMLIRPlugin.so, loaded by mlir-opt-19:
//
//   mlir-opt-19 --load-pass-plugin=<P>/lib/ScopeAllocMLIRPlugin.so \
//     --pass-pipeline='builtin.module(scopealloc-memref-scopes, ...)'
//
// The module resolves MLIR against the mlir-opt that loads it (Debian's
// mlir-opt-19 exports its symbols), so it links no MLIR library itself.
//
//===----------------------------------------------------------------------===//
#include "scopealloc/mlir/Passes.h"

#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK
    LLVM_ATTRIBUTE_VISIBILITY_DEFAULT ::mlir::PassPluginLibraryInfo
    mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "ScopeAllocMLIR", LLVM_VERSION_STRING,
          []() { scopealloc::registerScopeAllocPasses(); }};
}
