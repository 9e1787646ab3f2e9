//===- WorkspacePromotion.cpp - Workspace calls back to the stack ---------===//
//
// Promotes, per function:
//   (a) TVM: %p = TVMBackendAllocWorkspace(1 /*kDLCPU*/, dev, N, code, bits)
//       freed by TVMBackendFreeWorkspace(1, dev, %p) exactly once on every
//       path to a return, called directly (a system library, the `c`
//       target) or through the slots @__TVMBackendAllocWorkspace and
//       @__TVMBackendFreeWorkspace (every other TVM module), and the
//       allocators a policy declares;
//   (b) ours: %p = __scopealloc_alloc(N, A) after a %m = __scopealloc_mark()
//       that dominates it, with __scopealloc_release(%m) (or a release of an
//       earlier mark) on every path to a return;
// to `alloca [N x i8]` in the entry block, with lifetime.start where the call
// was and lifetime.end where the memory was released. A path on which %p was
// found to be null (TVM's `if (p == NULL) return -1;`) needs no release.
//
//===----------------------------------------------------------------------===//
#include "transform/WorkspacePromotion.h"
#include "LLVMCompat.h"
#include "Scope.h"
#include "placement/FrameBudget.h"
#include "placement/Placement.h"
#include "policy/BufferHome.h"
#include "policy/StackPolicy.h"
#include "support/Diagnostics.h"
#include "support/ValueNames.h"
#include "transform/RuntimeABI.h"
#include "transform/WorkspaceAllocators.h"

#include "scopealloc/abi_constants.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

#include <optional>
#include <set>
#include <string>

#define DEBUG_TYPE "scope-alloc"

using namespace llvm;

namespace scopealloc {

namespace {

constexpr const char *ABIMark = SCOPEALLOC_SYM_MARK;
constexpr const char *ABIAlloc = SCOPEALLOC_SYM_ALLOC;
constexpr const char *ABIRelease = SCOPEALLOC_SYM_RELEASE;

StringRef calleeName(const CallBase &CB) {
  const Function *Callee = CB.getCalledFunction();
  return Callee ? Callee->getName() : StringRef();
}

bool calls(const Instruction &I, StringRef Name) {
  auto *CB = dyn_cast<CallBase>(&I);
  return CB && calleeName(*CB) == Name;
}

struct Candidate {
  CallInst *Alloc = nullptr;
  /// The allocator it calls (WorkspaceAllocators.h); null for our ABI.
  const AllocatorSpec *Spec = nullptr;
  Scope S;
  uint64_t Size = 0;
  /// The placement rule that lets it on the stack (scope-stack or
  /// within-limit) once its size is known.
  PlacementRule Rule = PlacementRule::WithinLimit;
  /// Its scope names a pool: it becomes an alloca with that scope, which
  /// scope-alloc then places in the pool (not on the stack).
  bool ToPool = false;
  Align Alignment;
  /// Where the memory is released: the allocator's frees of %p, or
  /// releases of marks taken before the allocation.
  SmallVector<CallInst *, 4> Releases;
  std::string Reason; ///< why it is (not) promoted, for the remark
  /// The rule the remark names, where one of promotion's own decided.
  std::string RuleName;
};

/// The successor index of \p T on which \p P is null, when \p T branches on
/// `icmp eq/ne %p, null`.
std::optional<unsigned> nullSuccessor(const Instruction *T, const Value *P) {
  auto *Br = dyn_cast<BranchInst>(T);
  if (!Br || !Br->isConditional())
    return std::nullopt;
  auto *Cmp = dyn_cast<ICmpInst>(Br->getCondition());
  if (!Cmp || !Cmp->isEquality())
    return std::nullopt;
  Value *L = Cmp->getOperand(0)->stripPointerCasts();
  Value *R = Cmp->getOperand(1)->stripPointerCasts();
  if (R == P)
    std::swap(L, R);
  if (L != P || !isa<ConstantPointerNull>(R))
    return std::nullopt;
  return Cmp->getPredicate() == ICmpInst::ICMP_EQ ? 0u : 1u;
}

struct WalkOutcome {
  bool ReachesExit = false;  ///< a path returns without meeting a stop
  bool ReachesAgain = false; ///< a path meets the allocation again first
  bool ReachesStop = false;  ///< some path meets a stop
};

/// What a pointer may hold on the path being walked: the buffer the
/// allocation returned this time round, NULL, or anything else (a buffer of
/// an earlier time round, another pointer). A set of these.
enum Holds : uint8_t { HoldsBuffer = 1, HoldsNull = 2, HoldsOther = 4 };
constexpr uint8_t HoldsUnknown = HoldsBuffer | HoldsNull | HoldsOther;

/// What the phis that may carry the buffer hold on the path being walked; a
/// phi not listed may hold anything. Sorted by pointer, so that equal states
/// compare equal.
using PhiValues = std::vector<std::pair<const PHINode *, uint8_t>>;

std::optional<uint8_t> lookup(const PhiValues &Known, const PHINode *PN) {
  for (const auto &[Phi, Held] : Known)
    if (Phi == PN)
      return Held;
  return std::nullopt;
}

/// The phis through which \p Buffer flows, also through selects (Halide's
/// error-path destructors free a phi of the buffer and NULL; a double
/// buffer frees a phi of the previous time round's buffer).
SmallPtrSet<const PHINode *, 8> phisOf(const Value *Buffer) {
  SmallPtrSet<const PHINode *, 8> Phis;
  SmallPtrSet<const Value *, 8> Seen{Buffer};
  SmallVector<const Value *, 8> Work{Buffer};
  while (!Work.empty())
    for (const User *U : Work.pop_back_val()->users()) {
      if (auto *PN = dyn_cast<PHINode>(U))
        Phis.insert(PN);
      else if (!isa<SelectInst>(U) &&
               !(isa<CastInst>(U) && U->getType()->isPointerTy()))
        continue;
      if (Seen.insert(U).second)
        Work.push_back(U);
    }
  return Phis;
}

/// Where a walk starts, and so which frees it counts.
enum class WalkStart {
  /// At the allocation: every phi still holds what it got before the call,
  /// and a free counts only when it surely gets this buffer (or NULL).
  Allocation,
  /// At a release: a free counts when it may get the buffer.
  Release,
};

/// Follows every path forward from just after \p Start. A path ends at the
/// first instruction in \p Stops that releases the buffer \p Alloc returns
/// on that path, at \p Alloc itself (again), at `unreachable`, or at a
/// function exit; edges taken only when \p P is null are not followed.
/// \p ReleasedPointer gives the pointer a stop releases (null: it always
/// counts); one that is a phi or select of the buffer and other values
/// counts on the paths on which it got the buffer (\p From says how sure).
WalkOutcome
walkFrom(Instruction *Start, WalkStart From,
         const SmallPtrSetImpl<const Instruction *> &Stops,
         const Instruction *Alloc, const Value *P,
         function_ref<const Value *(const Instruction &)> ReleasedPointer) {
  const Value *Buffer = Alloc;
  WalkOutcome O;
  SmallPtrSet<const PHINode *, 8> Family = phisOf(Buffer);
  struct Item {
    BasicBlock *BB;
    PhiValues Known;
  };
  SmallVector<Item, 8> Work;
  std::set<std::pair<const BasicBlock *, PhiValues>> Seen;
  // What \p V holds on a path with \p Known.
  auto Holding = [&](const Value *V, const PhiValues &Known) {
    uint8_t Held = 0;
    SmallVector<const Value *, 4> Values{V};
    SmallPtrSet<const Value *, 8> Visited;
    while (!Values.empty()) {
      const Value *U = Values.pop_back_val()->stripPointerCasts();
      if (!Visited.insert(U).second)
        continue;
      if (U == Buffer)
        Held |= HoldsBuffer;
      else if (isa<ConstantPointerNull>(U))
        Held |= HoldsNull;
      else if (auto *PN = dyn_cast<PHINode>(U))
        Held |= Family.count(PN) ? lookup(Known, PN).value_or(HoldsUnknown)
                                 : HoldsOther;
      else if (auto *Sel = dyn_cast<SelectInst>(U))
        Values.append({Sel->getTrueValue(), Sel->getFalseValue()});
      else
        Held |= HoldsOther;
    }
    return Held;
  };
  auto Releases = [&](const Instruction &I, const PhiValues &Known) {
    const Value *A = ReleasedPointer ? ReleasedPointer(I) : nullptr;
    if (!A)
      return true;
    uint8_t Held = Holding(A, Known);
    if (From == WalkStart::Release)
      return (Held & HoldsBuffer) != 0;
    return Held & HoldsBuffer && !(Held & HoldsOther);
  };
  auto Enter = [&](BasicBlock *BB, BasicBlock *Pred, const PhiValues &Known) {
    PhiValues Next;
    for (const PHINode &PN : BB->phis())
      if (Family.count(&PN))
        Next.push_back(
            {&PN, Holding(PN.getIncomingValueForBlock(Pred), Known)});
    // Values of phis in other blocks stay what this path made them.
    for (const auto &K : Known)
      if (K.first->getParent() != BB)
        Next.push_back(K);
    llvm::sort(Next);
    Work.push_back({BB, std::move(Next)});
  };
  auto Scan = [&](BasicBlock::iterator It, BasicBlock *BB,
                  const PhiValues &Known) {
    for (; It != BB->end(); ++It) {
      if (Stops.count(&*It) && Releases(*It, Known)) {
        O.ReachesStop = true;
        return;
      }
      if (&*It == Alloc) {
        O.ReachesAgain = true;
        return;
      }
    }
    Instruction *T = BB->getTerminator();
    if (succ_empty(BB)) {
      if (!isa<UnreachableInst>(T))
        O.ReachesExit = true;
      return;
    }
    std::optional<unsigned> NullSucc = nullSuccessor(T, P);
    for (unsigned I = 0, E = T->getNumSuccessors(); I != E; ++I)
      if (!NullSucc || *NullSucc != I)
        Enter(T->getSuccessor(I), BB, Known);
  };
  // At the allocation no phi holds its result yet: a loop's phi of the
  // previous time round's buffer is another buffer (a double buffer).
  PhiValues Initial;
  if (From == WalkStart::Allocation) {
    for (const PHINode *PN : Family)
      Initial.push_back({PN, HoldsOther});
    llvm::sort(Initial);
  }
  Scan(std::next(Start->getIterator()), Start->getParent(), Initial);
  while (!Work.empty()) {
    Item I = Work.pop_back_val();
    if (Seen.insert({I.BB, I.Known}).second)
      Scan(I.BB->begin(), I.BB, I.Known);
  }
  return O;
}

class Promoter {
public:
  Promoter(Function &F, const StackPolicy &Policy)
      : F(F), Policy(Policy), DT(F) {}

  /// Fills Candidates; returns false when there is none.
  bool collect();
  /// Decides one candidate; false with Reason set when it must stay.
  bool check(Candidate &C);
  /// Withdraws the promotions that would not fit the frame budget.
  void applyFrameBudget(MutableArrayRef<bool> Promote);
  void promote(Candidate &C);
  /// Removes the marks and releases that guard nothing any more; \p Kept
  /// hears of each one kept for a call that may allocate under it.
  void dropUnusedMarks(
      function_ref<void(CallInst &Mark, const CallBase &Call)> Kept);

  SmallVector<Candidate, 4> Candidates;

private:
  bool checkAllocator(Candidate &C);
  /// The allocator \p CI calls, or null.
  const AllocatorSpec *allocatorOf(const CallInst &CI) const;
  bool checkABI(Candidate &C);
  bool checkPaths(Candidate &C);
  std::string limitText() const { return "the " + limitInReason(Policy); }
  /// "'f' calls itself" or "'f' calls 'g', which calls 'f'" when the
  /// function is in a cycle of direct calls; computed once.
  const std::optional<std::string> &recursion();

  Function &F;
  const StackPolicy &Policy;
  DominatorTree DT;
  bool HasMustTail = false;
  std::optional<std::optional<std::string>> Recursion;
};

/// The allocator \p CB calls (directly or through its slot). The policy's
/// allocators first: a policy may describe a built-in name otherwise.
const AllocatorSpec *findAllocator(const StackPolicy &Policy,
                                   const CallBase &CB) {
  for (const AllocatorSpec &A : Policy.Allocators)
    if (callsFunctionOrSlot(CB, A.Alloc, A.AllocSlot))
      return &A;
  for (const AllocatorSpec &A : builtinAllocators())
    if (callsFunctionOrSlot(CB, A.Alloc, A.AllocSlot) &&
        none_of(Policy.Allocators,
                [&](const AllocatorSpec &P) { return P.Alloc == A.Alloc; }))
      return &A;
  return nullptr;
}

const AllocatorSpec *Promoter::allocatorOf(const CallInst &CI) const {
  const AllocatorSpec *A = findAllocator(Policy, CI);
  return A && CI.arg_size() >= A->AllocArgs ? A : nullptr;
}

bool Promoter::collect() {
  for (Instruction &I : instructions(F)) {
    auto *CI = dyn_cast<CallInst>(&I);
    if (!CI)
      continue;
    if (CI->isMustTailCall())
      HasMustTail = true;
    StringRef Name = calleeName(*CI);
    const AllocatorSpec *Spec = allocatorOf(*CI);
    bool IsABI = Name == ABIAlloc && CI->arg_size() == 2;
    if ((!Spec && !IsABI) || !CI->getType()->isPointerTy())
      continue;
    Expected<Scope> S = readScope(*CI);
    if (!S) {
      // Reported (as an error) by the scope-alloc pass later on.
      consumeError(S.takeError());
      continue;
    }
    Candidate C;
    C.Alloc = CI;
    C.Spec = Spec;
    C.S = std::move(*S);
    Candidates.push_back(std::move(C));
  }
  return !Candidates.empty();
}

/// A constant argument that fits in 64 bits (an i128 operand may not).
std::optional<uint64_t> constantArg(const CallInst &CI, unsigned I) {
  auto *N = dyn_cast<ConstantInt>(CI.getArgOperand(I));
  if (!N || N->getValue().getActiveBits() > 64)
    return std::nullopt;
  return N->getZExtValue();
}

std::string sizeNotConstant(const CallInst &CI, unsigned I) {
  if (isa<ConstantInt>(CI.getArgOperand(I)))
    return "its size does not fit in 64 bits";
  return "its size is not a compile-time constant";
}

bool Promoter::check(Candidate &C) {
  // The call's result is replaced by an alloca: it must be a pointer of the
  // same type, and an ABI call must be the runtime's function (a module may
  // declare the name otherwise; scope-alloc reports that conflict).
  const DataLayout &DL = F.getParent()->getDataLayout();
  Type *StackPtr = PointerType::get(F.getContext(), DL.getAllocaAddrSpace());
  if (C.Alloc->getType() != StackPtr) {
    std::string Ty;
    raw_string_ostream OS(Ty);
    C.Alloc->getType()->print(OS);
    C.Reason = "it returns '" + Ty + "', not a pointer to the stack (" +
               "address space " + std::to_string(DL.getAllocaAddrSpace()) + ")";
    return false;
  }
  if (!C.Spec) {
    FunctionType *Want =
        RuntimeABI(*F.getParent()).runtimeFunctionType(ABIAlloc);
    if (C.Alloc->getFunctionType() != Want ||
        C.Alloc->getCalledFunction()->getFunctionType() != Want) {
      C.Reason = std::string(ABIAlloc) +
                 " is declared with another type than the runtime's";
      return false;
    }
  }
  // The rules of scope-alloc: promote what it would keep on the stack. A
  // code generator's buffer whose scope names a pool of the application
  // belongs in that pool, not in the generator's allocator: it becomes a
  // buffer with that scope, and scope-alloc moves it into the pool.
  if (std::optional<BufferVerdict> V = placeByScope(C.S);
      V && V->Action != AllocaDecision::Keep) {
    C.Reason = "scope " + C.S.describe() + " requires pool '" +
               C.S.poolName().str() + "'";
    if (!C.Spec || C.S.poolName() == DefaultPoolName)
      return false;
    C.ToPool = true;
    C.Rule = PlacementRule::ScopePool;
  }
  if (!(C.Spec ? checkAllocator(C) : checkABI(C)))
    return false;
  if (!C.ToPool) {
    BufferVerdict V = placeBuffer(C.S, C.Size, Policy);
    C.Rule = V.Rule;
    if (V.Action != AllocaDecision::Keep) {
      C.Reason = std::to_string(C.Size) + " bytes exceed " + limitText();
      return false;
    }
  }
  if (HasMustTail) {
    C.Reason = "the function makes a musttail call";
    return false;
  }
  // A recursive function's buffer is on the stack once per level: a depth
  // that the heap absorbed overflows the stack. Only a scope that requires
  // the stack keeps it there (the code generator asked for that).
  if (!C.ToPool)
    if (const std::optional<std::string> &Cycle = recursion()) {
      if (C.Rule != PlacementRule::ScopeStack) {
        C.Reason = "the function is recursive (" + *Cycle +
                   "): " + std::to_string(C.Size) +
                   " bytes on the stack at every level of the recursion";
        C.RuleName = "recursive";
        return false;
      }
    }
  if (!checkPaths(C))
    return false;
  if (C.ToPool)
    C.Reason = "scope " + C.S.describe() + " requires pool '" +
               C.S.poolName().str() + "': " + std::to_string(C.Size) +
               " bytes become a buffer of that pool";
  else if (C.Rule == PlacementRule::ScopeStack) {
    C.Reason = "scope " + C.S.describe() + " requires the stack (" +
               std::to_string(C.Size) + " bytes, " + limitText() + ")";
    if (const std::optional<std::string> &Cycle = recursion()) {
      C.Reason += ", at every level of the recursion (" + *Cycle + ")";
      C.RuleName = ruleName(PlacementRule::ScopeStack).str();
    }
  } else
    C.Reason = std::to_string(C.Size) + " bytes within " + limitText();
  return true;
}

// Promote only what fits the frame budget together with what stays on the
// stack: the allocas the rules keep, and buffers whose scope requires the
// stack; the others in scope-alloc's order of benefit. Otherwise scope-alloc
// would move a promoted buffer back to the workspace.
void Promoter::applyFrameBudget(MutableArrayRef<bool> Promote) {
  if (!Policy.FrameBudget)
    return;
  uint64_t Used = stackBytesKept(F, Policy);
  LLVM_DEBUG(dbgs() << "promotion in " << F.getName() << ": frame budget "
                    << *Policy.FrameBudget << " bytes, " << Used
                    << " bytes of allocas stay\n");
  SmallVector<unsigned, 4> Optional;
  SmallVector<BudgetCandidate, 4> Fitting;
  for (unsigned I = 0, E = Candidates.size(); I != E; ++I) {
    const Candidate &C = Candidates[I];
    if (!Promote[I] || C.ToPool)
      continue; // not on the stack
    if (C.Rule == PlacementRule::ScopeStack) {
      Used += C.Size; // promoted whatever the budget, as scope-alloc keeps it
      continue;
    }
    Optional.push_back(I);
    Fitting.push_back({C.Alloc, C.Size});
  }
  std::string Budget = budgetInReason(Policy);
  for (const BudgetChoice &Choice :
       chooseWithinBudget(Fitting, Used, *Policy.FrameBudget)) {
    Candidate &C = Candidates[Optional[Choice.Index]];
    Used = Choice.Used;
    if (Choice.Stays) {
      C.Reason += "; fits the " + Budget;
      continue;
    }
    Promote[Optional[Choice.Index]] = false;
    C.Reason = std::to_string(C.Size) + " bytes within " + limitText() +
               ", but the " + Budget +
               " is spent on allocations that stay on the stack or gain more "
               "from it (" +
               std::to_string(Used) + " bytes kept)";
  }
}

/// Whether \p V is \p P or null on every path: a phi or select of them
/// (Halide's error-path destructors free `p` or NULL).
bool isPointerOrNull(const Value *V, const Value *P) {
  SmallVector<const Value *, 8> Work{V};
  SmallPtrSet<const Value *, 8> Seen;
  while (!Work.empty()) {
    const Value *U = Work.pop_back_val()->stripPointerCasts();
    if (!Seen.insert(U).second || U == P || isa<ConstantPointerNull>(U))
      continue;
    if (auto *Phi = dyn_cast<PHINode>(U))
      append_range(Work, Phi->incoming_values());
    else if (auto *Sel = dyn_cast<SelectInst>(U))
      Work.append({Sel->getTrueValue(), Sel->getFalseValue()});
    else
      return false;
  }
  return true;
}

bool Promoter::checkAllocator(Candidate &C) {
  const AllocatorSpec &A = *C.Spec;
  if (A.RequiredArg &&
      constantArg(*C.Alloc, A.RequiredArg->first) != A.RequiredArg->second) {
    C.Reason = A.RequiredArgWhy;
    return false;
  }
  std::optional<uint64_t> N = constantArg(*C.Alloc, A.SizeArg);
  if (!N) {
    C.Reason = sizeNotConstant(*C.Alloc, A.SizeArg);
    return false;
  }
  C.Size = *N;
  C.Alignment = Align(A.Align);
  // Its frees: Free(..., %p, ...), directly or through a phi or select of
  // %p and null. A free that may get another pointer as well cannot be
  // removed.
  Value *P = C.Alloc;
  for (Instruction &I : instructions(F)) {
    auto *CB = dyn_cast<CallBase>(&I);
    if (!CB || !callsFunctionOrSlot(*CB, A.Free, A.FreeSlot) ||
        CB->arg_size() < A.FreeArgs)
      continue;
    Value *Arg = CB->getArgOperand(A.FreeArg);
    SmallVector<const Value *, 4> Objects;
    getUnderlyingObjects(Arg, Objects);
    if (!is_contained(Objects, P))
      continue;
    if (!isPointerOrNull(Arg, P)) {
      C.Reason = "it may be released through a phi or select of other "
                 "pointers";
      return false;
    }
    auto *CI = dyn_cast<CallInst>(CB);
    if (!CI) {
      C.Reason = "it is released by an invoke";
      return false;
    }
    C.Releases.push_back(CI);
  }
  if (C.Releases.empty()) {
    C.Reason = "it is never released in this function";
    return false;
  }
  return true;
}

bool Promoter::checkABI(Candidate &C) {
  std::optional<uint64_t> N = constantArg(*C.Alloc, 0);
  if (!N) {
    C.Reason = sizeNotConstant(*C.Alloc, 0);
    return false;
  }
  std::optional<uint64_t> A = constantArg(*C.Alloc, 1);
  if (!A || !isPowerOf2_64(*A)) {
    C.Reason = "its alignment is not a constant power of two";
    return false;
  }
  if (*A > Value::MaximumAlignment) {
    C.Reason = "its alignment " + std::to_string(*A) +
               " exceeds the largest an alloca may have (" +
               std::to_string(Value::MaximumAlignment) + ")";
    return false;
  }
  C.Size = *N;
  C.Alignment = Align(*A);
  // Releasing any mark taken before the allocation frees it.
  for (Instruction &I : instructions(F)) {
    auto *CI = dyn_cast<CallInst>(&I);
    if (!CI || calleeName(*CI) != ABIRelease || CI->arg_size() != 1)
      continue;
    auto *Mark = dyn_cast<CallInst>(CI->getArgOperand(0));
    if (Mark && calleeName(*Mark) == ABIMark && DT.dominates(Mark, C.Alloc))
      C.Releases.push_back(CI);
  }
  if (C.Releases.empty()) {
    C.Reason = "it is never released in this function";
    return false;
  }
  return true;
}

/// Whether \p C's buffer may outlive the function through something else
/// than its releases: stored, returned, or passed to a call that may keep
/// it.
bool mayEscape(const Candidate &C) {
  struct Tracker : StopAtCaptureTracker {
    const Candidate &C;
    bool Escapes = false;
    explicit Tracker(const Candidate &C) : C(C) {}
    void tooManyUses() override { Escapes = true; }
    bool stopAt(const Use *U) override {
      if (is_contained(C.Releases, U->getUser()))
        return false; // a free: that is where it ends
      if (isa<ICmpInst>(U->getUser()))
        return false; // a NULL test keeps nothing alive
      Escapes = true;
      return true;
    }
  } T(C);
  // Generated kernels address a tile from many places: look at all of
  // their uses, not LLVM's default first 100.
  PointerMayBeCaptured(C.Alloc, &T, /*MaxUsesToExplore=*/1 << 16);
  return T.Escapes;
}

bool Promoter::checkPaths(Candidate &C) {
  SmallPtrSet<const Instruction *, 4> Stops(C.Releases.begin(),
                                            C.Releases.end());
  // A path on which the result is NULL is the code's error path.
  const Value *NullChecked =
      !C.Spec || C.Spec->NullIsErrorPath ? C.Alloc : nullptr;
  // The pointer an allocator's free releases (a mark release: always).
  auto ReleasedPointer = [&](const Instruction &I) -> const Value * {
    return C.Spec ? cast<CallInst>(I).getArgOperand(C.Spec->FreeArg) : nullptr;
  };
  WalkOutcome O = walkFrom(C.Alloc, WalkStart::Allocation, Stops, C.Alloc,
                           NullChecked, ReleasedPointer);
  // A path that returns without freeing an allocator's buffer leaked it
  // (Halide frees on an error path only when the error handler says so):
  // unless the buffer can escape, the stack frees it at the return instead.
  if (O.ReachesExit && (!C.Spec || mayEscape(C))) {
    C.Reason = "it is not released on every path to a return";
    return false;
  }
  if (O.ReachesAgain) {
    C.Reason = "it is in a loop and not released in the same iteration";
    return false;
  }
  // A buffer freed twice on one path is a bug we should not hide.
  // (Releasing a mark again is harmless in our ABI.)
  if (C.Spec)
    for (CallInst *R : C.Releases)
      if (walkFrom(R, WalkStart::Release, Stops, C.Alloc, NullChecked,
                   ReleasedPointer)
              .ReachesStop) {
        C.Reason = "it is released more than once on a path";
        return false;
      }
  return true;
}

void Promoter::promote(Candidate &C) {
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> EB(&Entry, Entry.getFirstInsertionPt());
  AllocaInst *AI =
      EB.CreateAlloca(ArrayType::get(EB.getInt8Ty(), C.Size), nullptr);
  AI->setAlignment(C.Alignment);
  AI->takeName(C.Alloc);
  // The late scope-alloc pass sees the same scope on the buffer.
  if (MDNode *MD = C.Alloc->getMetadata(ScopeMetadataName))
    AI->setMetadata(ScopeMetadataName, MD);
  // And keeps its function's settings if the inliner moves it.
  inheritHome(*AI);

  IRBuilder<> B(C.Alloc);
  createLifetimeStart(B, AI, C.Size);
  for (CallInst *R : C.Releases) {
    IRBuilder<> RB(R);
    createLifetimeEnd(RB, AI, C.Size);
  }
  // Loads of a slot that no call uses any more go with the calls.
  SmallVector<Value *, 4> Callees{C.Alloc->getCalledOperand()};
  C.Alloc->replaceAllUsesWith(AI);
  C.Alloc->eraseFromParent();
  if (C.Spec)
    for (CallInst *R : C.Releases) {
      // `if (TVMBackendFreeWorkspace(...) != 0) return -1;` folds away.
      if (!R->getType()->isVoidTy())
        R->replaceAllUsesWith(Constant::getNullValue(R->getType()));
      Callees.push_back(R->getCalledOperand());
      R->eraseFromParent();
    }
  for (Value *Callee : Callees)
    if (auto *Load = dyn_cast<LoadInst>(Callee->stripPointerCasts());
        Load && Load->use_empty())
      Load->eraseFromParent();
}

/// Whether \p CB may allocate from the default pool: a callee may take
/// memory under its caller's mark and leave it to the caller's release. Not
/// when it is an intrinsic that only informs the optimiser (lifetime,
/// assume, debug), touches no memory but its arguments', only reads memory,
/// or is one of the runtime's calls that do not allocate there.
bool mayAllocateFromDefaultPool(const CallBase &CB) {
  if (auto *II = dyn_cast<IntrinsicInst>(&CB);
      II && II->isAssumeLikeIntrinsic())
    return false;
  if (CB.onlyAccessesArgMemory() || CB.onlyReadsMemory())
    return false;
  StringRef Name = calleeName(CB);
  return Name != ABIMark && Name != ABIRelease &&
         Name != SCOPEALLOC_SYM_POOL_MARK &&
         Name != SCOPEALLOC_SYM_POOL_ALLOC &&
         Name != SCOPEALLOC_SYM_POOL_RELEASE;
}

/// The first call on a path from \p Mark to one of its releases that may
/// allocate from the default pool (so needs the release), or null.
const CallBase *callUnderMark(CallInst &Mark) {
  auto IsRelease = [&](const CallBase &CB) {
    return calls(CB, ABIRelease) && CB.arg_size() == 1 &&
           CB.getArgOperand(0) == &Mark;
  };
  SmallPtrSet<const BasicBlock *, 16> Visited;
  SmallVector<std::pair<BasicBlock *, BasicBlock::iterator>, 16> Work{
      {Mark.getParent(), std::next(Mark.getIterator())}};
  while (!Work.empty()) {
    auto [BB, It] = Work.pop_back_val();
    bool Released = false;
    for (; It != BB->end() && !Released; ++It) {
      auto *CB = dyn_cast<CallBase>(&*It);
      if (!CB)
        continue;
      if (IsRelease(*CB))
        Released = true;
      else if (mayAllocateFromDefaultPool(*CB))
        return CB;
    }
    if (!Released)
      for (BasicBlock *Succ : successors(BB))
        if (Visited.insert(Succ).second)
          Work.push_back({Succ, Succ->begin()});
  }
  return nullptr;
}

void Promoter::dropUnusedMarks(
    function_ref<void(CallInst &Mark, const CallBase &Call)> Kept) {
  for (Instruction &I : instructions(F))
    if (calls(I, ABIAlloc))
      return; // something still allocates from the default pool
  SmallVector<CallInst *, 4> Marks;
  for (Instruction &I : instructions(F))
    if (calls(I, ABIMark))
      Marks.push_back(cast<CallInst>(&I));
  for (CallInst *Mark : Marks) {
    if (!all_of(Mark->users(), [](const User *U) {
          auto *CI = dyn_cast<CallInst>(U);
          return CI && calleeName(*CI) == ABIRelease;
        }))
      continue;
    // A callee that allocates under the mark needs its release: without it
    // every call would leave its memory in the pool.
    if (const CallBase *Call = callUnderMark(*Mark)) {
      Kept(*Mark, *Call);
      continue;
    }
    SmallVector<Instruction *, 4> Releases;
    for (User *U : Mark->users())
      Releases.push_back(cast<Instruction>(U));
    for (Instruction *R : Releases)
      R->eraseFromParent();
    Mark->eraseFromParent();
  }
}

/// The function \p CB calls directly, when its body is in this module.
const Function *definedCallee(const CallBase &CB) {
  const Value *V = CB.getCalledOperand()->stripPointerCasts();
  if (auto *GA = dyn_cast<GlobalAlias>(V))
    V = GA->getAliaseeObject();
  auto *Callee = dyn_cast_or_null<Function>(V);
  return Callee && !Callee->isDeclaration() ? Callee : nullptr;
}

const std::optional<std::string> &Promoter::recursion() {
  if (Recursion)
    return *Recursion;
  // Breadth first over the module's direct calls: the cycle named is a
  // shortest one. Calls through pointers and into other modules are not
  // seen (docs/known-limits.md).
  DenseMap<const Function *, const Function *> CalledFrom;
  SmallVector<const Function *, 16> Queue{&F};
  const Function *Last = nullptr; // the function that calls F back
  for (size_t I = 0; I != Queue.size() && !Last; ++I)
    for (const Instruction &Inst : instructions(*Queue[I])) {
      auto *CB = dyn_cast<CallBase>(&Inst);
      const Function *Callee = CB ? definedCallee(*CB) : nullptr;
      if (!Callee)
        continue;
      if (Callee == &F) {
        Last = Queue[I];
        break;
      }
      if (CalledFrom.try_emplace(Callee, Queue[I]).second)
        Queue.push_back(Callee);
    }
  std::optional<std::string> Cycle;
  if (Last) {
    auto Quoted = [](const Function *G) {
      return "'" + readableName(G->getName()) + "'";
    };
    SmallVector<const Function *, 8> Path; // Last back to F's callee
    for (const Function *G = Last; G != &F; G = CalledFrom.lookup(G))
      Path.push_back(G);
    std::string Text = Quoted(&F);
    if (Path.empty())
      Text += " calls itself";
    for (const Function *G : reverse(Path))
      Text += (G == Path.back() ? " calls " : ", which calls ") + Quoted(G);
    if (!Path.empty())
      Text += ", which calls " + Quoted(&F);
    Cycle = std::move(Text);
  }
  Recursion = std::move(Cycle);
  return *Recursion;
}

DiagnosticLocation remarkLocation(const CallInst &CI) {
  if (const DebugLoc &DL = CI.getDebugLoc())
    return DiagnosticLocation(DL);
  return DiagnosticLocation(CI.getFunction()->getSubprogram());
}

} // namespace

const ModulePolicy &PromoteWorkspacePass::modulePolicy(const Module &M) {
  // A pass object runs over the functions of one module at a time; the
  // identifier guards against another module at a freed one's address.
  if (!Policy || PolicyModule != &M ||
      PolicyModuleID != M.getModuleIdentifier()) {
    Policy = computeModulePolicy(M, commandLineOptions(), Params);
    PolicyModule = &M;
    PolicyModuleID = M.getModuleIdentifier();
  }
  return *Policy;
}

void PromoteWorkspacePass::printPipeline(
    raw_ostream &OS, function_ref<StringRef(StringRef)> MapClassName2PassName) {
  printPassWithParameters(OS, MapClassName2PassName(name()), Params);
}

PreservedAnalyses PromoteWorkspacePass::run(Function &F,
                                            FunctionAnalysisManager &AM) {
  // Cheap test first: most functions make no workspace call.
  // The policy (its 'allocators') only when some call may be one.
  bool Any = false;
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I);
        CB && (CB->getCalledFunction() || slotOf(*CB)) &&
        CB->getType()->isPointerTy()) {
      Any = true;
      break;
    }
  if (!Any)
    return PreservedAnalyses::all();
  // The scope-alloc pass reports policy errors; this pass just skips.
  std::optional<StackPolicy> Policy = policyForFunction(
      modulePolicy(*F.getParent()), F, /*ReportErrors=*/false);
  if (!Policy || !Policy->Enabled)
    return PreservedAnalyses::all();
  Any = false;
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I);
        CB && (calleeName(*CB) == ABIAlloc || findAllocator(*Policy, *CB))) {
      Any = true;
      break;
    }
  if (!Any)
    return PreservedAnalyses::all();

  // Clang keeps `void *p = TVMBackendAllocWorkspace(...)` in a local slot
  // until SROA, so the free would see a reload, not the call. mem2reg first,
  // in the functions that make workspace calls only (not at -O0).
  bool Changed = false;
  if (!F.hasOptNone()) {
    SmallVector<AllocaInst *, 16> Slots;
    for (Instruction &I : F.getEntryBlock())
      if (auto *AI = dyn_cast<AllocaInst>(&I); AI && isAllocaPromotable(AI))
        Slots.push_back(AI);
    if (!Slots.empty()) {
      PromoteMemToReg(Slots, AM.getResult<DominatorTreeAnalysis>(F),
                      &AM.getResult<AssumptionAnalysis>(F));
      Changed = true;
    }
  }
  auto Unchanged = [&] {
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  };

  Promoter P(F, *Policy);
  if (!P.collect())
    return Unchanged();
  auto &ORE = AM.getResult<OptimizationRemarkEmitterAnalysis>(F);
  // Decide everything before rewriting anything.
  SmallVector<bool, 4> Promote;
  for (Candidate &C : P.Candidates)
    Promote.push_back(P.check(C));
  P.applyFrameBudget(Promote);

  bool Promoted = false;
  for (auto Pair : zip(P.Candidates, Promote)) {
    // Named, not bound: lambdas cannot capture structured bindings in C++17.
    auto &C = std::get<0>(Pair);
    bool Yes = std::get<1>(Pair);
    std::string Name = describeValue(*C.Alloc);
    std::string Callee = C.Spec ? C.Spec->Alloc : ABIAlloc;
    if (const GlobalVariable *Slot = slotOf(*C.Alloc))
      Callee += " through @" + Slot->getName().str();
    DiagnosticLocation Loc = remarkLocation(*C.Alloc);
    BasicBlock *BB = C.Alloc->getParent();
    auto Describe = [&](auto R) {
      R << "workspace call '" << ore::NV("Call", Name) << "' in '"
        << ore::NV("Function", readableName(F.getName())) << "' ("
        << ore::NV("Callee", Callee) << ", scope "
        << ore::NV("Scope", C.S.describe()) << ") "
        << (!Yes       ? "not promoted"
            : C.ToPool ? "moved to pool '" + C.S.poolName().str() + "'"
                       : "promoted")
        << ": " << ore::NV("Reason", C.Reason);
      if (!C.RuleName.empty())
        R << " [rule " << ore::NV("Rule", C.RuleName) << "]";
      return R;
    };
    if (Yes) {
      ORE.emit([&] {
        return Describe(OptimizationRemark(DEBUG_TYPE, "Promoted", Loc, BB));
      });
      P.promote(C);
      Promoted = true;
    } else {
      ORE.emit([&] {
        return Describe(
            OptimizationRemarkMissed(DEBUG_TYPE, "NotPromoted", Loc, BB));
      });
    }
  }
  if (!Promoted)
    return Unchanged();
  P.dropUnusedMarks([&](CallInst &Mark, const CallBase &Call) {
    ORE.emit([&] {
      StringRef Callee = calleeName(Call);
      return OptimizationRemarkMissed(DEBUG_TYPE, "MarkKept",
                                      remarkLocation(Mark), Mark.getParent())
             << "mark '" << ore::NV("Mark", describeValue(Mark)) << "' in '"
             << ore::NV("Function", readableName(F.getName()))
             << "' kept with its releases: the call to "
             << ore::NV("Callee", Callee.empty()
                                      ? std::string("a function pointer")
                                      : "'" + readableName(Callee) + "'")
             << " under it may allocate from the default pool";
    });
  });
  // `tail` promises that the callee does not touch this frame's allocas; a
  // promoted buffer may be passed on. Tail-call elimination adds it back
  // where it is still true.
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I);
        CI && CI->isTailCall() && !CI->isMustTailCall())
      CI->setTailCallKind(CallInst::TCK_None);
  return PreservedAnalyses::none();
}

} // namespace scopealloc
