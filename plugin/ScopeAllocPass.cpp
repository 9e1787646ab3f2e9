//===- ScopeAllocPass.cpp - Decide where stack buffers live ---------------===//
#include "ScopeAllocPass.h"
#include "AllocaDecision.h"
#include "AllocaDemotion.h"
#include "Diagnostics.h"
#include "FrameBudget.h"
#include "Report.h"
#include "ResumePoints.h"
#include "RuntimeABI.h"
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

/// The reason when an intrinsic takes \p AI (directly or through pointer
/// casts) in an operand the IR verifier requires to be an alloca: replacing
/// it with pool memory would make the module invalid.
static std::string intrinsicNeedingAlloca(const AllocaInst &AI) {
  SmallVector<const Value *, 4> Work{&AI};
  SmallPtrSet<const Value *, 4> Seen;
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second)
      continue;
    for (const Use &U : V->uses()) {
      const User *Usr = U.getUser();
      if (isa<BitCastInst>(Usr) || isa<AddrSpaceCastInst>(Usr)) {
        Work.push_back(Usr);
        continue;
      }
      auto *II = dyn_cast<IntrinsicInst>(Usr);
      if (!II)
        continue;
      switch (II->getIntrinsicID()) {
      case Intrinsic::localescape: // "only accepts static allocas"
        return "it escapes through llvm.localescape";
      case Intrinsic::gcroot: // "parameter #1 must be an alloca"
        if (U.getOperandNo() == 0)
          return "it is a garbage-collector root (llvm.gcroot), which must "
                 "be a stack slot";
        break;
      case Intrinsic::stackprotector: // "#2 must resolve to an alloca"
        if (U.getOperandNo() == 1)
          return "it is the stack protector's slot (llvm.stackprotector)";
        break;
      default:
        break;
      }
    }
  }
  return {};
}

/// Before coro-split, a coroutine's ramp returns at its first suspension
/// while its frame lives on: memory released at that return would be gone
/// when the coroutine resumes. coro-split moves the allocas that live across
/// a suspension into the coroutine frame; the ramp, resume and destroy
/// functions it makes are ordinary functions that the pass handles when it
/// runs after coro-split (as in clang's pipelines).
static constexpr const char *PresplitCoroutineReason =
    "the function is a coroutine that coro-split has not split yet (its "
    "allocas that live across a suspension go to the coroutine frame; run "
    "scope-alloc after coro-split to handle the split functions)";

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
  if (std::string Why = intrinsicNeedingAlloca(AI); !Why.empty())
    return Why;
  const Function &F = *AI.getFunction();
  if (F.isPresplitCoroutine())
    return PresplitCoroutineReason;
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
  /// Rules that need the whole function: the frame budget, and dynamic
  /// allocas moving together.
  bool applyFrameBudget();
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
  if (any_of(Decisions, [](const AllocaDecision &D) {
        return D.Action == AllocaDecision::Rejected;
      }))
    return false;
  if (!applyFrameBudget())
    return false;
  keepStackRestoreConsistent();
  for (AllocaDecision &D : Decisions)
    if (D.Action == AllocaDecision::Demote &&
        RuntimeABI::isReservedPoolName(D.Pool)) {
      reportError(F, D.Alloca,
                  "'" + describeValue(*D.Alloca) + "' would move to pool '" +
                      D.Pool + "', whose symbol " +
                      RuntimeABI::poolSymbol(D.Pool) +
                      " is a function of the runtime: rename the pool");
      OK = false;
    }
  if (!OK)
    return false;
  bool StackRestoreFrees = stackSaveMayMoveToArena();
  for (AllocaDecision &D : Decisions)
    if (D.Action == AllocaDecision::Demote && !D.Alloca->isStaticAlloca() &&
        (!D.Pool.empty() || !StackRestoreFrees))
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
  D.Pool = Policy.Pool;
  if (D.S.requiresPool()) {
    D.Pool = D.S.Kind == Scope::NamedPool ? D.S.Pool : "";
    D.Rule = "scope-pool";
    D.Reason = "scope " + D.S.describe() + " requires pool '" +
               D.S.poolName().str() + "'";
    return;
  }
  std::string PoolNote =
      Policy.Pool.empty() ? "" : "; pool from " + Policy.PoolSource;
  if (!D.Size) {
    std::string Rule = "dynamic allocations: " + spell(Policy.Dynamic).str() +
                       " (" + Policy.DynamicSource + ")";
    switch (Policy.Dynamic) {
    case DynamicRule::Demote:
      D.Rule = "dynamic-size";
      D.Reason = "its size is only known at run time; " + Rule + PoolNote;
      return;
    case DynamicRule::Keep:
      D.Action = AllocaDecision::Keep;
      D.Rule = "dynamic-keep";
      D.Reason = "its size is only known at run time; " + Rule;
      return;
    case DynamicRule::Reject:
      D.Action = AllocaDecision::Rejected;
      reportError(F, &AI,
                  "'" + describeValue(AI) +
                      "' is a dynamically sized allocation, which the "
                      "policy rejects: " +
                      Rule);
      return;
    }
  }
  if (*D.Size > Policy.MaxStackAlloca) {
    D.Rule = "over-limit";
    D.Reason =
        std::to_string(*D.Size) + " bytes exceed the " + limitText() + PoolNote;
  } else {
    D.Action = AllocaDecision::Keep;
    D.Rule = "within-limit";
    D.Reason = std::to_string(*D.Size) + " bytes are within the " + limitText();
  }
}

// The frame budget bounds what the allocations that stay add up to. Those
// that must stay (scope, cannot move) count first; chooseWithinBudget
// (FrameBudget.h) ranks the others.
bool FunctionPlanner::applyFrameBudget() {
  if (!Policy.FrameBudget)
    return true;
  uint64_t Budget = *Policy.FrameBudget;
  std::string BudgetText = "frame budget " + std::to_string(Budget) +
                           " bytes (" + Policy.FrameBudgetSource + ")";
  uint64_t Used = 0;
  SmallVector<AllocaDecision *, 8> Optional;
  bool OK = true;
  for (AllocaDecision &D : Decisions) {
    if (!D.Size || !D.Alloca->isStaticAlloca() ||
        D.Action == AllocaDecision::Demote)
      continue;
    if (D.Action == AllocaDecision::Keep && D.Rule == "within-limit") {
      Optional.push_back(&D);
      continue;
    }
    Used += *D.Size;
    if (D.S.requiresStack() && *D.Size > Budget) {
      std::string Msg =
          "'" + describeValue(*D.Alloca) + "' (" + std::to_string(*D.Size) +
          " bytes) must stay on the "
          "stack because of scope " +
          D.S.describe() + ", but alone exceeds the " + BudgetText;
      if (Policy.StackScopeOverBudget == ConflictRule::Warn) {
        reportWarning(F, D.Alloca, Msg);
      } else {
        reportError(F, D.Alloca,
                    Msg + " (policy key stack-scope-over-budget: error, " +
                        Policy.StackScopeOverBudgetSource + ")");
        OK = false;
      }
    }
  }
  SmallVector<BudgetCandidate, 8> Candidates;
  for (AllocaDecision *D : Optional)
    Candidates.push_back({D->Alloca, *D->Size});
  for (const BudgetChoice &C : chooseWithinBudget(Candidates, Used, Budget)) {
    AllocaDecision *D = Optional[C.Index];
    Used = C.Used;
    if (C.Stays) {
      D->Reason += "; fits the " + BudgetText;
      continue;
    }
    D->Action = AllocaDecision::Demote;
    D->Pool = Policy.Pool;
    D->Rule = "over-budget";
    D->Reason = std::to_string(*D->Size) + " bytes are within the " +
                limitText() + ", but the " + BudgetText + " is spent on " +
                "allocations that must stay or gain more from the stack (" +
                std::to_string(Used) + " bytes kept)";
  }
  return OK;
}

// llvm.stacksave/stackrestore can only follow the arena when no dynamic
// alloca is left on the machine stack; move the movable ones along.
void FunctionPlanner::keepStackRestoreConsistent() {
  auto IsDefaultPoolDynamicDemotion = [](const AllocaDecision &D) {
    return D.Action == AllocaDecision::Demote && !D.Alloca->isStaticAlloca() &&
           D.Pool.empty();
  };
  if (none_of(Decisions, IsDefaultPoolDynamicDemotion))
    return;
  for (AllocaDecision &D : Decisions)
    if (D.Action == AllocaDecision::Keep && !D.Alloca->isStaticAlloca() &&
        !D.S.requiresStack()) {
      D.Action = AllocaDecision::Demote;
      D.Pool = Policy.Pool;
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
                          ModuleReport *Report) {
  std::optional<StackPolicy> Policy = policyForFunction(F);
  if (!Policy) {
    if (Report)
      Report->addFailedFunction(F);
    return false; // the policy error was reported
  }
  if (!Policy->Enabled) {
    if (Report)
      Report->addUnhandledFunction();
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
  // Also in frames that moved nothing: a catch or setjmp here must free what
  // the frames it skipped took.
  bool Resumes = hasResumePoints(F);
  if (Resumes)
    restoreArenaAtResumePoints(F, Demotion);
  return !Requests.empty() || Resumes;
}

PreservedAnalyses ScopeAllocPass::run(Module &M, ModuleAnalysisManager &MAM) {
  if (!checkModulePolicy(M))
    return PreservedAnalyses::all(); // the error stops the compilation
  // Symbols of the runtime's names that the module defines otherwise would
  // be reused and break the module: error, and rewrite nothing.
  if (!RuntimeABI(M).checkModule())
    return PreservedAnalyses::all();
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  std::optional<ModuleReport> Report;
  if (reportRequested())
    Report.emplace(M);
  bool Changed = false;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    if (runOnFunction(F, FAM, Report ? &*Report : nullptr)) {
      Changed = true;
      FAM.invalidate(F, PreservedAnalyses::none());
    }
  }
  if (Report)
    Report->write();
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace scopealloc
