//===- PluginRegistration.cpp - Entry point of ScopeAlloc.so --------------===//
//
// Makes `-passes=scope-alloc` parse in opt, and adds the pass at the end of
// clang's optimisation pipeline at every level (after inlining, SROA and
// mem2reg, so only buffers that really live in memory are considered).
//
//===----------------------------------------------------------------------===//
#include "ScopeAllocPass.h"
#include "WorkspacePromotion.h"
#include "SourceScopes.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;

static void registerScopeAlloc(PassBuilder &PB) {
  // Lets -print-pipeline-passes print a pipeline that parses back.
  if (PassInstrumentationCallbacks *PIC = PB.getPassInstrumentationCallbacks())
    PIC->addClassToPassName(scopealloc::ScopeAllocPass::name(), "scope-alloc");
  if (PassInstrumentationCallbacks *PIC = PB.getPassInstrumentationCallbacks())
    PIC->addClassToPassName(scopealloc::SourceScopesPass::name(),
                            "scope-alloc-source-scopes");
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "scope-alloc-source-scopes")
          return false;
        MPM.addPass(scopealloc::SourceScopesPass());
        return true;
      });
  // Scopes and policies written in the source (annotate attributes) become
  // metadata and attributes first, before SROA can split a scoped buffer.
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(scopealloc::SourceScopesPass());
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "scope-alloc")
          return false;
        MPM.addPass(scopealloc::ScopeAllocPass());
        return true;
      });
  // Workspace calls a code generator emitted become allocas before SROA and
  // mem2reg run (every level; harmless at -O0).
  if (PassInstrumentationCallbacks *PIC = PB.getPassInstrumentationCallbacks())
    PIC->addClassToPassName(scopealloc::PromoteWorkspacePass::name(),
                            "scope-alloc-promote");
  PB.registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "scope-alloc-promote")
          return false;
        FPM.addPass(scopealloc::PromoteWorkspacePass());
        return true;
      });
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(createModuleToFunctionPassAdaptor(
            scopealloc::PromoteWorkspacePass()));
      });
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(scopealloc::ScopeAllocPass());
      });
}

extern "C" LLVM_ATTRIBUTE_WEAK
    LLVM_ATTRIBUTE_VISIBILITY_DEFAULT PassPluginLibraryInfo
    llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "ScopeAlloc", "0.1", registerScopeAlloc};
}
