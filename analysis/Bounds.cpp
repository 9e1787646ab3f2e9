//===- Bounds.cpp - Worst-case stack and pool use per entry point ---------===//
#include "Bounds.h"
#include "InterruptNesting.h"
#include "LLVMCompat.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace llvm;

namespace scopealloc {
namespace bound {

namespace {

/// The worst case from one component, for one resource.
struct Value {
  uint64_t Bytes = 0;
  bool Unbounded = false;
  ChainStep Step; ///< the component's own step
  int Next = -1;  ///< the component the chain goes on to
  /// Its own part passes 2^64 - 1 bytes (a huge depth or size): unbounded.
  std::string Overflow;
};

/// Values are kept per component for the stack, for "any pool" (Generic)
/// and for each pool the component can reach a use of. A pool that nothing
/// below a component names (no frame bytes, no dynamic allocation in it)
/// has the Generic value there, whatever the pool: its own part is zero
/// everywhere below and only unknown code (which affects every pool) can
/// make it unbounded. So the work and memory follow the (component, pool)
/// pairs that can differ, not components x pools.
class Solver {
public:
  Solver(const CallGraph &G, const Settings &S) : G(G), S(S) {}

  Bounds run() {
    findComponents();
    // Target sets change the search's order, not the components: members
    // in the order of the graph without them, target sets last.
    std::vector<int> Order = callOrder();
    for (Component &K : Components)
      if (K.Members.size() > 1)
        llvm::sort(K.Members, [&](unsigned A, unsigned B) {
          return std::make_pair(unsigned(Order[A]), A) <
                 std::make_pair(unsigned(Order[B]), B);
        });
    ownPools();
    StackVal.resize(Components.size());
    GenericVal.resize(Components.size());
    PoolVal.resize(Components.size());
    ComponentPools.resize(Components.size());
    for (unsigned C = 0; C < Components.size(); ++C) { // callees first
      Calls Exits = calls(exits(C));
      Members Own = members(C);
      collectPools(C, Own, Exits);
      StackVal[C] = solve(C, Stack, Own, Exits);
      GenericVal[C] = solve(C, Generic, Own, Exits);
      PoolVal[C].reserve(ComponentPools[C].size());
      for (unsigned R : ComponentPools[C])
        PoolVal[C].push_back(solve(C, R, Own, Exits));
      pickTargets(C);
    }
    Bounds B;
    for (const EntryPoint &E : G.Entries)
      B.Entries.push_back(entry(E));
    nestInterrupts(G, S, B);
    return B;
  }

private:
  /// Resources: the stack, pool R (1 + its index in G.Pools), or any pool
  /// a component's own set does not hold.
  static constexpr unsigned Stack = 0, Generic = ~0u;

  std::string resourceName(unsigned R) const {
    return R == Stack ? "stack" : G.Pools[R - 1];
  }

  const Value &val(unsigned R, unsigned C) const {
    if (R == Stack)
      return StackVal[C];
    if (R != Generic) {
      const std::vector<unsigned> &Pools = ComponentPools[C];
      auto It = llvm::lower_bound(Pools, R);
      if (It != Pools.end() && *It == R)
        return PoolVal[C][It - Pools.begin()];
    }
    return GenericVal[C];
  }

  /// Picks the callee a chain goes on to, among callees in call order:
  /// the first of the largest, or of those the first unbounded.
  struct Pick {
    uint64_t Bytes = 0;
    bool AnyUnbounded = false; ///< of all the callees
    int Next = -1;             ///< the component picked
    bool NextUnbounded = false;

    void consider(uint64_t B, bool Unbounded, int Component,
                  bool ComponentUnbounded) {
      AnyUnbounded |= Unbounded;
      if (Next < 0 || B > Bytes ||
          (B == Bytes && ComponentUnbounded && !NextUnbounded)) {
        Bytes = B;
        Next = Component;
        NextUnbounded = ComponentUnbounded;
      }
    }
    void consider(const Pick &P) {
      consider(P.Bytes, P.AnyUnbounded, P.Next, P.NextUnbounded);
    }
  };

  /// What a call through target set \p T reaches for resource \p R: the
  /// pick among its targets, as a caller with an edge to each would have
  /// made it (one target or another, each call; the same for every caller,
  /// so made once).
  const Pick &targets(unsigned T, unsigned R) const {
    const TargetPicks &P = Picks.find(T)->second;
    if (R == Stack)
      return P.Stack;
    if (R != Generic) {
      const std::vector<unsigned> &Pools = ComponentPools[ComponentOf[T]];
      auto It = llvm::lower_bound(Pools, R);
      if (It != Pools.end() && *It == R)
        return P.Pools[It - Pools.begin()];
    }
    return P.Generic;
  }

  /// The picks of the target sets in component \p C, once it is solved.
  void pickTargets(unsigned C) {
    for (unsigned T : Components[C].Members) {
      if (!G.Nodes[T].TargetSet)
        continue;
      std::vector<Exit> Targets;
      for (unsigned Target : G.Nodes[T].Callees)
        Targets.push_back({unsigned(ComponentOf[Target]), false});
      Calls K = calls(std::move(Targets));
      TargetPicks &P = Picks[T];
      P.Stack = pick(K, Stack);
      P.Generic = K.Generic;
      for (unsigned R : ComponentPools[C])
        P.Pools.push_back(pick(K, R));
    }
  }

  /// Where a component's calls go: another component, or a target set
  /// called from outside its component (then one of its targets).
  struct Exit {
    unsigned Id;
    bool Targets;
  };

  Pick pickOf(const Exit &X, unsigned R) const {
    if (X.Targets)
      return targets(X.Id, R);
    const Value &V = val(R, X.Id);
    Pick P;
    P.consider(V.Bytes, V.Unbounded, X.Id, V.Unbounded);
    return P;
  }

  const std::vector<unsigned> &poolsOf(const Exit &X) const {
    return ComponentPools[X.Targets ? ComponentOf[X.Id] : X.Id];
  }

  /// The calls out of component \p C, in call order (members in order,
  /// each one's callees in order). A target set inside it (a cycle through
  /// an indirect call) stands for its targets outside, taken where its
  /// first caller calls it.
  std::vector<Exit> exits(unsigned C) const {
    const Component &Comp = Components[C];
    std::vector<Exit> Out;
    SmallVector<unsigned, 4> Expanded;
    for (unsigned M : Comp.Members) {
      if (G.Nodes[M].TargetSet && Comp.Members.size() > 1)
        continue;
      for (unsigned Callee : G.Nodes[M].Callees) {
        unsigned D = ComponentOf[Callee];
        bool TargetSet = G.Nodes[Callee].TargetSet;
        if (D != C) {
          Out.push_back(TargetSet ? Exit{Callee, true} : Exit{D, false});
          continue;
        }
        if (!TargetSet || is_contained(Expanded, Callee))
          continue;
        Expanded.push_back(Callee);
        for (unsigned T : G.Nodes[Callee].Callees)
          if (unsigned DT = ComponentOf[T]; DT != C)
            Out.push_back({DT, false});
      }
    }
    return Out;
  }

  /// A sequence of calls, what its Generic values pick, and per pool the
  /// positions of the calls that name it: the only ones whose value for
  /// that pool differs from their Generic one.
  struct Calls {
    std::vector<Exit> Exits;
    Pick Generic;
    int FirstUnbounded = -1; ///< of Generic values, where they go
    std::vector<std::pair<unsigned, unsigned>> Naming; ///< pool, position
  };

  Calls calls(std::vector<Exit> Exits) const {
    Calls K;
    K.Exits = std::move(Exits);
    for (unsigned I = 0; I < K.Exits.size(); ++I) {
      Pick P = pickOf(K.Exits[I], Generic);
      K.Generic.consider(P);
      if (P.NextUnbounded && K.FirstUnbounded < 0)
        K.FirstUnbounded = I;
      for (unsigned R : poolsOf(K.Exits[I]))
        K.Naming.push_back({R, I});
    }
    llvm::sort(K.Naming);
    return K;
  }

  /// The pick among calls \p K for resource \p R. For a pool, a call that
  /// does not name it has its Generic value: no bytes, and unbounded (where
  /// it goes) only if its value for the pool is too. So with some bytes,
  /// the pick is among the calls naming the pool; with none, it is the
  /// first call unbounded where it goes, else the first call.
  Pick pick(const Calls &K, unsigned R) const {
    if (R == Generic)
      return K.Generic;
    Pick P;
    if (R == Stack) {
      for (const Exit &X : K.Exits)
        P.consider(pickOf(X, R));
      return P;
    }
    if (K.Exits.empty())
      return P;
    auto Range = std::equal_range(
        K.Naming.begin(), K.Naming.end(), std::make_pair(R, 0u),
        [](const auto &A, const auto &B) { return A.first < B.first; });
    SmallVector<std::pair<unsigned, Pick>, 8> Named;
    uint64_t Max = 0;
    bool AnyUnbounded = K.Generic.AnyUnbounded;
    for (auto It = Range.first; It != Range.second; ++It) {
      Pick X = pickOf(K.Exits[It->second], R);
      Max = std::max(Max, X.Bytes);
      AnyUnbounded |= X.AnyUnbounded;
      Named.push_back({It->second, X});
    }
    if (Max > 0) {
      for (const auto &[Pos, X] : Named)
        if (X.Bytes == Max)
          P.consider(X);
    } else {
      int At = K.FirstUnbounded;
      for (const auto &[Pos, X] : Named)
        if (X.NextUnbounded && (At < 0 || int(Pos) < At)) {
          At = Pos;
          break;
        }
      if (At < 0)
        At = 0;
      auto Own = find_if(
          Named, [&](const auto &N) { return N.first == unsigned(At); });
      P = Own != Named.end() ? Own->second : pickOf(K.Exits[At], Generic);
    }
    P.AnyUnbounded = AnyUnbounded;
    return P;
  }

  /// A component's members, and per pool the positions of those that name
  /// it (by their own use).
  struct Members {
    std::vector<std::pair<unsigned, unsigned>> Naming; ///< pool, position
  };

  Members members(unsigned C) const {
    Members K;
    const std::vector<unsigned> &Ms = Components[C].Members;
    for (unsigned I = 0; I < Ms.size(); ++I)
      for (unsigned R : OwnPools[Ms[I]])
        K.Naming.push_back({R, I});
    llvm::sort(K.Naming);
    return K;
  }

  /// The components (callees first), with the recursion depth of each
  /// cycle that declares one.
  void findComponents() {
    bound::Components Found = bound::findComponents(G);
    ComponentOf = std::move(Found.Of);
    for (unsigned C = 0; C < Found.Members.size(); ++C) {
      std::vector<unsigned> &Members = Found.Members[C];
      bool Cycle = Found.Cycle[C];
      std::optional<uint64_t> Depth;
      std::string DepthFrom;
      if (Cycle)
        for (unsigned M : Members) {
          const Node &Nd = G.Nodes[M];
          std::optional<uint64_t> D;
          std::string From;
          if (auto It = S.RecursionDepth.find(Nd.Name);
              !Nd.TargetSet && It != S.RecursionDepth.end()) {
            D = It->second;
            From = S.RecursionFrom.lookup(Nd.Name);
          } else if (Nd.Facts && Nd.Facts->RecursionBound) {
            D = Nd.Facts->RecursionBound;
            From = "SCOPEALLOC_RECURSION_BOUND on " + Nd.Name;
          }
          if (D && (!Depth || *D < *Depth)) {
            Depth = D;
            DepthFrom = From;
          }
        }
      Components.push_back({std::move(Members), Cycle, Depth, DepthFrom});
    }
  }

  /// The order in which a depth-first search of the call graph without
  /// target sets (each caller with an edge to every target) first meets
  /// each function: a cycle's members in that order are what its chain ties
  /// and its printed cycle have always followed. Computed without those
  /// edges: every target before a target set's cursor has been met, so
  /// each search step past it moves the cursor, and the whole search takes
  /// the edges plus the targets once.
  std::vector<int> callOrder() const {
    unsigned N = G.Nodes.size();
    std::vector<int> Order(N, -1);
    std::vector<unsigned> Cursor(N, 0);
    int Next = 0;
    struct Frame {
      unsigned Node, Edge, Pos; ///< Pos: in the target set at Edge
    };
    for (unsigned Root = 0; Root < N; ++Root) {
      if (Order[Root] >= 0 || G.Nodes[Root].TargetSet)
        continue;
      Order[Root] = Next++;
      std::vector<Frame> Work{{Root, 0, 0}};
      while (!Work.empty()) {
        Frame &F = Work.back();
        const std::vector<unsigned> &Out = G.Nodes[F.Node].Callees;
        if (F.Edge >= Out.size()) {
          Work.pop_back();
          continue;
        }
        unsigned W = Out[F.Edge], Met;
        if (!G.Nodes[W].TargetSet) {
          ++F.Edge;
          Met = W;
        } else {
          const std::vector<unsigned> &Targets = G.Nodes[W].Callees;
          F.Pos = std::max(F.Pos, Cursor[W]);
          if (F.Pos >= Targets.size()) {
            ++F.Edge;
            F.Pos = 0;
            continue;
          }
          Met = Targets[F.Pos++];
          Cursor[W] = F.Pos;
        }
        if (Order[Met] < 0) {
          Order[Met] = Next++;
          Work.push_back({Met, 0, 0});
        }
      }
    }
    return Order;
  }

  /// Per node, the pools (as resources) its own use names: bytes it takes,
  /// or a dynamic allocation that makes the pool unbounded.
  void ownPools() {
    OwnPools.resize(G.Nodes.size());
    auto Resource = [&](const std::string &Pool) -> std::optional<unsigned> {
      auto It = llvm::lower_bound(G.Pools, Pool);
      if (It == G.Pools.end() || *It != Pool)
        return std::nullopt; // never reported
      return 1 + unsigned(It - G.Pools.begin());
    };
    for (unsigned N = 0; N < G.Nodes.size(); ++N) {
      std::vector<unsigned> &Own = OwnPools[N];
      for (const auto &[Pool, Bytes] : G.Nodes[N].PoolBytes)
        if (std::optional<unsigned> R = Resource(Pool))
          Own.push_back(*R);
      for (const Cause &C : G.Nodes[N].Causes)
        if (C.Kind == Cause::DynamicPool)
          if (std::optional<unsigned> R = Resource(C.Pool))
            Own.push_back(*R);
      llvm::sort(Own);
      Own.erase(std::unique(Own.begin(), Own.end()), Own.end());
    }
  }

  /// The pools component \p C can reach a use of: its members' and those
  /// of what it calls (already collected, callees first).
  void collectPools(unsigned C, const Members &Own, const Calls &Exits) {
    std::vector<unsigned> &Pools = ComponentPools[C];
    for (const auto &[R, Pos] : Own.Naming)
      Pools.push_back(R);
    for (const auto &[R, Pos] : Exits.Naming)
      Pools.push_back(R);
    llvm::sort(Pools);
    Pools.erase(std::unique(Pools.begin(), Pools.end()), Pools.end());
    Pools.shrink_to_fit();
  }

  /// A function's own use of resource \p R per call.
  ChainStep own(unsigned N, unsigned R) const {
    const Node &Nd = G.Nodes[N];
    ChainStep St;
    St.Node = N;
    if (Nd.TargetSet)
      return St; // not a call: nothing of its own
    if (R == Stack) {
      if (Nd.Facts) {
        St.Frame = Nd.Frame.value_or(0);
        St.Bytes = SaturatingAdd(St.Frame, S.CallOverhead,
                                 Nd.isLeaf() ? S.RedZone : 0);
      } else if (Nd.Assumed) {
        St.Frame = *Nd.Assumed;
        St.Bytes = SaturatingAdd(St.Frame, S.CallOverhead);
        St.Assumed = true;
      } else {
        St.Frame = Nd.Frame.value_or(0);
        St.Bytes = SaturatingAdd(St.Frame, S.CallOverhead);
      }
    } else {
      if (R != Generic) {
        auto It = Nd.PoolBytes.find(G.Pools[R - 1]);
        St.Frame = St.Bytes = It == Nd.PoolBytes.end() ? 0 : It->second;
      }
      St.Assumed = !Nd.Facts && Nd.Assumed;
    }
    St.Unknown = any_of(Nd.Causes, [&](const Cause &C) {
      if (R == Stack)
        return C.affectsStack();
      if (R == Generic)
        return C.affectsEveryPool();
      return C.affectsPool(G.Pools[R - 1]);
    });
    return St;
  }

  Value solve(unsigned C, unsigned R, const Members &Own,
              const Calls &Exits) const {
    const Component &Comp = Components[C];
    Value V;
    // The member with the largest own use (the first of those), and
    // whether any is unknown. For a pool, the members that do not name it
    // take nothing and are unknown as for any pool.
    ChainStep Largest = own(Comp.Members.front(), R);
    bool Unknown = false;
    auto Member = [&](unsigned M) {
      ChainStep St = own(M, R);
      Unknown |= St.Unknown;
      if (St.Bytes > Largest.Bytes)
        Largest = St;
    };
    if (R == Stack || R == Generic) {
      for (unsigned M : Comp.Members)
        Member(M);
    } else {
      Unknown = GenericVal[C].Step.Unknown;
      auto Range = std::equal_range(
          Own.Naming.begin(), Own.Naming.end(), std::make_pair(R, 0u),
          [](const auto &A, const auto &B) { return A.first < B.first; });
      for (auto It = Range.first; It != Range.second; ++It)
        Member(Comp.Members[It->second]);
    }
    // The worst of what it calls.
    Pick Exit = pick(Exits, R);
    V.Next = Exit.Next;
    V.Step = Largest;
    V.Step.Unknown = Unknown;
    bool CycleUnbounded = false;
    if (Comp.Cycle) {
      bool Over = false;
      uint64_t Bytes =
          Comp.Depth ? SaturatingMultiply(Largest.Bytes, *Comp.Depth, &Over) : 0;
      if (Comp.Depth && !Over) {
        V.Step.Repeat = *Comp.Depth;
        V.Step.RepeatFrom = Comp.DepthFrom;
        V.Step.Bytes = Bytes;
      } else if (Over) { // counted once, as the known part
        V.Overflow = std::to_string(Largest.Bytes) + " bytes x" +
                     std::to_string(*Comp.Depth) + " (recursion depth; " +
                     Comp.DepthFrom + ")";
      } else if (R == Stack || Largest.Bytes > 0) {
        CycleUnbounded = true; // counted once, as the known part
      }
    }
    // Sizes near 2^64 (an --assume) saturate.
    if (V.Overflow.empty() && Largest.Bytes == UINT64_MAX)
      V.Overflow = "its own use";
    bool Over = false;
    V.Bytes = SaturatingAdd(V.Step.Bytes, Exit.Bytes, &Over);
    if (Over && V.Overflow.empty() && Exit.Bytes != UINT64_MAX)
      V.Overflow = std::to_string(V.Step.Bytes) + " bytes over the " +
                   std::to_string(Exit.Bytes) + " bytes of its callees";
    V.Unbounded = Unknown || Exit.AnyUnbounded || CycleUnbounded ||
                  !V.Overflow.empty() || V.Bytes == UINT64_MAX;
    return V;
  }

  ResourceBound bound(unsigned C, unsigned R) const {
    ResourceBound B;
    B.Name = resourceName(R);
    B.Bytes = val(R, C).Bytes;
    B.Bounded = !val(R, C).Unbounded;
    for (int At = C; At >= 0; At = val(R, At).Next)
      B.Chain.push_back(val(R, At).Step);
    // A pool's chain ends with the last function that takes from it.
    if (R != Stack)
      while (B.Chain.size() > 1 && !B.Chain.back().Bytes &&
             !B.Chain.back().Unknown)
        B.Chain.pop_back();
    return B;
  }

  EntryBound entry(const EntryPoint &E) const {
    EntryBound EB;
    EB.Entry = E;
    unsigned C = ComponentOf[E.Node];
    EB.Stack = bound(C, Stack);
    if (E.Exception && S.ExceptionFrame) {
      ChainStep St;
      St.Node = ChainStep::ExceptionFrame;
      St.Bytes = St.Frame = S.ExceptionFrame;
      EB.Stack.Chain.insert(EB.Stack.Chain.begin(), St);
      bool Over = false;
      EB.Stack.Bytes = SaturatingAdd(EB.Stack.Bytes, S.ExceptionFrame, &Over);
      EB.Stack.Bounded &= !Over;
    }
    // Every pool when unknown code makes them all unbounded; else only
    // those it reaches a use of (the others take nothing).
    auto Add = [&](unsigned R) {
      if (val(R, C).Bytes || val(R, C).Unbounded)
        EB.Pools.push_back(bound(C, R));
    };
    if (GenericVal[C].Bytes || GenericVal[C].Unbounded)
      for (unsigned R = 1; R <= G.Pools.size(); ++R)
        Add(R);
    else
      for (unsigned R : ComponentPools[C])
        Add(R);
    EB.Causes = reachableCauses(E.Node);
    return EB;
  }

  std::vector<Cause> reachableCauses(unsigned From) const {
    std::vector<bool> Seen(G.Nodes.size(), false);
    std::vector<bool> SeenComponent(Components.size(), false);
    std::vector<unsigned> Work{From};
    Seen[From] = true;
    std::vector<Cause> Out;
    while (!Work.empty()) {
      unsigned N = Work.back();
      Work.pop_back();
      for (Cause C : G.Nodes[N].Causes) {
        if (C.affectsStack())
          C.Affects.push_back("stack");
        if (C.affectsEveryPool())
          append_range(C.Affects, G.Pools);
        else if (C.Kind == Cause::DynamicPool &&
                 std::binary_search(G.Pools.begin(), G.Pools.end(), C.Pool))
          C.Affects.push_back(C.Pool);
        Out.push_back(std::move(C));
      }
      unsigned Comp = ComponentOf[N];
      if (!SeenComponent[Comp]) {
        SeenComponent[Comp] = true;
        const Component &K = Components[Comp];
        if (K.Cycle && !K.Depth) {
          Cause C(Cause::Recursion);
          for (unsigned M : K.Members)
            if (!G.Nodes[M].TargetSet)
              C.Cycle.push_back(M);
          C.Node = C.Cycle.front();
          C.Affects.push_back("stack");
          std::vector<unsigned> Pools; // those a member takes bytes from
          for (unsigned M : K.Members)
            for (unsigned R : OwnPools[M])
              if (own(M, R).Bytes > 0)
                Pools.push_back(R);
          llvm::sort(Pools);
          Pools.erase(std::unique(Pools.begin(), Pools.end()), Pools.end());
          for (unsigned R : Pools)
            C.Affects.push_back(G.Pools[R - 1]);
          Out.push_back(std::move(C));
        }
        auto NoteOverflow = [&](unsigned R) {
          const Value &V = val(R, Comp);
          if (V.Overflow.empty())
            return;
          Cause C(Cause::Overflow);
          C.Node = V.Step.Node;
          C.Detail = V.Overflow;
          C.Affects.push_back(resourceName(R));
          Out.push_back(std::move(C));
        };
        // Only the stack and the pools the component names can overflow
        // (the Generic value takes nothing of its own).
        NoteOverflow(Stack);
        for (unsigned R : ComponentPools[Comp])
          NoteOverflow(R);
      }
      // A target set's targets go where the caller's edge to it was, as
      // the caller's own edges to each used to.
      auto Push = [&](unsigned Callee) {
        if (Seen[Callee])
          return;
        Seen[Callee] = true;
        Work.push_back(Callee);
      };
      for (unsigned Callee : G.Nodes[N].Callees) {
        if (!G.Nodes[Callee].TargetSet) {
          Push(Callee);
          continue;
        }
        if (Seen[Callee])
          continue;
        Seen[Callee] = true;
        for (unsigned T : G.Nodes[Callee].Callees)
          Push(T);
      }
    }
    return Out;
  }

  struct Component {
    std::vector<unsigned> Members;
    bool Cycle;
    std::optional<uint64_t> Depth;
    std::string DepthFrom;
  };

  const CallGraph &G;
  const Settings &S;
  std::vector<int> ComponentOf;
  std::vector<Component> Components;
  std::vector<std::vector<unsigned>> OwnPools;       ///< per node
  std::vector<std::vector<unsigned>> ComponentPools; ///< per component, sorted
  std::vector<Value> StackVal, GenericVal;           ///< per component
  std::vector<std::vector<Value>> PoolVal; ///< per component, as its pools
  struct TargetPicks {
    Pick Stack, Generic;
    std::vector<Pick> Pools; ///< as the pools of its component
  };
  std::map<unsigned, TargetPicks> Picks; ///< per target set
};

} // namespace

Bounds computeBounds(const CallGraph &G, const Settings &S) {
  return Solver(G, S).run();
}

PoolUsers poolUsers(const CallGraph &G, const Bounds &B,
                    const std::string &Pool) {
  PoolUsers U;
  for (const EntryBound &E : B.Entries) {
    if (none_of(E.Pools, [&](const ResourceBound &R) {
          return R.Name == Pool && (R.Bytes || !R.Bounded);
        }))
      continue;
    StringRef Kind = E.Entry.Kind;
    if (Kind.starts_with("thread start"))
      U.ThreadStarts.push_back(&E);
    else if (Kind == "main" || Kind.starts_with("constructor") ||
             Kind.starts_with("destructor") || Kind == "exit handler")
      U.MainThread.push_back(&E);
  }
  return U;
}

} // namespace bound
} // namespace scopealloc
