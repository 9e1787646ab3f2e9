//===- ScopeAllocPass.cpp - Decide where stack buffers live ---------------===//
#include "ScopeAllocPass.h"
#include "AllocaDecision.h"
#include "AllocaDemotion.h"
#include "Diagnostics.h"
#include "LTODeferral.h"
#include "Placement.h"
#include "PoolUsage.h"
#include "Report.h"
#include "ResumePoints.h"
#include "RuntimeABI.h"
#include "Scope.h"
#include "StackFacts.h"
#include "StackPolicy.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <cstdio>

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

/// The remark's source location: the variable's declaration when there is
/// debug info (allocas themselves carry no location), else the function.
static DiagnosticLocation remarkLocation(AllocaInst &AI) {
  SourceVariable SV = findSourceVariable(AI);
  // The variable's own line: after optimisation the records' locations are
  // often line 0 or the line of a use.
  if (SV.Var && SV.Loc && SV.Loc.getLine() == SV.Var->getLine())
    return DiagnosticLocation(SV.Loc); // with the column
  if (SV.Var && SV.Var->getLine())
    return DiagnosticLocation(DILocation::get(
        AI.getContext(), SV.Var->getLine(), 0, SV.Var->getScope()));
  if (SV.Loc && SV.Loc.getLine())
    return DiagnosticLocation(SV.Loc);
  return DiagnosticLocation(AI.getFunction()->getSubprogram());
}

static void emitRemark(OptimizationRemarkEmitter &ORE, const AllocaDecision &D,
                       const StackPolicy &Policy) {
  AllocaInst &AI = *D.Alloca;
  auto Describe = [&](auto R) {
    R << "'" << ore::NV("Alloca", describeValue(AI)) << "' (";
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
  DiagnosticLocation Loc = remarkLocation(AI);
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

/// Decides and rewrites one function; true when it changed. Records the
/// decisions in \p Report when a report was asked for.
static bool runOnFunction(Function &F, FunctionAnalysisManager &FAM,
                          const ModulePolicy &ModulePolicy,
                          ModuleReport *Report, PoolUsage &Usage,
                          StackFacts &Facts) {
  std::optional<StackPolicy> Policy = policyForFunction(ModulePolicy, F);
  if (!Policy) {
    if (Report)
      Report->addFailedFunction(F);
    return false; // the policy error was reported
  }
  if (!Policy->Enabled) {
    if (Report)
      Report->addUnhandledFunction(*Policy);
    FAM.getResult<OptimizationRemarkEmitterAnalysis>(F).emit([&] {
      return OptimizationRemarkMissed(DEBUG_TYPE, "TargetNotHandled", &F)
             << "'" << ore::NV("Function", &F)
             << "' left alone: " << ore::NV("Reason", Policy->Source);
    });
    return false;
  }
  FunctionPlanner Planner(F, *Policy);
  if (!Planner.plan()) {
    if (Report)
      Report->addFailedFunction(F);
    return false; // errors were reported; nothing is half-rewritten
  }
  if (Report)
    Report->addFunction(F, *Policy, Planner.Decisions);

  auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(F);
  SmallVector<DemotionRequest, 8> Requests;
  for (const AllocaDecision &D : Planner.Decisions) {
    emitRemark(ORE, D, *Policy);
    countDecision(D);
    if (D.Action == AllocaDecision::Demote)
      Requests.push_back({D.Alloca, D.Pool});
  }
  FunctionDemotion Demotion =
      demoteAllocas(F, Requests, Planner.stackSaveMayMoveToArena());
  if (Report)
    Report->addDemotion(F, Demotion);
  Usage.addFunction(F, Demotion);
  Facts.addDemotion(F, Demotion);
  // Also in frames that moved nothing: a catch or setjmp here must free what
  // the frames it skipped took.
  bool Resumes = hasResumePoints(F);
  if (Resumes)
    restoreArenaAtResumePoints(F, Demotion);
  return !Requests.empty() || Resumes;
}

PreservedAnalyses ScopeAllocPass::run(Module &M, ModuleAnalysisManager &MAM) {
  if (onlyStackFactsRequested())
    return emitStackFactsOnly(M); // places nothing
  // The options, module flags and policy file, once for all functions.
  ModulePolicy Policy = computeModulePolicy(M, commandLineOptions(), Params);
  if (!Policy.report(M))
    return PreservedAnalyses::all(); // the error stops the compilation
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
  std::vector<std::string> LinkReports = recordedReportPaths(M);
  std::optional<ModuleReport> Report;
  if (reportRequested() || !LinkReports.empty())
    Report.emplace(M);
  CompileStepPolicies Policies(M, Policy, Params);
  PoolUsage Usage(M);
  StackFacts Facts(M, Stage == LinkStep);
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
    if (runOnFunction(F, FAM, *FunctionPolicy, Report ? &*Report : nullptr,
                      Usage, Facts)) {
      Changed = true;
      FAM.invalidate(F, PreservedAnalyses::none());
    }
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
