//===- PluginRegistration.cpp - Entry point of ScopeAlloc.so --------------===//
//
// Three passes, in pipeline order (and, around every function pass, the
// scope tracker of ScopeTracking.h):
//   scope-alloc-source-scopes  annotate("scope:...") and function policies
//                              from the source become metadata/attributes
//   scope-alloc-promote        small workspace calls become allocas
//   scope-alloc                the placement decision and the demotion
// The first two run at the pipeline start (before SROA can split a scoped
// buffer, and so that SROA/mem2reg see promoted buffers); scope-alloc runs
// at the end of the optimisation pipeline at every level, so that only
// buffers that really live in memory are considered.
//
// scope-alloc and scope-alloc-promote take the policy settings as pipeline
// parameters, scope-alloc<limit=0;frame-budget=4096> (PolicyOptions.h).
// scope-alloc-promote, a function pass, is also a module-level name (run on
// every function), so that 'scope-alloc-promote,scope-alloc' parses: the
// parser takes the pipeline's kind from its first name.
//
//===----------------------------------------------------------------------===//
#include "passes/ScopeAllocPass.h"
#include "passes/ScopeTracking.h"
#include "policy/SourceScopes.h"
#include "transform/WorkspacePromotion.h"

#include "llvm/Passes/PassBuilder.h"
// After PassBuilder.h: the plugin interface and registerOptimizerLast.
#include "LLVMCompat.h"
#include "llvm/Support/WithColor.h"

#include <memory>

using namespace llvm;
using namespace scopealloc;

/// The policy parameters of \p Name when it names \p PassName, with or
/// without parameters. A bad parameter is reported here and the name is not
/// taken: the pipeline parser then fails naming the pass. (The parser calls
/// the callbacks once more with a throw-away pass manager only to learn the
/// first pass's kind, and stops after a refusal.) \p Quiet: the caller
/// reports nothing, since the message has just been printed.
static std::optional<PolicyOptions>
policyParameters(StringRef Name, StringRef PassName, bool Quiet = false) {
  if (!checkParametrizedPassName(Name, PassName))
    return std::nullopt;
  Expected<PolicyOptions> Params = parsePassParameters(
      [&](StringRef Text) { return parsePolicyParameters(Text, PassName); },
      Name, PassName);
  if (!Params) {
    std::string Message = toString(Params.takeError());
    if (!Quiet)
      WithColor::error() << "scope-alloc: " << Message << "\n";
    return std::nullopt;
  }
  return std::move(*Params);
}

/// A scope-alloc-promote name with bad parameters that the module-level
/// callback has just reported. Asked for the kind of a pipeline's first
/// name, the parser tries the module-level callbacks and then the
/// function-level ones with the same name: the second refusal stays quiet,
/// so the error prints once. Per thread: ThinLTO backends may parse a
/// pipeline (--lto-newpm-passes) on several threads at once.
static std::string &promoteRefusedAtModuleLevel() {
  static thread_local std::string Name;
  return Name;
}

static void registerScopeAlloc(PassBuilder &PB) {
  // Lets -print-pipeline-passes print a pipeline that parses back.
  if (PassInstrumentationCallbacks *PIC =
          PB.getPassInstrumentationCallbacks()) {
    PIC->addClassToPassName(SourceScopesPass::name(),
                            "scope-alloc-source-scopes");
    PIC->addClassToPassName(PromoteWorkspacePass::name(),
                            "scope-alloc-promote");
    PIC->addClassToPassName(ScopeAllocPass::name(), "scope-alloc");
    // Scopes must survive the passes between the pipeline's start and
    // scope-alloc at its end (ScopeTracking.h).
    registerScopeTracking(*PIC);
  }

  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "scope-alloc-source-scopes") {
          MPM.addPass(SourceScopesPass());
          return true;
        }
        // The pass as ThinLTO's post-link optimiser runs it, for a
        // pipeline of one's own (scopealloc-clang's distributed ThinLTO
        // backends, docs/internals.md).
        if (Name == "scope-alloc-link") {
          MPM.addPass(ScopeAllocPass(ScopeAllocPass::LinkStep));
          return true;
        }
        promoteRefusedAtModuleLevel().clear();
        if (checkParametrizedPassName(Name, "scope-alloc-promote")) {
          std::optional<PolicyOptions> Params =
              policyParameters(Name, "scope-alloc-promote");
          if (!Params) {
            promoteRefusedAtModuleLevel() = Name.str();
            return false;
          }
          MPM.addPass(createModuleToFunctionPassAdaptor(
              PromoteWorkspacePass(std::move(*Params))));
          return true;
        }
        std::optional<PolicyOptions> Params =
            policyParameters(Name, "scope-alloc");
        if (!Params)
          return false;
        MPM.addPass(ScopeAllocPass(std::move(*Params)));
        return true;
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        bool Reported = promoteRefusedAtModuleLevel() == Name;
        promoteRefusedAtModuleLevel().clear();
        std::optional<PolicyOptions> Params =
            policyParameters(Name, "scope-alloc-promote", Reported);
        if (!Params)
          return false;
        FPM.addPass(PromoteWorkspacePass(std::move(*Params)));
        return true;
      });

  // OptimizerLast runs at the end of a compile step's pipeline (default, or
  // LTO pre-link) and of ThinLTO's post-link optimiser; full LTO's ends at
  // FullLinkTimeOptimizationLast. LLVM 20 and newer say which phase a
  // pipeline is for; a post-link phase is never a compile step. Which
  // extension points this PassBuilder invoked says the rest (and all of it
  // on LLVM 19, which tells no phase): a compile step's pipeline starts at
  // PipelineStart, the LTO backends' do not, and a second OptimizerLast
  // after PipelineStart is -ffat-lto-objects' object code (LLVM 22 runs it
  // with the phase None, after the pre-link pipeline).
  struct PipelineSeen {
    bool Start = false;
    unsigned OptimizerLast = 0;
  };
  auto Seen = std::make_shared<PipelineSeen>();
  PB.registerPipelineStartEPCallback(
      [Seen](ModulePassManager &MPM, OptimizationLevel) {
        Seen->Start = true;
        MPM.addPass(SourceScopesPass());
        MPM.addPass(createModuleToFunctionPassAdaptor(PromoteWorkspacePass()));
      });
  registerOptimizerLast(PB, [Seen](ModulePassManager &MPM, OptimizationLevel,
                                   std::optional<ThinOrFullLTOPhase> Phase) {
    bool PostLink = Phase && (*Phase == ThinOrFullLTOPhase::ThinLTOPostLink ||
                              *Phase == ThinOrFullLTOPhase::FullLTOPostLink);
    bool CompileStep = !PostLink && Seen->Start && Seen->OptimizerLast++ == 0;
    MPM.addPass(ScopeAllocPass(CompileStep ? ScopeAllocPass::CompileStep
                                           : ScopeAllocPass::LinkStep));
  });
  PB.registerFullLinkTimeOptimizationLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(ScopeAllocPass(ScopeAllocPass::LinkStep,
                                   /*WholeProgram=*/true));
      });
}

extern "C" LLVM_ATTRIBUTE_WEAK
    LLVM_ATTRIBUTE_VISIBILITY_DEFAULT PassPluginLibraryInfo
    llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "ScopeAlloc", "0.1", registerScopeAlloc};
}
