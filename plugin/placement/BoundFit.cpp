//===- BoundFit.cpp - Fit entry points' stacks to the policy's bounds -----===//
#include "placement/BoundFit.h"
#include "FactsFormat.h"
#include "OptionCategory.h"
#include "TargetStack.h"
#include "facts/StackFacts.h"
#include "placement/FrameBudget.h"
#include "placement/Placement.h"
#include "policy/StackPolicy.h"
#include "scopealloc/abi_constants.h"
#include "support/Diagnostics.h"
#include "transform/RuntimeABI.h"

#include "LLVMCompat.h" // llvm/TargetParser/Triple.h
#include "llvm/ADT/GraphTraits.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#include <atomic>
#include <memory>

#define DEBUG_TYPE "scope-alloc"

using namespace llvm;

static cl::opt<bool> WholeProgramOption(
    "scope-alloc-whole-program", cl::cat(scopealloc::optionCategory()),
    cl::init(false),
    cl::desc("The module is the whole program (as at a full LTO link, where "
             "the pass knows it): fit the policy's stack bounds "
             "('stack-bound', 'entries') by moving buffers off the entry "
             "points' critical call chains"));

static cl::opt<int64_t> FrameOverheadOption(
    "scope-alloc-fit-frame-overhead", cl::Hidden,
    cl::cat(scopealloc::optionCategory()), cl::init(-1),
    cl::value_desc("bytes"),
    cl::desc("Bytes the stack-bound fit adds to every frame for the return "
             "address and saved registers (default: per target, "
             "docs/bound-fit.md)"));

static cl::opt<int64_t> RuntimeStackOption(
    "scope-alloc-fit-runtime-stack", cl::Hidden,
    cl::cat(scopealloc::optionCategory()), cl::init(-1),
    cl::value_desc("bytes"),
    cl::desc("Stack the stack-bound fit counts below a function that takes "
             "memory from a pool, for the runtime's slow path (default: "
             "scopealloc-bound's assumption on hosted targets, 256 bytes on "
             "freestanding ones, docs/bound-fit.md)"));

namespace scopealloc {

bool wholeProgramRequested() { return WholeProgramOption; }

/// Whether code generation may keep \p F's values in floating-point or
/// vector registers, and so save the callee-saved ones (d8-d15 on ARM and
/// AArch64): any floating-point or vector value in it.
static bool usesFPOrVectorRegisters(const Function &F) {
  auto FPOrVector = [](Type *T) {
    return T->isFPOrFPVectorTy() || T->isVectorTy();
  };
  for (const Argument &A : F.args())
    if (FPOrVector(A.getType()))
      return true;
  if (FPOrVector(F.getReturnType()))
    return true;
  for (const Instruction &I : instructions(F)) {
    if (FPOrVector(I.getType()))
      return true;
    for (const Value *Op : I.operands())
      if (FPOrVector(Op->getType()))
        return true;
  }
  return false;
}

uint64_t fitFrameOverhead(const Function &F) {
  if (FrameOverheadOption >= 0)
    return FrameOverheadOption;
  // What a frame holds beyond its allocas when code generation saves every
  // callee-saved register the ABI has that the function can use (spill
  // slots beyond that are not counted: scopealloc-bound --check sees them).
  const Module &M = *F.getParent();
  TargetStack S = targetStack(Triple(M.getTargetTriple()).getArch(),
                              M.getDataLayout().getPointerSize());
  return usesFPOrVectorRegisters(F) ? S.SavedFPRegisters : S.SavedRegisters;
}

namespace {

/// A function of the call graph: defined in the module, or called by name
/// and defined elsewhere (libc).
struct FitNode {
  Function *F = nullptr;
  std::string Name; ///< symbol name
  FunctionFacts Facts;
  std::vector<FitNode *> Callees;
  std::vector<std::string> Causes; ///< why its own use is unknown
  std::optional<uint64_t> Assumed; ///< elsewhere: the tool's assumed stack
  /// Elsewhere, with no assumed size: native code the link adds (start-up
  /// code, a runtime archive) whose frames only the link's check sees.
  bool OutsideBitcode = false;
  std::optional<uint64_t> OwnCache;
};

} // namespace
} // namespace scopealloc

template <> struct llvm::GraphTraits<scopealloc::FitNode *> {
  using NodeRef = scopealloc::FitNode *;
  using ChildIteratorType = std::vector<scopealloc::FitNode *>::iterator;
  static NodeRef getEntryNode(NodeRef N) { return N; }
  static ChildIteratorType child_begin(NodeRef N) { return N->Callees.begin(); }
  static ChildIteratorType child_end(NodeRef N) { return N->Callees.end(); }
};

namespace scopealloc {

BoundFit::BoundFit(Module &M) : M(M) { bound::addBuiltinAssumptions(S); }

void BoundFit::addPolicy(const ModulePolicy &MP) {
  for (const ModulePolicy::FunctionLayer &L : MP.FunctionLayers)
    if (TargetsSeen.insert(L.Target).second)
      bound::addTargetBounds(*L.Target, L.File->Path, S);
}

bool BoundFit::hasStackBound() const {
  return S.StackBound || !S.EntryBounds.empty();
}

void BoundFit::addPlan(Function &F, const StackPolicy &P,
                       MutableArrayRef<AllocaDecision> Decisions) {
  Plans[&F] = {&P, Decisions};
}

void BoundFit::warnNotWholeProgram() const {
  static std::atomic<bool> Warned{false};
  if (Warned.exchange(true))
    return;
  const bound::Limit &L =
      S.StackBound ? *S.StackBound : S.EntryBounds.begin()->second;
  M.getContext().diagnose(ScopeAllocDiagnostic(
      DS_Warning, nullptr, nullptr,
      "the stack bound " + std::to_string(L.Bytes) + " bytes (" + L.From +
          ") is not fitted under ThinLTO, where each backend sees one "
          "module and not the whole program: link with full LTO (-flto) to "
          "move buffers until it fits, or rebuild with the per-function "
          "limits of scopealloc-bound --suggest-policy (the link's "
          "scopealloc-bound --check still enforces it)"));
}

namespace {

/// The stack's natural alignment, 16 when the data layout does not say.
static Align stackAlignment(const DataLayout &DL) {
  for (Align A : {Align(16), Align(8), Align(4), Align(2)})
    if (!DL.exceedsNaturalStackAlignment(A))
      return A;
  return Align(1);
}

/// One step of a critical chain.
struct Link {
  FitNode *N;
  uint64_t Own;        ///< its frame estimate
  uint64_t Repeat = 1; ///< a cycle's declared depth
};

struct Estimate {
  uint64_t Bytes = 0;
  bool Bounded = true;
  std::vector<Link> Chain;
  std::vector<std::string> Causes;
  /// Reached functions outside the bitcode without an assumed size, counted
  /// as 0: Bytes is then a lower bound, and every move it asks for is one
  /// the whole program needs too.
  std::vector<std::string> Outside;
};

class Fitter {
public:
  Fitter(Module &M, const bound::Settings &S,
         const DenseMap<const Function *, BoundFit::Plan> &Plans)
      : M(M), S(S), Plans(Plans),
        PointerSize(M.getDataLayout().getPointerSize()),
        CallOverhead(
            targetStack(Triple(M.getTargetTriple()).getArch(), PointerSize)
                .CallOverhead),
        StackAlign(stackAlignment(M.getDataLayout())) {}

  void run() {
    build();
    for (auto &[N, Kind] : entries())
      fit(*N, Kind);
  }

private:
  FitNode &node(std::string Name) {
    auto [It, New] = BySymbol.try_emplace(Name, nullptr);
    if (New) {
      Nodes.push_back(std::make_unique<FitNode>());
      Nodes.back()->Name = std::move(Name);
      It->second = Nodes.back().get();
    }
    return *It->second;
  }

  /// The call graph of the module, with the rules of scopealloc-bound
  /// (tools/scopealloc-bound/CallGraph.h) over the facts the records hold.
  void build() {
    for (Function &F : M) {
      if (F.isDeclaration())
        continue;
      FunctionFacts Facts = collectFacts(F);
      FitNode &N = node(Facts.Name);
      N.F = &F;
      N.Facts = std::move(Facts);
      ByIRName[F.getName()] = &N;
    }
    StringMap<std::vector<FitNode *>> ByType;
    for (auto &N : Nodes)
      if (N->F && (N->Facts.Flags & facts::FlagAddressTaken))
        ByType[N->Facts.Type].push_back(N.get());
    std::vector<FitNode *> Defined;
    for (auto &N : Nodes)
      Defined.push_back(N.get());
    for (FitNode *N : Defined) {
      for (const FunctionFacts::SymbolUse &C : N->Facts.Calls) {
        auto It = BySymbol.find(C.Name);
        if (It == BySymbol.end() && (C.Flags & facts::CallWeak))
          continue; // may be absent; defined, it would be in the module
        addCallee(*N, callee(C.Name, *N));
      }
      for (const auto &[Type, Sites] : N->Facts.IndirectCalls) {
        auto It = ByType.find(Type);
        if (It == ByType.end()) {
          N->Causes.push_back("an indirect call of type '" + Type + "' in '" +
                              N->Name +
                              "' that no address-taken function matches");
          continue;
        }
        for (FitNode *Callee : It->second)
          addCallee(*N, *Callee);
      }
      // A function a library call runs before it returns (a qsort
      // comparator) runs below that call, as scopealloc-bound counts it.
      for (const FunctionFacts::SymbolUse &Ref : N->Facts.Refs) {
        FitNode *Run = (Ref.Flags & facts::RefCallback)
                           ? BySymbol.lookup(Ref.Name)
                           : nullptr;
        if (!Run || !Run->F)
          continue;
        for (const FunctionFacts::SymbolUse &C : N->Facts.Calls)
          if (facts::runsCallbackBeforeReturning(C.Name))
            if (FitNode *Library = BySymbol.lookup(C.Name))
              addCallee(*Library, *Run);
      }
      if (auto It = Plans.find(N->F); It != Plans.end())
        for (const AllocaDecision &D : It->second.Decisions)
          if (D.Action == AllocaDecision::Demote)
            addCallee(*N, runtime(D.Pool, *N));
      for (AllocaInst *AI : stackAllocas(*N->F, /*Static=*/false))
        N->Causes.push_back("the dynamic allocation '" + describeValue(*AI) +
                            "' on the stack of '" + N->Name + "'");
    }
  }

  /// The node of \p Name, called from \p Caller; code outside the bitcode
  /// has the size scopealloc-bound's table assumes, or no bound.
  FitNode &callee(StringRef Name, const FitNode &Caller) {
    FitNode &Callee = node(Name.str());
    if (!Callee.F && !Callee.Assumed && Callee.Causes.empty()) {
      // The table's sizes of the runtime's API are the hosted runtime's; a
      // freestanding runtime carries facts, which the link's check counts.
      bool FreestandingRuntime =
          Name.starts_with("scopealloc_") &&
          Triple(M.getTargetTriple()).getOS() == Triple::UnknownOS;
      if (auto A = S.Assumed.find(Name);
          A != S.Assumed.end() && !FreestandingRuntime)
        Callee.Assumed = A->second;
      else
        Callee.OutsideBitcode = true;
    }
    return Callee;
  }

  /// The runtime function a frame that takes memory from \p Pool calls
  /// when the fast path does not serve it (RuntimeABI.h): its stack counts
  /// below every function that demotes, as scopealloc-bound counts it.
  FitNode &runtime(StringRef Pool, const FitNode &Caller) {
    StringRef Name = !Pool.empty() ? SCOPEALLOC_SYM_POOL_ALLOC
                     : RuntimeABI::canInlineDefaultPool(*Caller.F)
                         ? SCOPEALLOC_SYM_FRAME_SLOW
                         : SCOPEALLOC_SYM_ALLOC;
    FitNode &N = callee(Name, Caller);
    if (!N.F) {
      // The hosted runtime has no facts in the image: scopealloc-bound
      // assumes its table's size; a freestanding one carries facts, with
      // small frames.
      Triple T(M.getTargetTriple());
      if (RuntimeStackOption >= 0)
        N.Assumed = RuntimeStackOption;
      else if (T.getOS() == Triple::UnknownOS)
        N.Assumed = targetStack(T.getArch(), PointerSize).FreestandingRuntime;
      if (N.Assumed)
        N.Causes.clear();
    }
    return N;
  }

  static void addCallee(FitNode &N, FitNode &Callee) {
    if (!is_contained(N.Callees, &Callee))
      N.Callees.push_back(&Callee);
  }

  /// The allocas of \p F that stay on the stack: static ones with a
  /// compile-time size, or the dynamic ones.
  SmallVector<AllocaInst *, 8> stackAllocas(Function &F, bool Static) const {
    SmallVector<AllocaInst *, 8> Out;
    auto Wanted = [&](AllocaInst *AI) {
      return AI->isStaticAlloca() == Static;
    };
    if (auto It = Plans.find(&F); It != Plans.end()) {
      for (const AllocaDecision &D : It->second.Decisions)
        if (D.Action != AllocaDecision::Demote && Wanted(D.Alloca))
          Out.push_back(D.Alloca);
      return Out;
    }
    for (Instruction &I : instructions(F))
      if (auto *AI = dyn_cast<AllocaInst>(&I); AI && Wanted(AI))
        Out.push_back(AI);
    return Out;
  }

  /// The frame estimate of one function.
  uint64_t own(FitNode &N) {
    if (!N.F) // the table's size covers its callees; on x86 the call
              // pushes the return address (elsewhere it is in a register,
              // and the callee's frame saves it), as scopealloc-bound counts
      return N.Assumed.value_or(0) + CallOverhead;
    if (N.OwnCache)
      return *N.OwnCache;
    const DataLayout &DL = M.getDataLayout();
    uint64_t Bytes = 0;
    for (AllocaInst *AI : stackAllocas(*N.F, /*Static=*/true)) {
      std::optional<TypeSize> TS = getAllocationSize(*AI, DL);
      if (!TS || TS->isScalable())
        continue;
      Bytes = alignTo(Bytes, AI->getAlign()) + TS->getFixedValue();
    }
    N.OwnCache = alignTo(Bytes + fitFrameOverhead(*N.F), StackAlign);
    return *N.OwnCache;
  }

  /// The declared depth of a cycle: the smallest of its members' (the
  /// policy's over the source's), as scopealloc-bound counts it.
  std::optional<uint64_t> depth(const std::vector<FitNode *> &Members) const {
    std::optional<uint64_t> Depth;
    for (FitNode *N : Members) {
      std::optional<uint64_t> D;
      if (auto It = S.RecursionDepth.find(N->Name);
          It != S.RecursionDepth.end())
        D = It->second;
      else if (N->Facts.RecursionBound)
        D = N->Facts.RecursionBound;
      if (D && (!Depth || *D < *Depth))
        Depth = D;
    }
    return Depth;
  }

  /// The longest path from \p Entry, components callees first.
  Estimate estimate(FitNode &Entry) {
    struct Component {
      uint64_t Bytes = 0;
      bool Unbounded = false;
      Link Step{nullptr, 0};
      int Next = -1;
    };
    std::vector<Component> Comps;
    DenseMap<FitNode *, unsigned> CompOf;
    Estimate E;
    for (scc_iterator<FitNode *> I = scc_begin(&Entry); !I.isAtEnd(); ++I) {
      const std::vector<FitNode *> &Members = *I;
      unsigned C = Comps.size();
      for (FitNode *N : Members)
        CompOf[N] = C;
      Component V;
      V.Step = {Members.front(), own(*Members.front())};
      for (FitNode *N : Members) {
        if (uint64_t Own = own(*N); Own > V.Step.Own)
          V.Step = {N, Own};
        if (!N->Causes.empty()) {
          V.Unbounded = true;
          append_range(E.Causes, N->Causes);
        }
        if (N->OutsideBitcode && !N->Assumed &&
            !is_contained(E.Outside, N->Name))
          E.Outside.push_back(N->Name);
      }
      uint64_t Exit = 0;
      for (FitNode *N : Members)
        for (FitNode *Callee : N->Callees) {
          unsigned D = CompOf.lookup(Callee);
          if (D == C)
            continue;
          V.Unbounded |= Comps[D].Unbounded;
          if (V.Next < 0 || Comps[D].Bytes > Exit) {
            Exit = Comps[D].Bytes;
            V.Next = D;
          }
        }
      if (I.hasCycle()) {
        if (std::optional<uint64_t> Depth = depth(Members)) {
          V.Step.Repeat = *Depth;
        } else {
          V.Unbounded = true;
          std::string Cycle;
          for (FitNode *N : Members)
            Cycle += N->Name + " -> ";
          E.Causes.push_back("the call cycle " + Cycle + Members.front()->Name +
                             " without a recursion bound (policy key "
                             "'recursion', or SCOPEALLOC_RECURSION_BOUND)");
        }
      }
      // Past 2^64 - 1 bytes (a huge depth) is no bound.
      bool OverMul = false, OverAdd = false;
      V.Bytes =
          SaturatingAdd(SaturatingMultiply(V.Step.Own, V.Step.Repeat, &OverMul),
                        Exit, &OverAdd);
      if (OverMul || (OverAdd && Exit != UINT64_MAX)) {
        V.Unbounded = true;
        E.Causes.push_back("a worst case past 2^64 - 1 bytes in '" +
                           V.Step.N->Name + "' (" + std::to_string(V.Step.Own) +
                           " bytes x" + std::to_string(V.Step.Repeat) + ")");
      }
      Comps.push_back(V);
    }
    unsigned Root = CompOf.lookup(&Entry);
    E.Bytes = Comps[Root].Bytes;
    E.Bounded = !Comps[Root].Unbounded;
    for (int At = Root; At >= 0; At = Comps[At].Next)
      E.Chain.push_back(Comps[At].Step);
    return E;
  }

  static std::string chainText(const Estimate &E) {
    std::string Text;
    for (const Link &L : E.Chain) {
      if (!Text.empty())
        Text += " -> ";
      Text += L.N->Name + " (" + std::to_string(L.Own) + " bytes";
      if (L.Repeat > 1)
        Text += " x" + std::to_string(L.Repeat);
      Text += L.N->F ? ")" : ", assumed)";
    }
    return Text;
  }

  /// The entry points: main, functions marked in the source, the policy's
  /// 'entries', thread start routines, signal and exit handlers and
  /// *_Handler functions, as scopealloc-bound finds them (its vector-table
  /// entries need the image).
  std::vector<std::pair<FitNode *, std::string>> entries() {
    std::vector<std::pair<FitNode *, std::string>> Out;
    auto Add = [&](FitNode *N, StringRef Kind) {
      if (N && N->F && none_of(Out, [&](auto &E) { return E.first == N; }))
        Out.push_back({N, Kind.str()});
    };
    Add(ByIRName.lookup("main"), "main");
    for (auto &N : Nodes)
      if (N->F && (N->Facts.Flags & facts::FlagEntry))
        Add(N.get(), "marked entry");
    for (const std::string &Name : S.Entries)
      Add(BySymbol.count(Name) ? BySymbol.lookup(Name) : ByIRName.lookup(Name),
          "policy entry");
    for (auto &N : Nodes)
      for (const FunctionFacts::SymbolUse &Ref : N->Facts.Refs)
        if (Ref.Flags & facts::RefThreadStart)
          Add(BySymbol.lookup(Ref.Name), "thread start");
        else if (Ref.Flags & facts::RefSignalHandler)
          Add(BySymbol.lookup(Ref.Name), "signal handler");
        else if (Ref.Flags & facts::RefExitHandler)
          Add(BySymbol.lookup(Ref.Name), "exit handler");
    for (auto &N : Nodes)
      if (StringRef(N->Name).ends_with("_Handler"))
        Add(N.get(), "interrupt handler (by name)");
    return Out;
  }

  const bound::Limit *boundOf(const FitNode &N) const {
    for (StringRef Name : {StringRef(N.Name), N.F->getName()})
      if (auto It = S.EntryBounds.find(Name.str()); It != S.EntryBounds.end())
        return &It->second;
    return S.StackBound ? &*S.StackBound : nullptr;
  }

  void warn(const Twine &Message) {
    M.getContext().diagnose(
        ScopeAllocDiagnostic(DS_Warning, nullptr, nullptr, Message));
  }

  void fit(FitNode &Entry, StringRef Kind) {
    const bound::Limit *Bound = boundOf(Entry);
    if (!Bound)
      return;
    std::string BoundText =
        std::to_string(Bound->Bytes) + " bytes (" + Bound->From + ")";
    std::string EntryText = "entry '" + Entry.Name + "' (" + Kind.str() + ")";
    unsigned Moved = 0;
    for (;;) {
      Estimate E = estimate(Entry);
      LLVM_DEBUG(dbgs() << "fit: " << EntryText << ": " << E.Bytes
                        << " bytes, chain " << chainText(E) << "\n");
      // Code the link adds outside the bitcode (start-up code, a native
      // runtime) is counted as 0 here: the estimate is then a lower bound,
      // and scopealloc-bound --check, which sees those frames, decides.
      std::string Outside;
      if (!E.Outside.empty()) {
        Outside = " (not counting ";
        for (size_t I = 0; I < E.Outside.size(); ++I)
          Outside += (I ? ", '" : "'") + E.Outside[I] + "'";
        Outside += ", outside the program's bitcode without an assumed "
                   "size: the link's check counts them)";
      }
      if (!E.Bounded) {
        std::string Causes;
        for (const std::string &C : E.Causes)
          Causes += (Causes.empty() ? "" : "; ") + C;
        warn(EntryText + " cannot be fitted to its stack bound of " +
             BoundText + ": its stack has no bound because of " + Causes +
             Outside);
        return;
      }
      if (E.Bytes <= Bound->Bytes) {
        OptimizationRemarkEmitter ORE(Entry.F);
        ORE.emit([&] {
          OptimizationRemark R(DEBUG_TYPE, "StackBoundFits", Entry.F);
          R << EntryText << ": estimated stack " << ore::NV("Estimate", E.Bytes)
            << " bytes" << Outside << ", within its bound of " << BoundText;
          if (Moved)
            R << " after moving " << ore::NV("Moved", Moved)
              << (Moved == 1 ? " buffer" : " buffers")
              << " (rule fit-stack-bound)";
          return R << "; critical chain " << chainText(E);
        });
        return;
      }
      if (!demoteOne(Entry, E, EntryText, BoundText)) {
        warn(EntryText + " needs an estimated " + std::to_string(E.Bytes) +
             " bytes of stack, over its bound of " + BoundText +
             ", and moving no buffer on its critical chain lowers that (what "
             "remains is frame overhead, buffers that must stay, code "
             "outside the program's bitcode, or buffers whose move would add "
             "the runtime's slow path below them); critical chain: " +
             chainText(E) + Outside);
        return;
      }
      ++Moved;
    }
  }

  /// Moves the buffer on \p E's chain that gains least from the stack
  /// among those whose move lowers the estimate (a move adds the runtime's
  /// slow path below its function); false when none does.
  bool demoteOne(FitNode &Entry, const Estimate &E, StringRef EntryText,
                 StringRef BoundText) {
    SmallVector<AllocaDecision *, 8> Movable;
    SmallVector<BudgetCandidate, 8> Candidates;
    SmallVector<FitNode *, 8> Owners;
    for (const Link &L : E.Chain) {
      auto It = L.N->F ? Plans.find(L.N->F) : Plans.end();
      if (It == Plans.end())
        continue;
      for (AllocaDecision &D : It->second.Decisions)
        // What the per-buffer rules let stay and the policy may move:
        // not a scope's, not pinned, not dynamic; not a pointer's size or
        // less, which would leave a pointer behind (as the facts count).
        if (D.Action == AllocaDecision::Keep &&
            D.Rule == PlacementRule::WithinLimit && D.Size &&
            *D.Size > PointerSize && D.Alloca->isStaticAlloca()) {
          Movable.push_back(&D);
          Candidates.push_back({D.Alloca, *D.Size});
          Owners.push_back(L.N);
        }
    }
    SmallVector<unsigned, 8> Order = rankByBenefit(Candidates);
    for (unsigned I : reverse(Order)) { // least benefit first
      AllocaDecision &D = *Movable[I];
      FitNode &Owner = *Owners[I];
      const StackPolicy &P = *Plans.find(Owner.F)->second.Policy;
      AllocaDecision Before = D;
      size_t CalleesBefore = Owner.Callees.size();
      D.Action = AllocaDecision::Demote;
      D.Pool = P.Pool;
      D.Rule = PlacementRule::FitStackBound;
      addCallee(Owner, runtime(D.Pool, Owner));
      Owner.OwnCache.reset();
      Estimate After = estimate(Entry);
      if (After.Bounded && After.Bytes < E.Bytes) {
        D.Reason = std::to_string(*D.Size) + " bytes are within the " +
                   limitText(P) + ", but " + EntryText.str() +
                   " needs an estimated " + std::to_string(E.Bytes) +
                   " bytes of stack, over its bound of " + BoundText.str() +
                   ", and of the buffers on its critical chain whose move "
                   "lowers that, this one gains least from the stack";
        return true;
      }
      LLVM_DEBUG(dbgs() << "fit: moving " << describeValue(*D.Alloca)
                        << " would not lower " << E.Bytes << " bytes ("
                        << After.Bytes << ")\n");
      D = Before;
      Owner.Callees.resize(CalleesBefore);
      Owner.OwnCache.reset();
    }
    return false;
  }

  Module &M;
  const bound::Settings &S;
  const DenseMap<const Function *, BoundFit::Plan> &Plans;
  uint64_t PointerSize, CallOverhead;
  Align StackAlign;
  std::vector<std::unique_ptr<FitNode>> Nodes;
  StringMap<FitNode *> BySymbol, ByIRName;
};

} // namespace

void BoundFit::run() {
  if (!hasStackBound())
    return;
  Fitter(M, S, Plans).run();
}

} // namespace scopealloc
