//===- BoundFit.cpp - Fit entry points' stacks to the policy's bounds -----===//
#include "placement/BoundFit.h"
#include "Bounds.h"
#include "CallGraph.h"
#include "FactsFormat.h"
#include "OptionCategory.h"
#include "TargetStack.h"
#include "facts/StackFacts.h"
#include "placement/FrameBudget.h"
#include "placement/ModuleProgram.h"
#include "placement/Placement.h"
#include "policy/StackPolicy.h"
#include "scopealloc/abi_constants.h"
#include "support/Diagnostics.h"
#include "support/ValueNames.h"
#include "transform/RuntimeABI.h"

#include "LLVMCompat.h" // llvm/TargetParser/Triple.h
#include "llvm/ADT/SmallPtrSet.h"
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

namespace scopealloc {

bool wholeProgramRequested() { return WholeProgramOption; }

BoundFit::BoundFit(Module &M) : M(M) { bound::addBuiltinAssumptions(S); }

void BoundFit::addPolicy(const ModulePolicy &MP) {
  for (const ModulePolicy::FunctionLayer &L : MP.FunctionLayers)
    if (TargetsSeen.insert(L.Target).second)
      bound::addTargetBounds(*L.Target, L.File->Path, S);
}

bool BoundFit::hasStackBound() const {
  return S.StackBound || !S.EntryBounds.empty();
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
         const PlannedFunctions &Plans)
      : M(M), Plans(Plans), Program(M, Declared, Plans) {}

  void run() {
    std::vector<std::pair<Function *, std::string>> Entries;
    {
      bound::CallGraph G = Program.graph();
      for (const bound::EntryPoint &E : G.Entries)
        if (Function *F = Program.functionAt(G.Nodes[E.Node].Address))
          Entries.push_back({F, E.Kind});
    }
    for (auto &[F, Kind] : Entries)
      fit(*F, Kind);
  }

private:
  Estimate estimate(const Function &Entry) {
    bound::CallGraph G = Program.graph();
    bound::Bounds B = bound::computeBounds(G, Program.settings());
    Estimate E;
    uint64_t Address = Program.record(Entry).Address;
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
        if (Program.isOutside(N))
          E.Outside.push_back(readableName(G.Nodes[N].Name));
        for (unsigned C : reverse(G.Nodes[N].Callees))
          if (!Seen[C]) {
            Seen[C] = true;
            Work.push_back(C);
          }
      }
      for (const bound::ChainStep &St : E.Chain) {
        bool Exception = St.Node == bound::ChainStep::ExceptionFrame;
        E.ChainNames.push_back(Exception ? std::string("(exception frame)")
                                         : readableName(G.Nodes[St.Node].Name));
        E.ChainFunctions.push_back(
            Exception ? nullptr : Program.functionAt(G.Nodes[St.Node].Address));
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
    const bound::Settings &S = Program.settings();
    const std::string &Symbol = Program.record(F).Name;
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
                            readableName(Program.record(Entry).Name) + "' (" +
                            Kind.str() + ")";
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
      bool Added = Program.addRuntimeCall(Owner, D.Pool);
      Program.invalidateFrame(Owner);
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
        Program.removeRuntimeCall(Owner);
      Program.invalidateFrame(Owner);
    }
    return false;
  }

  Module &M;
  const PlannedFunctions &Plans;
  ModuleProgram Program;
};

} // namespace

void BoundFit::run(const PlannedFunctions &Plans) {
  if (!hasStackBound())
    return;
  Fitter(M, S, Plans).run();
}

} // namespace scopealloc
