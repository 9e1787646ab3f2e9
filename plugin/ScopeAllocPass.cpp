//===- ScopeAllocPass.cpp - Decide where stack buffers live ---------------===//
#include "ScopeAllocPass.h"
#include "AllocaDemotion.h"
#include "Diagnostics.h"
#include "ResumePoints.h"
#include "Scope.h"
#include "StackPolicy.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/EHPersonalities.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
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

struct AllocaDecision {
  enum ActionTy { Keep, Demote, Pinned };
  AllocaInst *Alloca;
  Scope S;
  ActionTy Action = Keep;
  std::optional<uint64_t> Size; ///< bytes, when known at compile time
  std::string Reason;           ///< why, for the remark
  std::string Rule;             ///< short rule id, a remark argument
};

/// Why \p AI can never move, or an empty string.
static std::string whyPinned(const AllocaInst &AI, const DataLayout &DL) {
  if (AI.isUsedWithInAlloca())
    return "inalloca argument memory is part of the call sequence";
  if (AI.isSwiftError())
    return "swifterror slots must stay on the stack";
  if (AI.getAddressSpace() != 0)
    return "it is in address space " + std::to_string(AI.getAddressSpace()) +
           ", the workspace pools are in address space 0";
  if (std::optional<TypeSize> TS = AI.getAllocationSize(DL);
      TS && TS->isScalable())
    return "its size is a scalable vector size";
  for (const User *U : AI.users())
    if (auto *II = dyn_cast<IntrinsicInst>(U);
        II && II->getIntrinsicID() == Intrinsic::localescape)
      return "it escapes through llvm.localescape";
  const Function &F = *AI.getFunction();
  if (F.hasPersonalityFn() &&
      isFuncletEHPersonality(classifyEHPersonality(F.getPersonalityFn())))
    return "funclet-based exception handling is not supported yet";
  return {};
}

class FunctionPlanner {
public:
  FunctionPlanner(Function &F, const StackPolicy &Policy)
      : F(F), DL(F.getParent()->getDataLayout()), Policy(Policy) {}

  /// Fills Decisions; false when a malformed scope was reported.
  bool plan();
  /// Rules that need the whole function: dynamic allocas move together.
  void keepStackRestoreConsistent();
  bool stackSaveMayMoveToArena() const;

  SmallVector<AllocaDecision, 8> Decisions;

private:
  void decide(AllocaDecision &D);
  std::string limitText() const {
    return "limit " + std::to_string(Policy.MaxStackAlloca) + " bytes (" +
           Policy.Source + ")";
  }

  Function &F;
  const DataLayout &DL;
  const StackPolicy &Policy;
};

} // namespace

bool FunctionPlanner::plan() {
  bool OK = true;
  for (Instruction &I : instructions(F)) {
    if (!isa<AllocaInst>(I) && !isa<CallBase>(I))
      continue;
    Expected<Scope> S = readScope(I);
    if (!S) {
      reportError(F, &I,
                  "malformed !scope metadata on '" + describeValue(I) +
                      "': " + toString(S.takeError()));
      OK = false;
      continue;
    }
    if (auto *AI = dyn_cast<AllocaInst>(&I))
      Decisions.push_back({AI, std::move(*S)});
  }
  if (!OK)
    return false;
  for (AllocaDecision &D : Decisions)
    decide(D);
  keepStackRestoreConsistent();
  bool StackRestoreFrees = stackSaveMayMoveToArena();
  for (AllocaDecision &D : Decisions)
    if (D.Action == AllocaDecision::Demote && !D.Alloca->isStaticAlloca() &&
        (D.S.Kind == Scope::NamedPool || !StackRestoreFrees))
      D.Reason += "; its memory is released when the function returns, not "
                  "at llvm.stackrestore";
  return true;
}

void FunctionPlanner::decide(AllocaDecision &D) {
  AllocaInst &AI = *D.Alloca;
  if (std::optional<TypeSize> TS = AI.getAllocationSize(DL);
      TS && !TS->isScalable())
    D.Size = TS->getFixedValue();

  if (std::string Why = whyPinned(AI, DL); !Why.empty()) {
    D.Action = AllocaDecision::Pinned;
    D.Reason = Why;
    D.Rule = "cannot-move";
    if (D.S.requiresPool())
      reportWarning(F, &AI,
                    "'" + describeValue(AI) + "' has scope " + D.S.describe() +
                        " but stays on the stack: " + Why);
    return;
  }
  if (D.S.requiresStack()) {
    D.Action = AllocaDecision::Keep;
    D.Rule = "scope-stack";
    D.Reason = "scope " + D.S.describe() + " requires the stack";
    if (D.Size && *D.Size > Policy.MaxStackAlloca) {
      D.Reason += ", although its " + std::to_string(*D.Size) +
                  " bytes exceed the " + limitText();
      reportWarning(F, &AI,
                    "'" + describeValue(AI) + "' (" + std::to_string(*D.Size) +
                        " bytes) stays on the stack because of scope " +
                        D.S.describe() + ", but exceeds the " + limitText());
    }
    return;
  }
  D.Action = AllocaDecision::Demote;
  if (D.S.requiresPool()) {
    D.Rule = "scope-pool";
    D.Reason = "scope " + D.S.describe() + " requires pool '" +
               D.S.poolName().str() + "'";
  } else if (!D.Size) {
    D.Rule = "dynamic-size";
    D.Reason = "its size is only known at run time";
  } else if (*D.Size > Policy.MaxStackAlloca) {
    D.Rule = "over-limit";
    D.Reason = std::to_string(*D.Size) + " bytes exceed the " + limitText();
  } else {
    D.Action = AllocaDecision::Keep;
    D.Rule = "within-limit";
    D.Reason = std::to_string(*D.Size) + " bytes are within the " + limitText();
  }
}

// llvm.stacksave/stackrestore can only follow the arena when no dynamic
// alloca is left on the machine stack; move the movable ones along.
void FunctionPlanner::keepStackRestoreConsistent() {
  auto IsDefaultPoolDynamicDemotion = [](const AllocaDecision &D) {
    return D.Action == AllocaDecision::Demote && !D.Alloca->isStaticAlloca() &&
           D.S.Kind != Scope::NamedPool;
  };
  if (none_of(Decisions, IsDefaultPoolDynamicDemotion))
    return;
  for (AllocaDecision &D : Decisions)
    if (D.Action == AllocaDecision::Keep && !D.Alloca->isStaticAlloca() &&
        !D.S.requiresStack()) {
      D.Action = AllocaDecision::Demote;
      D.Rule = "with-dynamic";
      D.Reason += "; moved anyway with the function's other dynamic "
                  "allocations, so that llvm.stackrestore frees them together";
    }
}

bool FunctionPlanner::stackSaveMayMoveToArena() const {
  return none_of(Decisions, [](const AllocaDecision &D) {
    return D.Action != AllocaDecision::Demote && !D.Alloca->isStaticAlloca();
  });
}

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
    else
      R << ore::NV("Size", "dynamic") << " size";
    R << ", align " << ore::NV("Align", AI.getAlign().value()) << ", scope "
      << ore::NV("Scope", D.S.describe()) << ") ";
    switch (D.Action) {
    case AllocaDecision::Demote:
      R << "moved to pool '" << ore::NV("Pool", D.S.poolName()) << "'";
      break;
    case AllocaDecision::Keep:
      R << "stays on the stack";
      break;
    case AllocaDecision::Pinned:
      R << "cannot leave the stack";
      break;
    }
    R << ": " << ore::NV("Reason", D.Reason) << " [rule "
      << ore::NV("Rule", D.Rule) << "]";
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
  }
}

/// Decides and rewrites one function; true when it changed.
static bool runOnFunction(Function &F, FunctionAnalysisManager &FAM) {
  std::optional<StackPolicy> Policy = policyForFunction(F);
  if (!Policy || !Policy->Enabled)
    return false;
  FunctionPlanner Planner(F, *Policy);
  if (!Planner.plan())
    return false; // errors were reported; nothing is half-rewritten

  auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(F);
  SmallVector<DemotionRequest, 8> Requests;
  for (const AllocaDecision &D : Planner.Decisions) {
    emitRemark(ORE, D, *Policy);
    countDecision(D);
    if (D.Action == AllocaDecision::Demote)
      Requests.push_back(
          {D.Alloca, D.S.Kind == Scope::NamedPool ? D.S.Pool : std::string()});
  }
  demoteAllocas(F, Requests, Planner.stackSaveMayMoveToArena());
  // Also in frames that moved nothing: a catch or setjmp here must free what
  // the frames it skipped took.
  bool Resumes = hasResumePoints(F);
  if (Resumes)
    restoreArenaAtResumePoints(F);
  return !Requests.empty() || Resumes;
}

PreservedAnalyses ScopeAllocPass::run(Module &M, ModuleAnalysisManager &MAM) {
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  bool Changed = false;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    if (runOnFunction(F, FAM)) {
      Changed = true;
      FAM.invalidate(F, PreservedAnalyses::none());
    }
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace scopealloc
