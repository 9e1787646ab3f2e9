//===- Placement.cpp - Where a buffer's memory comes from -----------------===//
#include "placement/Placement.h"
#include "LLVMCompat.h"
#include "OptionCategory.h"
#include "facts/LTODeferral.h"
#include "placement/FrameBudget.h"
#include "support/Diagnostics.h"
#include "transform/AllocaDemotion.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "scope-alloc-placement"

using namespace llvm;

namespace scopealloc {

StringRef ruleName(PlacementRule R) {
  switch (R) {
  case PlacementRule::CannotMove:
    return "cannot-move";
  case PlacementRule::ScopeStack:
    return "scope-stack";
  case PlacementRule::ScopePool:
    return "scope-pool";
  case PlacementRule::DynamicSize:
    return "dynamic-size";
  case PlacementRule::DynamicKeep:
    return "dynamic-keep";
  case PlacementRule::DynamicReject:
    return "dynamic-reject";
  case PlacementRule::OverLimit:
    return "over-limit";
  case PlacementRule::WithinLimit:
    return "within-limit";
  case PlacementRule::OverBudget:
    return "over-budget";
  case PlacementRule::WithDynamic:
    return "with-dynamic";
  case PlacementRule::FitStackBound:
    return "fit-stack-bound";
  }
  llvm_unreachable("all rules handled");
}

std::optional<BufferVerdict> placeByScope(const Scope &S) {
  if (S.requiresStack())
    return BufferVerdict{AllocaDecision::Keep, PlacementRule::ScopeStack, ""};
  if (S.requiresPool())
    return BufferVerdict{AllocaDecision::Demote, PlacementRule::ScopePool,
                         S.Kind == Scope::NamedPool ? S.Pool : ""};
  return std::nullopt;
}

BufferVerdict placeBuffer(const Scope &S, std::optional<uint64_t> Size,
                          const StackPolicy &P) {
  if (std::optional<BufferVerdict> V = placeByScope(S))
    return *V;
  if (!Size) {
    switch (P.Dynamic) {
    case DynamicRule::Demote:
      return {AllocaDecision::Demote, PlacementRule::DynamicSize, P.Pool};
    case DynamicRule::Keep:
      return {AllocaDecision::Keep, PlacementRule::DynamicKeep, ""};
    case DynamicRule::Reject:
      return {AllocaDecision::Rejected, PlacementRule::DynamicReject, ""};
    }
    llvm_unreachable("all dynamic rules handled");
  }
  if (*Size > P.MaxStackAlloca)
    return {AllocaDecision::Demote, PlacementRule::OverLimit, P.Pool};
  return {AllocaDecision::Keep, PlacementRule::WithinLimit, ""};
}

std::string limitText(const StackPolicy &P) {
  return "limit " + std::to_string(P.MaxStackAlloca) + " bytes (" + P.Source +
         ")";
}

std::string budgetText(const StackPolicy &P) {
  return "frame budget " + std::to_string(P.FrameBudget.value_or(0)) +
         " bytes (" + P.FrameBudgetSource + ")";
}

// A remark naming every setting's layer and file ran to 400 characters and
// named the policy file twice; the values alone are the concise default.
static cl::opt<bool> RemarkSources(
    "scope-alloc-remark-sources", cl::cat(optionCategory()),
    cl::desc("Remarks name where each setting they cite came from (policy "
             "file and target, option, attribute): the full text"));

std::string sourceInReason(const std::string &Source) {
  return RemarkSources && !Source.empty() ? " (" + Source + ")" : "";
}

std::string limitInReason(const StackPolicy &P) {
  return "limit " + std::to_string(P.MaxStackAlloca) + " bytes" +
         sourceInReason(P.Source);
}

std::string budgetInReason(const StackPolicy &P) {
  return "frame budget " + std::to_string(P.FrameBudget.value_or(0)) +
         " bytes" + sourceInReason(P.FrameBudgetSource);
}

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

std::string whyPinned(const AllocaInst &AI, const DataLayout &DL,
                      const StackPolicy *P) {
  if (AI.isUsedWithInAlloca())
    return "inalloca argument memory is part of the call sequence";
  if (AI.isSwiftError())
    return "swifterror slots must stay on the stack";
  unsigned AS = AI.getAddressSpace();
  if (AS != 0 && !(P && P->scopeOfAddressSpace(AS)))
    return "it is in address space " + std::to_string(AS) +
           ", the workspace pools are in address space 0 (give the address "
           "space a scope to move it: -scope-alloc-address-space-scopes=" +
           std::to_string(AS) + ":<scope>)";
  if (std::optional<TypeSize> TS = getAllocationSize(AI, DL);
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

Expected<Scope> allocaScope(const AllocaInst &AI, const StackPolicy &P) {
  Expected<Scope> S = readScope(AI);
  if (!S || S->Kind != Scope::Unspecified || AI.getAddressSpace() == 0)
    return S;
  if (const std::string *Spelling = P.scopeOfAddressSpace(AI.getAddressSpace()))
    return parseScopeSpelling(*Spelling); // checked when the policy was read
  return S;
}

uint64_t stackBytesKept(const Function &F, const StackPolicy &P) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  uint64_t Bytes = 0;
  for (const Instruction &I : instructions(F)) {
    auto *AI = dyn_cast<AllocaInst>(&I);
    if (!AI || !AI->isStaticAlloca())
      continue;
    std::optional<TypeSize> TS = getAllocationSize(*AI, DL);
    if (!TS || TS->isScalable())
      continue;
    Scope S;
    if (Expected<Scope> Read = allocaScope(*AI, P))
      S = std::move(*Read);
    else
      consumeError(Read.takeError()); // scope-alloc reports it
    uint64_t Size = TS->getFixedValue();
    bool Stays = !whyPinned(*AI, DL, &P).empty() ||
                 placeBuffer(S, Size, P).Action == AllocaDecision::Keep;
    if (Stays)
      Bytes += Size;
  }
  LLVM_DEBUG(dbgs() << F.getName() << ": " << Bytes
                    << " bytes of allocas stay on the stack\n");
  return Bytes;
}

#ifndef NDEBUG
static void traceDecision(const AllocaDecision &D) {
  static const char *const Actions[] = {"keep", "demote", "pinned", "rejected"};
  dbgs() << D.Alloca->getFunction()->getName() << ": "
         << describeValue(*D.Alloca) << " -> " << Actions[D.Action];
  if (D.Action == AllocaDecision::Demote)
    dbgs() << " to '" << (D.Pool.empty() ? DefaultPoolName : D.Pool) << "'";
  dbgs() << " [" << ruleName(D.Rule.Id) << "]\n";
}
#endif

FunctionPlanner::FunctionPlanner(Function &F, const StackPolicy &Policy)
    : F(F), DL(F.getParent()->getDataLayout()), Policy(Policy) {}

bool FunctionPlanner::plan() {
  bool OK = true;
  for (Instruction &I : instructions(F)) {
    if (!isa<AllocaInst>(I) && !isa<CallBase>(I))
      continue;
    auto *AI = dyn_cast<AllocaInst>(&I);
    Expected<Scope> S = AI ? allocaScope(*AI, Policy) : readScope(I);
    if (!S) {
      reportError(F, &I,
                  "malformed !scope metadata on '" + describeValue(I) +
                      "': " + toString(S.takeError()));
      OK = false;
      continue;
    }
    if (AI)
      Decisions.push_back({AI, std::move(*S)});
  }
  if (!OK)
    return false;
  for (AllocaDecision &D : Decisions) {
    decide(D);
    unsigned AS = D.Alloca->getAddressSpace();
    if (AS && D.Action != AllocaDecision::Pinned &&
        !D.Alloca->getMetadata(ScopeMetadataName))
      D.Reason += "; scope of address space " + std::to_string(AS) +
                  sourceInReason(Policy.AddressSpaceScopesSource);
  }
  if (any_of(Decisions, [](const AllocaDecision &D) {
        return D.Action == AllocaDecision::Rejected;
      }))
    return false;
  if (!applyFrameBudget())
    return false;
  keepStackRestoreConsistent();
  for (AllocaDecision &D : Decisions)
    if (D.Action == AllocaDecision::Demote && isReservedPoolName(D.Pool)) {
      reportError(F, D.Alloca,
                  "'" + describeValue(*D.Alloca) + "' would move to pool '" +
                      D.Pool + "', whose symbol " + poolSymbolName(D.Pool) +
                      " is a function of the runtime: rename the pool");
      OK = false;
    }
  if (!OK)
    return false;
  bool StackRestoreFrees = stackSaveMayMoveToArena();
  bool NamedPoolsFollow = namedPoolsFollowStackRestore(F);
  for (AllocaDecision &D : Decisions)
    if (D.Action == AllocaDecision::Demote && !D.Alloca->isStaticAlloca() &&
        !(D.Pool.empty() ? StackRestoreFrees : NamedPoolsFollow))
      D.Reason += "; its memory is released when the function returns, not "
                  "at llvm.stackrestore";
  LLVM_DEBUG(for (const AllocaDecision &D : Decisions) traceDecision(D));
  return true;
}

void FunctionPlanner::decide(AllocaDecision &D) {
  AllocaInst &AI = *D.Alloca;
  const StackPolicy &BP = bufferPolicy(AI);
  if (std::optional<TypeSize> TS = getAllocationSize(AI, DL);
      TS && !TS->isScalable())
    D.Size = TS->getFixedValue();

  if (std::string Why = whyPinned(AI, DL, &BP); !Why.empty()) {
    D.Action = AllocaDecision::Pinned;
    D.Reason = Why;
    D.Rule = PlacementRule::CannotMove;
    if (D.S.requiresPool())
      reportWarning(F, &AI,
                    "'" + describeValue(AI) + "' has scope " + D.S.describe() +
                        " but stays on the stack: " + Why);
    return;
  }
  BufferVerdict V = placeBuffer(D.S, D.Size, BP);
  D.Action = V.Action;
  D.Rule = V.Rule;
  D.Pool = V.Pool;
  std::string PoolNote =
      BP.Pool.empty() || !RemarkSources ? "" : "; pool from " + BP.PoolSource;
  std::string DynamicText = "dynamic allocations: " + spell(BP.Dynamic).str() +
                            " (" + BP.DynamicSource + ")";
  std::string DynamicReason =
      "dynamic allocations: " + spell(BP.Dynamic).str() +
      sourceInReason(BP.DynamicSource);
  switch (V.Rule) {
  case PlacementRule::ScopeStack:
    D.Reason = "scope " + D.S.describe() + " requires the stack";
    if (D.Size && *D.Size > BP.MaxStackAlloca) {
      D.Reason += ", although its " + std::to_string(*D.Size) +
                  " bytes exceed the " + limitInReason(BP);
      reportWarning(F, &AI,
                    "'" + describeValue(AI) + "' (" + std::to_string(*D.Size) +
                        " bytes) stays on the stack because of scope " +
                        D.S.describe() + ", but exceeds the " + limitText(BP));
    }
    return;
  case PlacementRule::ScopePool:
    D.Reason = "scope " + D.S.describe() + " requires pool '" +
               D.S.poolName().str() + "'";
    return;
  case PlacementRule::DynamicSize:
    D.Reason =
        "its size is only known at run time; " + DynamicReason + PoolNote;
    return;
  case PlacementRule::DynamicKeep:
    D.Reason = "its size is only known at run time; " + DynamicReason;
    return;
  case PlacementRule::DynamicReject:
    reportError(F, &AI,
                "'" + describeValue(AI) +
                    "' is a dynamically sized allocation, which the "
                    "policy rejects: " +
                    DynamicText);
    return;
  case PlacementRule::OverLimit:
    D.Reason = std::to_string(*D.Size) + " bytes exceed the " +
               limitInReason(BP) + PoolNote;
    return;
  case PlacementRule::WithinLimit:
    D.Reason =
        std::to_string(*D.Size) + " bytes are within the " + limitInReason(BP);
    return;
  case PlacementRule::CannotMove:
  case PlacementRule::OverBudget:
  case PlacementRule::WithDynamic:
  case PlacementRule::FitStackBound:
    break;
  }
  llvm_unreachable("placeBuffer gives per-buffer rules only");
}

const StackPolicy &FunctionPlanner::bufferPolicy(const AllocaInst &AI) {
  const MDNode *Recorded = AI.getMetadata(BufferPolicyMetadata);
  if (!Recorded)
    return Policy;
  auto It = RecordedPolicies.find(Recorded);
  if (It == RecordedPolicies.end()) {
    std::optional<StackPolicy> P = recordedBufferPolicy(AI, Policy);
    // The function's own settings, unless the buffer came from a function
    // with others (inlined across files at the link).
    bool Same = !P || (P->MaxStackAlloca == Policy.MaxStackAlloca &&
                       P->Dynamic == Policy.Dynamic && P->Pool == Policy.Pool);
    It =
        RecordedPolicies.emplace(Recorded, Same ? Policy : std::move(*P)).first;
  }
  return It->second;
}

// The frame budget bounds what the allocations that stay add up to. Those
// that must stay (scope, cannot move) count first; chooseWithinBudget
// (FrameBudget.h) ranks the others.
bool FunctionPlanner::applyFrameBudget() {
  if (!Policy.FrameBudget)
    return true;
  uint64_t Budget = *Policy.FrameBudget;
  std::string BudgetText = budgetText(Policy);
  std::string BudgetReason = budgetInReason(Policy);
  uint64_t Used = 0;
  SmallVector<AllocaDecision *, 8> Optional;
  bool OK = true;
  for (AllocaDecision &D : Decisions) {
    if (!D.Size || !D.Alloca->isStaticAlloca() ||
        D.Action == AllocaDecision::Demote)
      continue;
    if (D.Action == AllocaDecision::Keep &&
        D.Rule == PlacementRule::WithinLimit) {
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
      D->Reason += "; fits the " + BudgetReason;
      continue;
    }
    D->Action = AllocaDecision::Demote;
    D->Pool = Policy.Pool;
    D->Rule = PlacementRule::OverBudget;
    D->Reason = std::to_string(*D->Size) + " bytes are within the " +
                limitInReason(Policy) + ", but the " + BudgetReason +
                " is spent on " +
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
      D.Rule = PlacementRule::WithDynamic;
      D.Reason += "; moved anyway with the function's other dynamic "
                  "allocations, so that llvm.stackrestore frees them together";
    }
}

bool FunctionPlanner::stackSaveMayMoveToArena() const {
  return none_of(Decisions, [](const AllocaDecision &D) {
    return D.Action != AllocaDecision::Demote && !D.Alloca->isStaticAlloca();
  });
}

} // namespace scopealloc
