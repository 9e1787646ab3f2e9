//===- ScopeAllocPass.cpp - Decide where stack buffers live ---------------===//
#include "passes/ScopeAllocPass.h"
#include "Scope.h"
#include "facts/LTODeferral.h"
#include "facts/PoolUsage.h"
#include "facts/Report.h"
#include "facts/StackFacts.h"
#include "placement/AllocaDecision.h"
#include "placement/BoundFit.h"
#include "placement/FrameLayout.h"
#include "placement/Placement.h"
#include "placement/StaticFramePlan.h"
#include "policy/BufferHome.h"
#include "policy/StackPolicy.h"
#include "support/Diagnostics.h"
#include "support/LinkerRemarks.h"
#include "support/ValueNames.h"
#include "transform/AllocaDemotion.h"
#include "transform/ResumePoints.h"
#include "transform/RuntimeABI.h"
#include "transform/StackProtector.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <cstdio>
#include <memory>

#define DEBUG_TYPE "scope-alloc"

using namespace llvm;

// TrackingStatistic rather than STATISTIC: Debian's LLVM is a release build,
// where STATISTIC compiles to nothing, yet `-stats` must still count.
static TrackingStatistic NumDemoted(DEBUG_TYPE, "NumDemoted",
                                    "Allocas moved to a workspace pool");
static TrackingStatistic
    NumDemotedBytes(DEBUG_TYPE, "NumDemotedBytes",
                    "Bytes of constant-size allocas moved to a workspace pool");
static TrackingStatistic
    NumDemotedDynamic(DEBUG_TYPE, "NumDemotedDynamic",
                      "Dynamically sized allocas moved to a workspace pool");
static TrackingStatistic
    NumKept(DEBUG_TYPE, "NumKept",
            "Allocas kept on the stack by policy or scope");
static TrackingStatistic NumPinned(DEBUG_TYPE, "NumPinned",
                                   "Allocas that cannot leave the stack");

namespace scopealloc {

namespace {

/// Prints the counters above at exit when -stats is given. LLVM's own
/// printer only says "Statistics are disabled" in a release build.
struct StatisticsAtExit {
  ~StatisticsAtExit() {
    if (!AreStatisticsEnabled())
      return;
    const TrackingStatistic *All[] = {&NumDemoted, &NumDemotedBytes,
                                      &NumDemotedDynamic, &NumKept, &NumPinned};
    std::fprintf(stderr, "===--- scope-alloc statistics ---===\n");
    for (const TrackingStatistic *S : All)
      std::fprintf(stderr, "%10llu %s - %s\n",
                   static_cast<unsigned long long>(S->getValue()),
                   S->getDebugType(), S->getDesc());
  }
} PrintStatisticsAtExit;

} // namespace

/// The remark's source location: the variable's declaration (BufferPlace),
/// else the function.
static DiagnosticLocation remarkLocation(const BufferPlace &Place) {
  if (Place.Decl)
    return DiagnosticLocation(DebugLoc(Place.Decl));
  return DiagnosticLocation(Place.Subprogram);
}

static void emitRemark(OptimizationRemarkEmitter &ORE, const AllocaDecision &D,
                       const StackPolicy &Policy) {
  AllocaInst &AI = *D.Alloca;
  BufferPlace Place = placeBuffer(AI);
  auto Describe = [&](auto R) {
    // 'buf' in 'f' [inlined into 'g' at line 12[, into 'h' at line 30]]:
    // the function names it even where the location cannot (opt, no -g).
    R << "'" << ore::NV("Alloca", Place.Name) << "' in '"
      << ore::NV("Function", Place.Function) << "'";
    for (const BufferPlace::Call &C : Place.InlinedInto) {
      R << (&C == &Place.InlinedInto.front() ? " inlined into '" : ", into '")
        << ore::NV("Caller", C.Caller) << "'";
      if (!C.Line)
        continue;
      if (C.File.empty())
        R << " at line ";
      else
        R << " at " << ore::NV("CallFile", C.File) << ":";
      R << ore::NV("CallLine", C.Line);
    }
    R << " (";
    if (D.Size)
      R << ore::NV("Size", *D.Size) << " bytes";
    else // no Size argument: record readers take Size as a number
      R << "dynamic size";
    R << ", align " << ore::NV("Align", AI.getAlign().value()) << ", scope ";
    // The argument is the bare spelling (or "none"); the quotes are text.
    if (D.S.Kind == Scope::Unspecified)
      R << ore::NV("Scope", "none");
    else
      R << "'" << ore::NV("Scope", D.S.Spelling) << "'";
    R << ") ";
    switch (D.Action) {
    case AllocaDecision::Demote:
      R << "moved to pool '"
        << ore::NV("Pool", D.Pool.empty() ? DefaultPoolName : D.Pool) << "'";
      break;
    case AllocaDecision::Keep:
      R << "stays on the stack";
      break;
    case AllocaDecision::Pinned:
      R << "cannot leave the stack";
      break;
    case AllocaDecision::Rejected:
      llvm_unreachable("a rejected allocation stops the function's planning");
    }
    R << ": " << ore::NV("Reason", D.Reason) << " [rule "
      << ore::NV("Rule", ruleName(D.Rule.Id)) << "]";
    return R;
  };
  DiagnosticLocation Loc = remarkLocation(Place);
  switch (D.Action) {
  case AllocaDecision::Demote:
    ORE.emit([&] {
      return Describe(
          OptimizationRemark(DEBUG_TYPE, "Demoted", Loc, AI.getParent()));
    });
    break;
  case AllocaDecision::Keep:
    if (D.S.requiresStack() && D.Size && *D.Size > Policy.MaxStackAlloca)
      ORE.emit([&] {
        return Describe(OptimizationRemarkMissed(
            DEBUG_TYPE, "StackScopeOverLimit", Loc, AI.getParent()));
      });
    else
      ORE.emit([&] {
        return Describe(
            OptimizationRemark(DEBUG_TYPE, "KeptOnStack", Loc, AI.getParent()));
      });
    break;
  case AllocaDecision::Pinned:
    ORE.emit([&] {
      return Describe(OptimizationRemarkMissed(DEBUG_TYPE, "CannotMove", Loc,
                                               AI.getParent()));
    });
    break;
  case AllocaDecision::Rejected:
    llvm_unreachable("a rejected allocation stops the function's planning");
  }
}

static void countDecision(const AllocaDecision &D) {
  switch (D.Action) {
  case AllocaDecision::Demote:
    ++NumDemoted;
    if (D.Size)
      NumDemotedBytes += *D.Size;
    else
      ++NumDemotedDynamic;
    break;
  case AllocaDecision::Keep:
    ++NumKept;
    break;
  case AllocaDecision::Pinned:
    ++NumPinned;
    break;
  case AllocaDecision::Rejected:
    llvm_unreachable("a rejected allocation stops the function's planning");
  }
}

/// One function's decisions, made and not yet applied.
struct FunctionPlan {
  FunctionPlan(Function &F, StackPolicy P)
      : F(F), Policy(std::move(P)), Planner(F, Policy) {}
  Function &F;
  StackPolicy Policy;
  FunctionPlanner Planner;
};

/// Decides one function; null when there is nothing to apply (the policy
/// leaves it alone, or an error was reported). Records the failures in
/// \p Report when a report was asked for.
static std::unique_ptr<FunctionPlan>
planFunction(Function &F, FunctionAnalysisManager &FAM,
             const ModulePolicy &ModulePolicy, ModuleReport *Report) {
  std::optional<StackPolicy> Policy = policyForFunction(ModulePolicy, F);
  if (!Policy) {
    if (Report)
      Report->addFailedFunction(F);
    return nullptr; // the policy error was reported
  }
  if (!Policy->Enabled) {
    if (Report)
      Report->addUnhandledFunction(*Policy);
    FAM.getResult<OptimizationRemarkEmitterAnalysis>(F).emit([&] {
      return OptimizationRemarkMissed(DEBUG_TYPE, "TargetNotHandled", &F)
             << "'" << ore::NV("Function", readableName(F.getName()))
             << "' left alone: " << ore::NV("Reason", Policy->Source);
    });
    return nullptr;
  }
  auto Plan = std::make_unique<FunctionPlan>(F, std::move(*Policy));
  if (!Plan->Planner.plan()) {
    if (Report)
      Report->addFailedFunction(F);
    return nullptr; // errors were reported; nothing is half-rewritten
  }
  return Plan;
}

/// Rewrites one planned function; true when it changed. Records the
/// decisions in \p Report when a report was asked for.
static bool applyPlan(FunctionPlan &Plan, FunctionAnalysisManager &FAM,
                      ModuleReport *Report, PoolUsage &Usage, StackFacts &Facts,
                      const StaticFrameAddress *Planned = nullptr) {
  Function &F = Plan.F;
  if (Report)
    Report->addFunction(F, Plan.Policy, Plan.Planner.Decisions);

  auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(F);
  SmallVector<DemotionRequest, 8> Requests;
  for (const AllocaDecision &D : Plan.Planner.Decisions) {
    emitRemark(ORE, D, Plan.Policy);
    countDecision(D);
    if (D.Action == AllocaDecision::Demote)
      Requests.push_back({D.Alloca, D.Pool});
  }
  FunctionDemotion Demotion = demoteAllocas(
      F, Requests, Plan.Planner.stackSaveMayMoveToArena(), Planned);
  if (Report)
    Report->addDemotion(F, Demotion);
  Usage.addFunction(F, Demotion);
  Facts.addDemotion(F, Demotion);
  // Also in frames that moved nothing: a catch or setjmp here must free what
  // the frames it skipped took.
  bool Resumes = hasResumePoints(F);
  if (Resumes)
    restoreArenaAtResumePoints(F, Demotion.defaultPoolChanges());
  return !Requests.empty() || Resumes;
}

PreservedAnalyses ScopeAllocPass::run(Module &M, ModuleAnalysisManager &MAM) {
  // In lld, remarks print as clang prints them (LinkerRemarks.h).
  LinkerRemarkPrefix RemarkPrefix(M.getContext());
  if (onlyStackFactsRequested())
    return emitStackFactsOnly(M); // places nothing
  // The options, module flags and policy file, once for all functions.
  ModulePolicy Policy = computeModulePolicy(M, commandLineOptions(), Params);
  if (!Policy.report(M))
    return PreservedAnalyses::all(); // the error stops the compilation
  // Bitcode a compile step prepared for the link, compiled again to code
  // (`clang -c -x ir a.o`): no step comes after this one, which is the
  // link's for it.
  StageTy Stage = this->Stage;
  if (Stage == CompileStep && hasLinkMarker(M))
    Stage = LinkStep;
  // Under -flto the frames are built at the link: decide there.
  bool PreLink = Stage == CompileStep && isLTOPreLinkModule(M);
  if (PreLink && sanitizerInstrumentingAllocas(M).empty())
    return deferToLink(M, Policy) ? PreservedAnalyses::none()
                                  : PreservedAnalyses::all();
  bool Changed = removeLinkMarker(M);
  // Symbols of the runtime's names that the module defines otherwise would
  // be reused and break the module: error, and rewrite nothing.
  if (!RuntimeABI(M).checkModule())
    return PreservedAnalyses::all();
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  // First: foreign bitcode records the link's report directory.
  if (Stage == LinkStep)
    Changed |= adoptForeignBitcode(M);
  std::vector<std::string> LinkReports = recordedReportPaths(M);
  std::optional<ModuleReport> Report;
  if (reportRequested() || !LinkReports.empty())
    Report.emplace(M);
  CompileStepPolicies Policies(M, Policy, Params);
  PoolUsage Usage(M);
  StackFacts Facts(M, Stage == LinkStep);
  // The functions this run decides, with their policies.
  SmallVector<std::pair<Function *, const ModulePolicy *>, 32> Work;
  BoundFit Fit(M);
  for (Function &F : M) {
    if (F.isDeclaration() || F.hasFnAttribute(DecidedAttr) ||
        (Stage == LinkStep && !F.hasFnAttribute(CompileOptionsAttr)))
      continue;
    const ModulePolicy *FunctionPolicy = Policies.forFunction(F);
    if (!FunctionPolicy) {
      if (Report)
        Report->addFailedFunction(F);
      continue;
    }
    // Buffers inlined from functions with other settings keep those.
    Changed |= applyBufferHomes(F, *FunctionPolicy);
    Work.push_back({&F, FunctionPolicy});
    Fit.addPolicy(*FunctionPolicy);
  }
  // Stack bounds are fitted over the whole program: all functions are
  // planned before any is rewritten (BoundFit.h).
  bool WholeProgram =
      this->WholeProgram || (Stage != LinkStep && wholeProgramRequested());
  bool Fitting = WholeProgram && Fit.hasStackBound();
  if (Stage == LinkStep && !WholeProgram && Fit.hasStackBound())
    Fit.warnNotWholeProgram();
  auto Apply = [&](FunctionPlan &Plan,
                   const StaticFrameAddress *Planned = nullptr) {
    if (!applyPlan(Plan, FAM, Report ? &*Report : nullptr, Usage, Facts,
                   Planned))
      return;
    Changed = true;
    FAM.invalidate(Plan.F, PreservedAnalyses::none());
  };
  // So is the static frame plan (StaticFramePlan.h).
  std::vector<std::unique_ptr<FunctionPlan>> Planned;
  PlannedFunctions Plans;
  bool AnyStatic = false;
  for (auto [F, FunctionPolicy] : Work) {
    std::unique_ptr<FunctionPlan> Plan =
        planFunction(*F, FAM, *FunctionPolicy, Report ? &*Report : nullptr);
    if (!Plan)
      continue;
    if (!WholeProgram) {
      Apply(*Plan);
      continue;
    }
    AnyStatic |= Plan->Policy.Plan == FramePlan::Static;
    Plans[F] = {&Plan->Policy, Plan->Planner.Decisions};
    Planned.push_back(std::move(Plan));
  }
  if (Fitting)
    Fit.run(Plans);
  StaticFrames Static;
  if (AnyStatic)
    Static = planStaticFrames(M, Fit.settings(), Plans,
                              [](Function &F, ArrayRef<AllocaInst *> Allocas) {
                                return layoutFrame(F, Allocas,
                                                   DemotedCanaries::size(F),
                                                   /*LiveAcrossCallsLow=*/true);
                              });
  for (std::unique_ptr<FunctionPlan> &Plan : Planned) {
    auto It = Static.find(&Plan->F);
    Apply(*Plan, It == Static.end() ? nullptr : &It->second);
  }
  // Decided: not again by the link (after a sanitizer's compile step), nor
  // by a plugin loaded twice into it.
  if (PreLink || Stage == LinkStep) {
    markDecided(M);
    Changed = true;
  }
  if (Report) {
    if (reportRequested())
      Report->write();
    for (const std::string &Path : LinkReports)
      Report->write(Path);
  }
  Usage.write();
  Changed |= Facts.emit(); // last: records describe the final functions
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

void ScopeAllocPass::printPipeline(
    raw_ostream &OS, function_ref<StringRef(StringRef)> MapClassName2PassName) {
  printPassWithParameters(OS, MapClassName2PassName(name()), Params);
}

} // namespace scopealloc
