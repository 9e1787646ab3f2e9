//===- StaticFramePlan.cpp - Demoted frames at fixed offsets --------------===//
#include "placement/StaticFramePlan.h"
#include "Scope.h"
#include "placement/CallSiteLiveness.h"
#include "placement/GreedyBySize.h"
#include "placement/TableDispatch.h"
#include "policy/StackPolicy.h"
#include "scopealloc/abi_constants.h"
#include "support/ValueNames.h"

#include "LLVMCompat.h" // llvm/TargetParser/Triple.h
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#define DEBUG_TYPE "scope-alloc"

using namespace llvm;

namespace scopealloc {

namespace {

/// One function whose policy asks for a static frame.
struct Candidate {
  Function *F;
  unsigned Node;
  FrameLayout Layout;
  uint64_t Size = 0;
  Align Alignment;
  std::optional<CallSiteLiveness> Live; ///< once asked for
  unsigned FirstBuffer = 0;             ///< its buffers' numbers in its region
  std::string Why;                      ///< why not, once known
  unsigned Entry = ~0u;
  uint64_t Offset = 0;
};

/// What one entry point reaches.
struct Reach {
  std::vector<unsigned> Nodes; ///< in the order found
  std::string Open;            ///< why its graph is not closed
};

class Planner {
public:
  Planner(Module &M, const bound::Settings &S, const PlannedFunctions &Plans,
          FrameLayoutFn Layout)
      : M(M), Plans(Plans), Layout(Layout), Program(M, S, Plans),
        G(Program.graph()),
        Hosted(Triple(M.getTargetTriple()).getOS() != Triple::UnknownOS) {}

  StaticFrames run() {
    collectCandidates();
    if (Candidates.empty())
      return StaticFrames();
    assignRegions();
    Comps = bound::findComponents(G);
    std::vector<Reach> Reaches;
    // Per node: the first entry that reaches it, one of another region
    // that does too, and one whose graph is open.
    std::vector<unsigned> FirstEntry(G.Nodes.size(), ~0u);
    std::vector<unsigned> OtherRegion(G.Nodes.size(), ~0u);
    std::vector<unsigned> OpenEntry(G.Nodes.size(), ~0u);
    auto Mark = [&](unsigned E, const Reach &R) {
      for (unsigned N : R.Nodes) {
        if (FirstEntry[N] == ~0u)
          FirstEntry[N] = E;
        else if (OtherRegion[N] == ~0u &&
                 regionOf(FirstEntry[N]) != regionOf(E))
          OtherRegion[N] = E;
        // (An unseen caller's node already has two regions or only it.)
        if (!R.Open.empty() && OpenEntry[N] == ~0u && E < G.Entries.size())
          OpenEntry[N] = E;
      }
    };
    for (unsigned E = 0; E < G.Entries.size(); ++E) {
      Reaches.push_back(reach(G.Entries[E].Node));
      Mark(E, Reaches.back());
    }
    // A function whose address is taken may also be called by code the
    // graph does not see (a library's worker thread, a table read at run
    // time): each is an entry of unknown concurrency, numbered after the
    // real ones.
    for (unsigned N = 0; N < G.Nodes.size(); ++N)
      if (G.Nodes[N].AddressTaken && !G.Nodes[N].TargetSet &&
          (!isEntry(N) || G.Nodes[N].AddressEscapes) &&
          !onlyOwnIndirectCalls(N) && !taskEntry(N)) {
        Unseen.push_back(N);
        Mark(G.Entries.size() + Unseen.size() - 1, reach(N));
      }
    findOutsideCallers();
    for (Candidate &C : Candidates) {
      if (!C.Why.empty())
        continue;
      if (G.Nodes[C.Node].AddressTaken && !onlyOwnIndirectCalls(C.Node) &&
          (!isEntry(C.Node) || G.Nodes[C.Node].AddressEscapes) &&
          !taskEntry(C.Node)) {
        C.Why = isEntry(C.Node)
                    ? "it is an entry point whose address is also handed to "
                      "code the call graph does not see, which may run it at "
                      "any time"
                    : "its address is taken: code the call graph does not "
                      "see may call it";
        continue;
      }
      if (unsigned O = OutsideCaller[C.Node]; O != ~0u) {
        C.Why = outsideText(O, C.Node);
        continue;
      }
      unsigned E = FirstEntry[C.Node];
      if (E == ~0u) {
        C.Why = "no entry point reaches it";
        continue;
      }
      if (E >= G.Entries.size()) {
        C.Why = "only " + entryText(E) + " reaches it";
        continue;
      }
      if (OtherRegion[C.Node] != ~0u) {
        C.Why = "entries " + entryText(E) + " and " +
                entryText(OtherRegion[C.Node]) +
                " both reach it, and may run at the same time";
        continue;
      }
      if (std::string Shared = sharedTaskEntry(G.Entries[E].Node);
          !Shared.empty()) {
        C.Why = "its entry " + entryText(E) + " starts " + Shared +
                ", which may run it at the same time";
        continue;
      }
      if (G.Entries[E].Runs == bound::Concurrency::Unknown &&
          !soleTaskEntry(G.Entries[E].Node)) {
        C.Why = "its entry " + entryText(E) +
                (G.Nodes[G.Entries[E].Node].AddressEscapes
                     ? " is also handed to code the call graph does not "
                       "see, which may run it at any time"
                     : " may interrupt itself");
        continue;
      }
      if (unsigned O = OpenEntry[C.Node]; O != ~0u) {
        C.Why = "its entry " + entryText(O) + " reaches " + Reaches[O].Open;
        continue;
      }
      C.Entry = E;
    }
    StaticFrames Out;
    for (unsigned E = 0; E < G.Entries.size(); ++E)
      if (regionOf(E) == E)
        placeRegion(E, Reaches, Out);
    remark();
    return Out;
  }

private:
  void collectCandidates() {
    for (unsigned I = 0; I < G.Nodes.size(); ++I) {
      Function *F = Program.functionAt(G.Nodes[I].Address);
      auto It = F ? Plans.find(F) : Plans.end();
      if (It == Plans.end() || It->second.Policy->Plan != FramePlan::Static)
        continue;
      SmallVector<AllocaInst *, 8> Static;
      std::string NamedPool;
      for (const AllocaDecision &D : It->second.Decisions) {
        if (D.Action != AllocaDecision::Demote || !D.Alloca->isStaticAlloca())
          continue;
        if (D.Pool.empty())
          Static.push_back(D.Alloca);
        else if (NamedPool.empty())
          NamedPool = D.Pool;
      }
      if (!NamedPool.empty()) {
        OptimizationRemarkEmitter ORE(F);
        ORE.emit([&] {
          return OptimizationRemarkMissed(DEBUG_TYPE, "StaticFrameNotPlanned",
                                          F)
                 << "'" << ore::NV("Function", readableName(F->getName()))
                 << "': its frame in pool '" << NamedPool
                 << "' stays on the run-time arena (plan static): the "
                    "application places that pool's memory";
        });
      }
      if (Static.empty())
        continue;
      Candidate C{F, I, Layout(*F, Static)};
      C.Size = C.Layout.Size;
      C.Alignment = C.Layout.Alignment;
      Candidates.push_back(C);
      CandidateOf[I] = Candidates.size() - 1;
    }
  }

  /// ScopeAlloc's own runtime (outside the bitcode on bare metal, with
  /// facts the link's check reads) calls into the program only through
  /// function pointers it was given, whose targets are entries of their
  /// own here (address taken), and through the failure hook, when the
  /// program defines one. A hook the runtime can call is visible outside
  /// the program (the link keeps it external for the runtime's
  /// reference): every frame it reaches keeps the bump
  /// (findOutsideCallers), so a call back through it finds no planned
  /// frame (a task's finish code that reads the runtime's statistics).
  bool isClosedRuntime(StringRef Name) const {
    if (!Name.starts_with(SCOPEALLOC_API_PREFIX) &&
        !Name.starts_with(SCOPEALLOC_SYMBOL_PREFIX))
      return false;
    const Function *Hook = M.getFunction(SCOPEALLOC_SYM_FREESTANDING_FAILURE);
    return !Hook || Hook->isDeclaration() || !Hook->hasLocalLinkage();
  }

  /// Whether node \p N, whose address is taken, is called only by the
  /// program's own indirect calls, which the graph resolves
  /// (TableDispatch.h).
  bool onlyOwnIndirectCalls(unsigned N) const {
    const Function *F = Program.functionAt(G.Nodes[N].Address);
    return F && F->hasLocalLinkage() && calledOnlyThroughOwnTables(*F);
  }

  /// Functions that code outside the program can call by name, at any
  /// time, on any thread, while other frames are live: those not
  /// internalized (exported, or referenced by an object outside the LTO
  /// link: a native library whose constructor starts a thread, say) and
  /// those kept for code the compiler does not see (llvm.used: module
  /// asm, a linker script). Every frame they reach keeps the bump:
  /// OutsideCaller[N] is the first of them found to reach node N (itself
  /// first). Not counted: main, interrupt handlers (a linker script or
  /// start-up code names them) and declared entries, which outside code
  /// calls as their kind says; a thread start routine or a handler that
  /// outside code may call by name is counted.
  void findOutsideCallers() {
    SmallPtrSet<const GlobalObject *, 8> Kept, Exported;
    for (bool CompilerUsed : {false, true}) {
      SmallVector<GlobalValue *, 8> Used;
      collectUsedGlobalVariables(M, Used, CompilerUsed);
      for (GlobalValue *GV : Used)
        Kept.insert(GV->getAliaseeObject());
    }
    for (const GlobalAlias &GA : M.aliases())
      if (!GA.hasLocalLinkage())
        Exported.insert(GA.getAliaseeObject());
    OutsideCaller.assign(G.Nodes.size(), ~0u);
    std::vector<unsigned> Work;
    for (unsigned N = 0; N < G.Nodes.size(); ++N) {
      const Function *F = Program.functionAt(G.Nodes[N].Address);
      if (!F || calledAsDeclared(N))
        continue;
      if (!F->hasLocalLinkage() || Exported.count(F))
        OutsideVisible.insert(N);
      else if (!Kept.count(F))
        continue;
      OutsideCaller[N] = N;
      Work.push_back(N);
    }
    // A declared entry is run as its declaration says whoever calls it (a
    // benchmark's exported timing loop calling its SCOPEALLOC_ENTRY
    // function): its region is its own, so the walk stops there.
    for (unsigned I = 0; I < Work.size(); ++I)
      for (unsigned C : G.Nodes[Work[I]].Callees)
        if (OutsideCaller[C] == ~0u && !declaredEntry(C)) {
          OutsideCaller[C] = OutsideCaller[Work[I]];
          Work.push_back(C);
        }
  }

  /// Why code outside the program may run node \p N: node \p Caller (N
  /// itself, or a function that reaches it) is one it may call.
  std::string outsideText(unsigned Caller, unsigned N) const {
    bool Visible = OutsideVisible.count(Caller);
    if (Caller == N)
      return Visible ? "it is visible outside the program (not internalized): "
                       "code the call graph does not see may call it"
                     : "it is kept for code the compiler does not see "
                       "(attribute 'used': module asm, a linker script), "
                       "which may call it";
    return "it is reached from '" + readableName(G.Nodes[Caller].Name) +
           "', which is " +
           (Visible ? "visible outside the program (not internalized)"
                    : "kept for code the compiler does not see (attribute "
                      "'used': module asm, a linker script)") +
           ": code the call graph does not see may call it at any time, on "
           "any thread, while other frames are live";
  }

  /// Whether node \p N is an entry that code outside the program calls
  /// only as its kind says: main, an interrupt handler, a declared entry.
  bool calledAsDeclared(unsigned N) const {
    return any_of(G.Entries, [&](const bound::EntryPoint &E) {
      StringRef Kind = E.Kind;
      return E.Node == N && (Kind == "main" || Kind.starts_with("interrupt") ||
                             Kind == "marked entry" || Kind == "policy entry" ||
                             Kind == "policy task entry" || Kind == "option");
    });
  }

  /// Whether node \p N is an entry the user declared (SCOPEALLOC_ENTRY,
  /// the policy's `entries`, -scope-alloc-entry).
  bool declaredEntry(unsigned N) const {
    return any_of(G.Entries, [&](const bound::EntryPoint &E) {
      return E.Node == N &&
             (E.Kind == "marked entry" || E.Kind == "policy entry" ||
              E.Kind == "policy task entry" || E.Kind == "option");
    });
  }

  /// The tasks (a policy's 'tasks') whose entry is node \p N.
  std::vector<const bound::Settings::Task *> tasksAt(unsigned N) const {
    std::vector<const bound::Settings::Task *> Out;
    for (const bound::Settings::Task &T : Program.settings().Tasks)
      if (T.Entry == G.Nodes[N].Name)
        Out.push_back(&T);
    return Out;
  }

  /// Whether node \p N is the entry of a task: the scheduler runs it, on
  /// the task's stack, and its address is handed to the scheduler for
  /// that (several tasks with one entry: sharedTaskEntry).
  bool taskEntry(unsigned N) const { return isEntry(N) && !tasksAt(N).empty(); }

  /// Whether node \p N is the entry of exactly one task. An RTOS runs a
  /// task's function on the task's own stack, one run at a time: its
  /// address is handed to the scheduler (stored in the task's first
  /// context, passed to xTaskCreateStatic) for that and nothing else, as
  /// the policy's 'tasks' declares. Its frames, and those only it
  /// reaches, get the task's region.
  bool soleTaskEntry(unsigned N) const {
    return isEntry(N) && tasksAt(N).size() == 1;
  }

  /// "tasks 'A' and 'B'" when node \p N is the entry of several tasks
  /// (two runs of one function on two stacks), else "".
  std::string sharedTaskEntry(unsigned N) const {
    std::vector<const bound::Settings::Task *> Tasks = tasksAt(N);
    if (Tasks.size() < 2)
      return "";
    std::string Out = "tasks";
    for (size_t I = 0; I < Tasks.size(); ++I)
      Out += (I == 0                  ? " '"
              : I + 1 == Tasks.size() ? " and '"
                                      : ", '") +
             Tasks[I]->Name + "'";
    return Out;
  }

  bool isEntry(unsigned N) const {
    return any_of(G.Entries,
                  [&](const bound::EntryPoint &E) { return E.Node == N; });
  }

  /// On a hosted target main and the thread start routines share one
  /// thread-local region: each runs at the bottom of its own thread's
  /// stack, so a function they both reach has one offset, in every
  /// thread's copy. Every other entry has a region of its own.
  void assignRegions() {
    RegionOf.resize(G.Entries.size());
    std::vector<unsigned> Threads;
    for (unsigned E = 0; E < G.Entries.size(); ++E) {
      RegionOf[E] = E;
      StringRef Kind = G.Entries[E].Kind;
      if (Hosted && (Kind == "main" || Kind.starts_with("thread start")))
        Threads.push_back(E);
    }
    if (Threads.size() > 1)
      for (unsigned E : Threads)
        RegionOf[E] = Threads.front();
    ThreadsRegion = Threads.size() > 1 ? Threads.front() : ~0u;
  }

  /// The region of entry \p E (an unseen caller's is its own).
  unsigned regionOf(unsigned E) const {
    return E < RegionOf.size() ? RegionOf[E] : E;
  }

  std::string regionText(unsigned E) const {
    if (regionOf(E) == ThreadsRegion)
      return "the per-thread static region of main and the thread start "
             "routines";
    if (E < G.Entries.size() && soleTaskEntry(G.Entries[E].Node))
      return "the static region of task '" +
             tasksAt(G.Entries[E].Node).front()->Name + "' (entry '" +
             readableName(G.Nodes[G.Entries[E].Node].Name) + "')";
    return "the static region of " + entryText(E);
  }

  std::string entryText(unsigned E) const {
    if (E >= G.Entries.size())
      return "'" + readableName(G.Nodes[Unseen[E - G.Entries.size()]].Name) +
             "', whose address is taken (code the call graph does not see "
             "may call it),";
    unsigned N = G.Entries[E].Node;
    if (std::vector<const bound::Settings::Task *> Tasks = tasksAt(N);
        !Tasks.empty() && G.Entries[E].Kind == "policy task entry")
      return "'" + readableName(G.Nodes[N].Name) + "' (entry of task '" +
             Tasks.front()->Name + "'" + (Tasks.size() > 1 ? ", ..." : "") +
             ")";
    return "'" + readableName(G.Nodes[N].Name) + "' (" + G.Entries[E].Kind +
           ")";
  }

  /// What entry node \p From reaches, and whether it is closed.
  Reach reach(unsigned From) const {
    Reach R;
    std::vector<bool> Seen(G.Nodes.size());
    std::vector<unsigned> Work{From};
    Seen[From] = true;
    while (!Work.empty()) {
      unsigned N = Work.back();
      Work.pop_back();
      R.Nodes.push_back(N);
      if (R.Open.empty()) {
        if (Program.isOutside(N) && !isClosedRuntime(G.Nodes[N].Name))
          R.Open = "'" + readableName(G.Nodes[N].Name) +
                   "', code outside the program that may call back";
        for (const bound::Cause &C : G.Nodes[N].Causes)
          if (R.Open.empty() && (C.Kind == bound::Cause::IndirectCall ||
                                 C.Kind == bound::Cause::NoFacts))
            R.Open = bound::causeText(G, C);
      }
      for (unsigned C : G.Nodes[N].Callees)
        if (!Seen[C]) {
          Seen[C] = true;
          Work.push_back(C);
        }
    }
    return R;
  }

  /// Offsets of the functions planned in region \p R (the entries whose
  /// region it is), in the topological order of the components of what
  /// they reach (Kahn's). A call cycle's members keep the bump: a frame
  /// below the cycle is live once at a time still, and starts above what
  /// is live of the planned frames above the cycle.
  void placeRegion(unsigned R, const std::vector<Reach> &Reaches,
                   StaticFrames &Out) {
    auto InRegion = [&](const Candidate &C) {
      return C.Entry != ~0u && regionOf(C.Entry) == R;
    };
    if (none_of(Candidates, InRegion))
      return;
    // In-degrees of the components (a cycle's members reach each other:
    // a component lies wholly inside what the region reaches or outside).
    std::map<int, unsigned> InDegree;
    for (unsigned E = 0; E < G.Entries.size(); ++E)
      if (regionOf(E) == R)
        for (unsigned N : Reaches[E].Nodes)
          InDegree[Comps.Of[N]];
    for (auto &[K, D] : InDegree)
      for (unsigned N : Comps.Members[K])
        for (unsigned C : G.Nodes[N].Callees)
          if (Comps.Of[C] != K)
            ++InDegree[Comps.Of[C]];
    std::vector<int> Ready;
    for (auto &[K, D] : InDegree)
      if (!D)
        Ready.push_back(K);
    // The region's buffers are numbered for the greedy-by-size reference;
    // Above[K]: those that may be live while K runs, in its callers.
    unsigned Buffers = 0;
    for (Candidate &C : Candidates)
      if (InRegion(C)) {
        C.FirstBuffer = Buffers;
        Buffers += C.Layout.Allocas.size();
      }
    std::map<int, uint64_t> Base; // where the frames below K start
    std::map<int, BitVector> Above;
    uint64_t Size = 0;
    Align MaxAlign(16);
    while (!Ready.empty()) {
      int K = Ready.back();
      Ready.pop_back();
      Candidate *Planned = nullptr;
      if (!Comps.Cycle[K])
        if (auto It = CandidateOf.find(Comps.Members[K].front());
            It != CandidateOf.end() && InRegion(Candidates[It->second])) {
          Planned = &Candidates[It->second];
          Planned->Offset = alignTo(Base[K], Planned->Alignment);
          Size = std::max(Size, Planned->Offset + Planned->Size);
          MaxAlign = std::max(MaxAlign, Planned->Alignment);
        }
      BitVector Mine = Above.try_emplace(K, Buffers).first->second;
      for (unsigned N : Comps.Members[K])
        for (unsigned C : G.Nodes[N].Callees) {
          int KC = Comps.Of[C];
          if (KC == K)
            continue;
          BitVector &Theirs = Above.try_emplace(KC, Buffers).first->second;
          Theirs |= Mine;
          uint64_t Top = Base[K];
          if (Planned) {
            BitVector Live = liveDuring(*Planned, C);
            Top = Planned->Offset + (Planned->Layout.CanaryOffsets.empty()
                                         ? liveTop(Planned->Layout, Live)
                                         : Planned->Size);
            for (unsigned B : Live.set_bits())
              Theirs.set(Planned->FirstBuffer + B);
          }
          Base[KC] = std::max(Base[KC], Top);
          if (--InDegree[KC] == 0)
            Ready.push_back(KC);
        }
    }
    std::vector<Candidate *> Placed;
    for (Candidate &C : Candidates) {
      if (!InRegion(C))
        continue;
      if (Comps.Cycle[Comps.Of[C.Node]]) {
        C.Why = "it is in a call cycle of its entry " + entryText(C.Entry);
        C.Entry = ~0u;
        continue;
      }
      Placed.push_back(&C);
    }
    if (Placed.empty())
      return;
    // The threads' region holds frames of a thread start routine, or only
    // main's: then it is main's, a plain global.
    if (R == ThreadsRegion) {
      std::vector<bool> ByThreads(G.Nodes.size());
      for (unsigned E = 0; E < G.Entries.size(); ++E)
        if (regionOf(E) == R && G.Entries[E].Kind != "main")
          for (unsigned N : Reaches[E].Nodes)
            ByThreads[N] = true;
      if (none_of(Placed, [&](Candidate *C) { return ByThreads[C->Node]; }))
        ThreadsRegion = ~0u;
    }
    // Per thread where one routine may run on several threads at once.
    // A task's region is the task's alone: one run of its entry at a time.
    bool PerThread =
        Hosted &&
        (R == ThreadsRegion || (G.Entries[R].Runs != bound::Concurrency::Once &&
                                !soleTaskEntry(G.Entries[R].Node)));
    std::string Name = R == ThreadsRegion ? std::string("threads")
                                          : G.Nodes[G.Entries[R].Node].Name;
    auto *Type = ArrayType::get(Type::getInt8Ty(M.getContext()), Size);
    auto *Region = new GlobalVariable(
        M, Type, /*isConstant=*/false, GlobalValue::InternalLinkage,
        ConstantAggregateZero::get(Type), SCOPEALLOC_PLAN_REGION_PREFIX + Name,
        nullptr,
        PerThread ? GlobalValue::GeneralDynamicTLSModel
                  : GlobalValue::NotThreadLocal);
    Region->setAlignment(MaxAlign);
    Region->setDSOLocal(true);
    for (Candidate *C : Placed)
      Out[C->F] = {Region, C->Offset, C->Layout};
    remarkRegion(R, *Region, Placed, Above);
  }

  /// The region's size beside greedy-by-size offsets of the same buffers
  /// (GreedyBySize.h): two buffers conflict when one may be live while
  /// the other's function runs, or in one frame when their lifetimes
  /// overlap.
  void remarkRegion(unsigned R, const GlobalVariable &Region,
                    ArrayRef<Candidate *> Placed,
                    const std::map<int, BitVector> &Above) {
    std::vector<PlannedBuffer> Buffers;
    std::vector<std::pair<Candidate *, unsigned>> Owner;
    for (Candidate *C : Placed) {
      if (!C->Live)
        C->Live = CallSiteLiveness::compute(*C->F, C->Layout.Allocas);
      const DataLayout &DL = M.getDataLayout();
      for (unsigned I = 0; I < C->Layout.Allocas.size(); ++I) {
        const AllocaInst &AI = *C->Layout.Allocas[I];
        Buffers.push_back(
            {getAllocationSize(AI, DL)->getFixedValue(), AI.getAlign()});
        Owner.push_back({C, I});
      }
    }
    auto Conflict = [&](unsigned A, unsigned B) {
      auto [CA, IA] = Owner[A];
      auto [CB, IB] = Owner[B];
      if (CA == CB)
        return CA->Live->Ranges[IA].overlaps(CA->Live->Ranges[IB]);
      return Above.at(Comps.Of[CB->Node]).test(CA->FirstBuffer + IA) ||
             Above.at(Comps.Of[CA->Node]).test(CB->FirstBuffer + IB);
    };
    uint64_t Greedy = greedyBySize(Buffers, Conflict);
    uint64_t Size = Region.getValueType()->getArrayNumElements();
    Function *At = Program.functionAt(G.Nodes[G.Entries[R].Node].Address);
    if (!At)
      At = Placed.front()->F;
    OptimizationRemarkEmitter ORE(At);
    ORE.emit([&] {
      return OptimizationRemarkAnalysis(DEBUG_TYPE, "StaticRegion", At)
             << "static region " << Region.getName() << ": "
             << ore::NV("Bytes", Size) << " bytes for "
             << ore::NV("Frames", (unsigned)Placed.size())
             << (Placed.size() == 1 ? " frame" : " frames") << " of "
             << ore::NV("Buffers", (unsigned)Buffers.size())
             << (Buffers.size() == 1 ? " buffer" : " buffers")
             << "; greedy-by-size offsets of the same buffers: "
             << ore::NV("GreedyBytes", Greedy) << " bytes";
    });
  }

  /// The buffers of \p Caller's frame that may be live while it calls
  /// node \p Callee.
  BitVector liveDuring(Candidate &Caller, unsigned Callee) {
    // Canaries are checked when the function returns: they are live
    // across every call, and one follows each buffer.
    if (!Caller.Layout.CanaryOffsets.empty())
      return BitVector(Caller.Layout.Allocas.size(), true);
    if (!Caller.Live)
      Caller.Live = CallSiteLiveness::compute(*Caller.F, Caller.Layout.Allocas);
    // An indirect call's edge goes to the set of its targets.
    if (G.Nodes[Callee].TargetSet)
      return Caller.Live->aliveAtIndirectCalls();
    return Caller.Live->aliveAtCallsOf(calleeFunction(Callee));
  }

  /// The function of the module that node \p N is, if any.
  Function *calleeFunction(unsigned N) const {
    if (Function *F = Program.functionAt(G.Nodes[N].Address))
      return F;
    return M.getFunction(G.Nodes[N].Name);
  }

  void remark() {
    for (const Candidate &C : Candidates) {
      OptimizationRemarkEmitter ORE(C.F);
      if (C.Entry != ~0u) {
        ORE.emit([&] {
          return OptimizationRemark(DEBUG_TYPE, "StaticFrame", C.F)
                 << "'" << ore::NV("Function", readableName(C.F->getName()))
                 << "': frame of " << ore::NV("Bytes", C.Size)
                 << " bytes at offset " << ore::NV("Offset", C.Offset) << " of "
                 << regionText(C.Entry) << " (plan static: no run-time bump)";
        });
        continue;
      }
      ORE.emit([&] {
        return OptimizationRemarkMissed(DEBUG_TYPE, "StaticFrameNotPlanned",
                                        C.F)
               << "'" << ore::NV("Function", readableName(C.F->getName()))
               << "': frame of " << ore::NV("Bytes", C.Size)
               << " bytes stays on the run-time arena (plan static): "
               << ore::NV("Reason", C.Why);
      });
    }
  }

  Module &M;
  const PlannedFunctions &Plans;
  FrameLayoutFn Layout;
  ModuleProgram Program;
  bound::CallGraph G;
  bool Hosted;
  std::vector<Candidate> Candidates;
  std::map<unsigned, unsigned> CandidateOf; ///< node -> candidate
  /// Address-taken functions that are no entry point: callers unseen.
  std::vector<unsigned> Unseen;
  /// By node: the function outside code may call that reaches it, or ~0u
  /// (findOutsideCallers); those of them not internalized.
  std::vector<unsigned> OutsideCaller;
  std::set<unsigned> OutsideVisible;
  bound::Components Comps;        ///< of G, callees first
  std::vector<unsigned> RegionOf; ///< by entry: the entry that names it
  unsigned ThreadsRegion = ~0u;   ///< main's and the thread starts'
};

} // namespace

StaticFrames planStaticFrames(Module &M, const bound::Settings &S,
                              const PlannedFunctions &Plans,
                              FrameLayoutFn Layout) {
  return Planner(M, S, Plans, Layout).run();
}

} // namespace scopealloc
