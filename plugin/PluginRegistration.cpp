//===- PluginRegistration.cpp - Entry point of ScopeAlloc.so --------------===//
//
// Three passes, in pipeline order:
//   scope-alloc-source-scopes  annotate("scope:...") and function policies
//                              from the source become metadata/attributes
//   scope-alloc-promote        small workspace calls become allocas
//   scope-alloc                the placement decision and the demotion
// The first two run at the pipeline start (before SROA can split a scoped
// buffer, and so that SROA/mem2reg see promoted buffers); scope-alloc runs
// at the end of the optimisation pipeline at every level, so that only
// buffers that really live in memory are considered.
//
//===----------------------------------------------------------------------===//
#include "ScopeAllocPass.h"
#include "SourceScopes.h"
#include "WorkspacePromotion.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;
using namespace scopealloc;

static void registerScopeAlloc(PassBuilder &PB) {
  // Lets -print-pipeline-passes print a pipeline that parses back.
  if (PassInstrumentationCallbacks *PIC =
          PB.getPassInstrumentationCallbacks()) {
    PIC->addClassToPassName(SourceScopesPass::name(),
                            "scope-alloc-source-scopes");
    PIC->addClassToPassName(PromoteWorkspacePass::name(),
                            "scope-alloc-promote");
    PIC->addClassToPassName(ScopeAllocPass::name(), "scope-alloc");
  }

  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "scope-alloc-source-scopes")
          MPM.addPass(SourceScopesPass());
        else if (Name == "scope-alloc")
          MPM.addPass(ScopeAllocPass());
        else
          return false;
        return true;
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "scope-alloc-promote")
          return false;
        FPM.addPass(PromoteWorkspacePass());
        return true;
      });

  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(SourceScopesPass());
        MPM.addPass(createModuleToFunctionPassAdaptor(PromoteWorkspacePass()));
      });
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(ScopeAllocPass());
      });
}

extern "C" LLVM_ATTRIBUTE_WEAK
    LLVM_ATTRIBUTE_VISIBILITY_DEFAULT PassPluginLibraryInfo
    llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "ScopeAlloc", "0.1", registerScopeAlloc};
}
