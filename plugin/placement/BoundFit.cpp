//===- BoundFit.cpp - Fit entry points' stacks to the policy's bounds -----===//
#include "placement/BoundFit.h"
#include "Bounds.h"
#include "CallGraph.h"
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

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/TargetParser/Triple.h"

#include <atomic>
#include <memory>
#include <set>

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

/// What the call graph says of one entry point.
struct Estimate {
  uint64_t Bytes = 0;
  bool Bounded = true;
  std::vector<bound::ChainStep> Chain;
  /// Per step: its function's name, and the function when the module
  /// defines it.
  std::vector<std::string> ChainNames;
  std::vector<Function *> ChainFunctions;
  std::vector<std::string> Causes;
  /// Reached functions outside the bitcode without an assumed size, counted
  /// as 0: Bytes is then a lower bound, and every move it asks for is one
  /// the whole program needs too.
  std::vector<std::string> Outside;
};

/// The fit over scopealloc-bound's call graph and bound rules
/// (analysis/CallGraph.h, Bounds.h), built from a program image that the
/// module makes: one record per defined function (the facts the pass would
/// write, with the runtime calls its plan adds), each at an address of its
/// own, and as frame sizes the frame estimates of the plan.
class Fitter {
public:
  Fitter(Module &M, const bound::Settings &Declared,
         const DenseMap<const Function *, BoundFit::Plan> &Plans)
      : M(M), S(Declared), Plans(Plans),
        Target(targetStack(Triple(M.getTargetTriple()).getArch(),
                           M.getDataLayout().getPointerSize())),
        StackAlign(stackAlignment(M.getDataLayout())) {
    S.CallOverhead = Target.CallOverhead;
    S.RedZone = Target.RedZone;
    assumeRuntimeStack();
  }

  void run() {
    buildImage();
    std::vector<std::pair<Function *, std::string>> Entries;
    {
      bound::CallGraph G = graph();
      for (const bound::EntryPoint &E : G.Entries)
        if (Function *F = functionAt(G.Nodes[E.Node].Address))
          Entries.push_back({F, E.Kind});
    }
    for (auto &[F, Kind] : Entries)
      fit(*F, Kind);
  }

private:
  /// The stack below a call into the runtime. The built-in table's sizes
  /// are the hosted runtime's; a freestanding runtime carries facts, with
  /// small frames, which the link's check counts: here its measured size,
  /// and its API (scopealloc_*) as code outside the bitcode.
  void assumeRuntimeStack() {
    bool Freestanding =
        Triple(M.getTargetTriple()).getOS() == Triple::UnknownOS;
    if (Freestanding) {
      SmallVector<StringRef, 8> API;
      for (const auto &A : S.Assumed)
        if (A.getKey().starts_with(SCOPEALLOC_API_PREFIX))
          API.push_back(A.getKey());
      for (StringRef Name : API)
        S.Assumed.erase(Name);
    }
    std::optional<uint64_t> Bytes;
    if (RuntimeStackOption >= 0)
      Bytes = RuntimeStackOption;
    else if (Freestanding)
      Bytes = Target.FreestandingRuntime;
    if (Bytes)
      for (const char *Name : {SCOPEALLOC_SYM_ALLOC, SCOPEALLOC_SYM_FRAME_SLOW,
                               SCOPEALLOC_SYM_POOL_ALLOC}) {
        S.Assumed[Name] = *Bytes;
        S.AssumedFrom[Name] = "the runtime's slow path";
      }
  }

  /// Addresses: the I-th defined function is at (I + 1) * 16.
  static uint64_t addressOf(unsigned I) { return uint64_t(I + 1) * 16; }
  Function *functionAt(uint64_t Address) const {
    if (!Address || Address % 16 || Address / 16 > Functions.size())
      return nullptr;
    return Functions[Address / 16 - 1];
  }

  void buildImage() {
    Img.Machine = Triple(M.getTargetTriple()).getArchName().str();
    Img.AddressSize = M.getDataLayout().getPointerSize();
    for (Function &F : M) {
      if (F.isDeclaration())
        continue;
      uint64_t Address = addressOf(Functions.size());
      Functions.push_back(&F);
      FunctionFacts Facts = collectFacts(F);
      Facts.Address = Address;
      keepStackDynamics(F, Facts);
      RecordOf[&F] = Img.Records.size();
      addSymbol(Facts.Name, Address, F.hasLocalLinkage());
      Img.Records.push_back(std::move(Facts));
      if (auto It = Plans.find(&F); It != Plans.end())
        for (const AllocaDecision &D : It->second.Decisions)
          if (D.Action == AllocaDecision::Demote)
            addRuntimeCall(F, D.Pool);
    }
    for (GlobalAlias &GA : M.aliases())
      if (auto *F = dyn_cast_or_null<Function>(GA.getAliaseeObject()))
        if (auto It = RecordOf.find(F); It != RecordOf.end())
          addSymbol(GA.getName().str(), Img.Records[It->second].Address,
                    GA.hasLocalLinkage());
    // Constructors and destructors are entry points, as in an image.
    for (auto [Table, Section] : {std::pair{"llvm.global_ctors", ".init_array"},
                                  std::pair{"llvm.global_dtors", ".fini_array"}})
      if (GlobalVariable *GV = M.getNamedGlobal(Table))
        if (auto *Array = dyn_cast_or_null<ConstantArray>(
                GV->hasInitializer() ? GV->getInitializer() : nullptr))
          for (Value *Op : Array->operands())
            if (auto *Entry = dyn_cast<ConstantStruct>(Op))
              if (auto *F = dyn_cast<Function>(
                      Entry->getOperand(1)->stripPointerCasts()))
                if (auto It = RecordOf.find(F); It != RecordOf.end())
                  Img.Startup.push_back(
                      {Section, Img.Records[It->second].Address});
  }

  void addSymbol(std::string Name, uint64_t Address, bool Local) {
    Img.FunctionNames[Address].push_back(Name);
    Img.AllFunctions[Name].push_back(Address);
    if (!Local)
      Img.GlobalFunctions[Name] = Address;
  }

  /// The dynamic allocations of \p F's record that stay on the stack
  /// (collectFacts lists each dynamic alloca, in order).
  void keepStackDynamics(Function &F, FunctionFacts &Facts) const {
    auto It = Plans.find(&F);
    if (It == Plans.end())
      return;
    SmallPtrSet<const AllocaInst *, 4> Demoted;
    for (const AllocaDecision &D : It->second.Decisions)
      if (D.Action == AllocaDecision::Demote)
        Demoted.insert(D.Alloca);
    std::vector<FunctionFacts::Dynamic> Kept;
    unsigned Next = 0;
    for (Instruction &I : instructions(F))
      if (auto *AI = dyn_cast<AllocaInst>(&I); AI && !AI->isStaticAlloca()) {
        if (Next < Facts.Dynamics.size() && !Demoted.count(AI))
          Kept.push_back(Facts.Dynamics[Next]);
        ++Next;
      }
    Facts.Dynamics = std::move(Kept);
  }

  /// The runtime function a frame of \p F that takes memory from \p Pool
  /// calls when the fast path does not serve it (RuntimeABI.h): its stack
  /// counts below \p F, as scopealloc-bound counts it. Whether the call
  /// was added.
  bool addRuntimeCall(Function &F, StringRef Pool) {
    StringRef Name = !Pool.empty() ? SCOPEALLOC_SYM_POOL_ALLOC
                     : RuntimeABI::canInlineDefaultPool(F)
                         ? SCOPEALLOC_SYM_FRAME_SLOW
                         : SCOPEALLOC_SYM_ALLOC;
    std::vector<FunctionFacts::SymbolUse> &Calls =
        Img.Records[RecordOf.lookup(&F)].Calls;
    if (any_of(Calls, [&](const auto &C) { return C.Name == Name; }))
      return false;
    Calls.push_back({Name.str(), /*Relocatable=*/false, 0, 0});
    return true;
  }

  /// The allocas of \p F that stay on the stack: static ones with a
  /// compile-time size.
  SmallVector<AllocaInst *, 8> staticStackAllocas(Function &F) const {
    SmallVector<AllocaInst *, 8> Out;
    if (auto It = Plans.find(&F); It != Plans.end()) {
      for (const AllocaDecision &D : It->second.Decisions)
        if (D.Action != AllocaDecision::Demote && D.Alloca->isStaticAlloca())
          Out.push_back(D.Alloca);
      return Out;
    }
    for (Instruction &I : instructions(F))
      if (auto *AI = dyn_cast<AllocaInst>(&I); AI && AI->isStaticAlloca())
        Out.push_back(AI);
    return Out;
  }

  /// The frame estimate of \p F: its allocas that stay, each at its
  /// alignment, plus the target's per-frame overhead, at the stack's
  /// alignment; as a frame size, without the call's own overhead (the
  /// return address x86 pushes), which the bound rules add.
  uint64_t frameSize(Function &F) {
    auto [It, New] = FrameCache.try_emplace(&F, 0);
    if (!New)
      return It->second;
    const DataLayout &DL = M.getDataLayout();
    uint64_t Bytes = 0;
    for (AllocaInst *AI : staticStackAllocas(F)) {
      std::optional<TypeSize> TS = AI->getAllocationSize(DL);
      if (!TS || TS->isScalable())
        continue;
      Bytes = alignTo(Bytes, AI->getAlign()) + TS->getFixedValue();
    }
    uint64_t Own = alignTo(Bytes + fitFrameOverhead(F), StackAlign);
    It->second = Own > S.CallOverhead ? Own - S.CallOverhead : 0;
    return It->second;
  }

  /// The call graph of the plan as it stands. Code outside the bitcode
  /// without an assumed size (native start-up code, a runtime archive the
  /// link adds) counts 0 here, not as unbounded: only the link's check
  /// sees its frames.
  bound::CallGraph graph() {
    for (unsigned I = 0; I < Functions.size(); ++I)
      Img.StackSizes[addressOf(I)] = frameSize(*Functions[I]);
    bound::CallGraph G = bound::buildCallGraph(Img, S);
    OutsideNodes.clear();
    for (unsigned I = 0; I < G.Nodes.size(); ++I) {
      bound::Node &N = G.Nodes[I];
      auto NoFacts = [](const bound::Cause &C) {
        return C.Kind == bound::Cause::NoFacts;
      };
      if (N.Facts || N.TargetSet || none_of(N.Causes, NoFacts))
        continue;
      erase_if(N.Causes, NoFacts);
      N.Assumed = 0;
      OutsideNodes.insert(I);
    }
    return G;
  }

  Estimate estimate(const Function &Entry) {
    bound::CallGraph G = graph();
    bound::Bounds B = bound::computeBounds(G, S);
    Estimate E;
    uint64_t Address = Img.Records[RecordOf.lookup(&Entry)].Address;
    for (const bound::EntryBound &EB : B.Entries) {
      if (G.Nodes[EB.Entry.Node].Address != Address)
        continue;
      E.Bytes = EB.Stack.Bytes;
      E.Bounded = EB.Stack.Bounded;
      E.Chain = EB.Stack.Chain;
      for (const bound::Cause &C : EB.Causes)
        if (is_contained(C.Affects, "stack"))
          E.Causes.push_back(bound::causeText(G, C));
      // What it reaches outside the bitcode, in the order it calls it.
      std::vector<bool> Seen(G.Nodes.size());
      std::vector<unsigned> Work{EB.Entry.Node};
      Seen[EB.Entry.Node] = true;
      while (!Work.empty()) {
        unsigned N = Work.back();
        Work.pop_back();
        if (OutsideNodes.count(N))
          E.Outside.push_back(G.Nodes[N].Name);
        for (unsigned C : reverse(G.Nodes[N].Callees))
          if (!Seen[C]) {
            Seen[C] = true;
            Work.push_back(C);
          }
      }
      for (const bound::ChainStep &St : E.Chain) {
        bool Exception = St.Node == bound::ChainStep::ExceptionFrame;
        E.ChainNames.push_back(Exception ? std::string("(exception frame)")
                                         : G.Nodes[St.Node].Name);
        E.ChainFunctions.push_back(
            Exception ? nullptr : functionAt(G.Nodes[St.Node].Address));
      }
      break;
    }
    return E;
  }

  static std::string chainText(const Estimate &E) {
    std::string Text;
    for (unsigned I = 0; I < E.Chain.size(); ++I) {
      const bound::ChainStep &St = E.Chain[I];
      if (!Text.empty())
        Text += " -> ";
      Text += E.ChainNames[I] + " (" + std::to_string(St.Bytes / St.Repeat) +
              " bytes";
      if (St.Repeat > 1)
        Text += " x" + std::to_string(St.Repeat);
      Text += St.Assumed ? ", assumed)" : ")";
    }
    return Text;
  }

  const bound::Limit *boundOf(const Function &F) const {
    const std::string &Symbol = Img.Records[RecordOf.lookup(&F)].Name;
    for (StringRef Name : {StringRef(Symbol), F.getName()})
      if (auto It = S.EntryBounds.find(Name.str()); It != S.EntryBounds.end())
        return &It->second;
    return S.StackBound ? &*S.StackBound : nullptr;
  }

  void warn(const Twine &Message) {
    M.getContext().diagnose(
        ScopeAllocDiagnostic(DS_Warning, nullptr, nullptr, Message));
  }

  void fit(Function &Entry, StringRef Kind) {
    const bound::Limit *Bound = boundOf(Entry);
    if (!Bound)
      return;
    std::string BoundText =
        std::to_string(Bound->Bytes) + " bytes (" + Bound->From + ")";
    std::string EntryText = "entry '" +
                            Img.Records[RecordOf.lookup(&Entry)].Name +
                            "' (" + Kind.str() + ")";
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
        OptimizationRemarkEmitter ORE(&Entry);
        ORE.emit([&] {
          OptimizationRemark R(DEBUG_TYPE, "StackBoundFits", &Entry);
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
  bool demoteOne(Function &Entry, const Estimate &E, StringRef EntryText,
                 StringRef BoundText) {
    SmallVector<AllocaDecision *, 8> Movable;
    SmallVector<BudgetCandidate, 8> Candidates;
    SmallVector<Function *, 8> Owners;
    unsigned PointerSize = M.getDataLayout().getPointerSize();
    for (Function *F : E.ChainFunctions) {
      auto It = F ? Plans.find(F) : Plans.end();
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
          Owners.push_back(F);
        }
    }
    SmallVector<unsigned, 8> Order = rankByBenefit(Candidates);
    for (unsigned I : reverse(Order)) { // least benefit first
      AllocaDecision &D = *Movable[I];
      Function &Owner = *Owners[I];
      const StackPolicy &P = *Plans.find(&Owner)->second.Policy;
      AllocaDecision Before = D;
      D.Action = AllocaDecision::Demote;
      D.Pool = P.Pool;
      D.Rule = PlacementRule::FitStackBound;
      bool Added = addRuntimeCall(Owner, D.Pool);
      FrameCache.erase(&Owner);
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
      if (Added)
        Img.Records[RecordOf.lookup(&Owner)].Calls.pop_back();
      FrameCache.erase(&Owner);
    }
    return false;
  }

  Module &M;
  bound::Settings S;
  const DenseMap<const Function *, BoundFit::Plan> &Plans;
  TargetStack Target;
  Align StackAlign;
  bound::Image Img;
  std::vector<Function *> Functions; ///< by address
  DenseMap<const Function *, unsigned> RecordOf;
  DenseMap<const Function *, uint64_t> FrameCache;
  std::set<unsigned> OutsideNodes; ///< of the last graph
};

} // namespace

void BoundFit::run() {
  if (!hasStackBound())
    return;
  Fitter(M, S, Plans).run();
}

} // namespace scopealloc
