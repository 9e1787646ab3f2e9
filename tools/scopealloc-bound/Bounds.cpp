//===- Bounds.cpp - Worst-case stack and pool use per entry point ---------===//
#include "Bounds.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
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

class Solver {
public:
  Solver(const CallGraph &G, const Settings &S)
      : G(G), S(S), Resources(1 + G.Pools.size()) {}

  Bounds run() {
    findComponents();
    Val.assign(Resources, std::vector<Value>(Components.size()));
    for (unsigned C = 0; C < Components.size(); ++C) // callees first
      for (unsigned R = 0; R < Resources; ++R)
        solve(C, R);
    Bounds B;
    for (const EntryPoint &E : G.Entries)
      B.Entries.push_back(entry(E));
    return B;
  }

private:
  std::string resourceName(unsigned R) const {
    return R == 0 ? "stack" : G.Pools[R - 1];
  }

  /// Tarjan's algorithm, iteratively: components come out callees first.
  void findComponents() {
    unsigned N = G.Nodes.size();
    ComponentOf.assign(N, -1);
    std::vector<int> Index(N, -1), Low(N, 0);
    std::vector<bool> OnStack(N, false);
    std::vector<unsigned> Stack;
    int Next = 0;
    struct Frame {
      unsigned Node, Edge;
    };
    for (unsigned Root = 0; Root < N; ++Root) {
      if (Index[Root] >= 0)
        continue;
      std::vector<Frame> Work{{Root, 0}};
      Index[Root] = Low[Root] = Next++;
      Stack.push_back(Root);
      OnStack[Root] = true;
      while (!Work.empty()) {
        Frame &F = Work.back();
        const std::vector<unsigned> &Out = G.Nodes[F.Node].Callees;
        if (F.Edge < Out.size()) {
          unsigned W = Out[F.Edge++];
          if (Index[W] < 0) {
            Index[W] = Low[W] = Next++;
            Stack.push_back(W);
            OnStack[W] = true;
            Work.push_back({W, 0});
          } else if (OnStack[W]) {
            Low[F.Node] = std::min(Low[F.Node], Index[W]);
          }
          continue;
        }
        unsigned V = F.Node;
        Work.pop_back();
        if (!Work.empty())
          Low[Work.back().Node] = std::min(Low[Work.back().Node], Low[V]);
        if (Low[V] != Index[V])
          continue;
        std::vector<unsigned> Members;
        unsigned W;
        do {
          W = Stack.back();
          Stack.pop_back();
          OnStack[W] = false;
          ComponentOf[W] = Components.size();
          Members.push_back(W);
        } while (W != V);
        std::reverse(Members.begin(), Members.end());
        bool Cycle = Members.size() > 1 || is_contained(G.Nodes[V].Callees, V);
        std::optional<uint64_t> Depth;
        std::string DepthFrom;
        if (Cycle)
          for (unsigned M : Members) {
            const Node &Nd = G.Nodes[M];
            std::optional<uint64_t> D;
            std::string From;
            if (auto It = S.RecursionDepth.find(Nd.Name);
                It != S.RecursionDepth.end()) {
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
  }

  /// A function's own use of resource \p R per call.
  ChainStep own(unsigned N, unsigned R) const {
    const Node &Nd = G.Nodes[N];
    ChainStep St;
    St.Node = N;
    if (R == 0) {
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
      auto It = Nd.PoolBytes.find(G.Pools[R - 1]);
      St.Frame = St.Bytes = It == Nd.PoolBytes.end() ? 0 : It->second;
      St.Assumed = !Nd.Facts && Nd.Assumed;
    }
    St.Unknown = any_of(Nd.Causes, [&](const Cause &C) {
      return R == 0 ? C.affectsStack() : C.affectsPool(G.Pools[R - 1]);
    });
    return St;
  }

  void solve(unsigned C, unsigned R) {
    const Component &Comp = Components[C];
    Value &V = Val[R][C];
    // The member with the largest own use, and whether any is unknown.
    ChainStep Largest = own(Comp.Members.front(), R);
    bool Unknown = false;
    for (unsigned M : Comp.Members) {
      ChainStep St = own(M, R);
      Unknown |= St.Unknown;
      if (St.Bytes > Largest.Bytes)
        Largest = St;
    }
    // The worst component called from outside this one.
    uint64_t Exit = 0;
    bool ExitUnbounded = false;
    for (unsigned M : Comp.Members)
      for (unsigned Callee : G.Nodes[M].Callees) {
        int D = ComponentOf[Callee];
        if (unsigned(D) == C)
          continue;
        const Value &CV = Val[R][D];
        ExitUnbounded |= CV.Unbounded;
        if (V.Next < 0 || CV.Bytes > Exit ||
            (CV.Bytes == Exit && CV.Unbounded && !Val[R][V.Next].Unbounded)) {
          Exit = CV.Bytes;
          V.Next = D;
        }
      }
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
      } else if (R == 0 || Largest.Bytes > 0) {
        CycleUnbounded = true; // counted once, as the known part
      }
    }
    // Sizes near 2^64 (an --assume) saturate.
    if (V.Overflow.empty() && Largest.Bytes == UINT64_MAX)
      V.Overflow = "its own use";
    bool Over = false;
    V.Bytes = SaturatingAdd(V.Step.Bytes, Exit, &Over);
    if (Over && V.Overflow.empty() && Exit != UINT64_MAX)
      V.Overflow = std::to_string(V.Step.Bytes) + " bytes over the " +
                   std::to_string(Exit) + " bytes of its callees";
    V.Unbounded = Unknown || ExitUnbounded || CycleUnbounded ||
                  !V.Overflow.empty() || V.Bytes == UINT64_MAX;
  }

  ResourceBound bound(unsigned C, unsigned R) const {
    ResourceBound B;
    B.Name = resourceName(R);
    B.Bytes = Val[R][C].Bytes;
    B.Bounded = !Val[R][C].Unbounded;
    for (int At = C; At >= 0; At = Val[R][At].Next)
      B.Chain.push_back(Val[R][At].Step);
    // A pool's chain ends with the last function that takes from it.
    if (R > 0)
      while (B.Chain.size() > 1 && !B.Chain.back().Bytes &&
             !B.Chain.back().Unknown)
        B.Chain.pop_back();
    return B;
  }

  EntryBound entry(const EntryPoint &E) const {
    EntryBound EB;
    EB.Entry = E;
    unsigned C = ComponentOf[E.Node];
    EB.Stack = bound(C, 0);
    if (E.Exception && S.ExceptionFrame) {
      ChainStep St;
      St.Node = ChainStep::ExceptionFrame;
      St.Bytes = St.Frame = S.ExceptionFrame;
      EB.Stack.Chain.insert(EB.Stack.Chain.begin(), St);
      bool Over = false;
      EB.Stack.Bytes = SaturatingAdd(EB.Stack.Bytes, S.ExceptionFrame, &Over);
      EB.Stack.Bounded &= !Over;
    }
    for (unsigned R = 1; R < Resources; ++R)
      if (Val[R][C].Bytes || Val[R][C].Unbounded)
        EB.Pools.push_back(bound(C, R));
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
        for (const std::string &P : G.Pools)
          if (C.affectsPool(P))
            C.Affects.push_back(P);
        Out.push_back(std::move(C));
      }
      unsigned Comp = ComponentOf[N];
      if (!SeenComponent[Comp]) {
        SeenComponent[Comp] = true;
        const Component &K = Components[Comp];
        if (K.Cycle && !K.Depth) {
          Cause C(Cause::Recursion);
          C.Node = K.Members.front();
          C.Cycle = K.Members;
          C.Affects.push_back("stack");
          for (unsigned R = 1; R < Resources; ++R)
            if (any_of(K.Members,
                       [&](unsigned M) { return own(M, R).Bytes > 0; }))
              C.Affects.push_back(G.Pools[R - 1]);
          Out.push_back(std::move(C));
        }
        for (unsigned R = 0; R < Resources; ++R)
          if (!Val[R][Comp].Overflow.empty()) {
            Cause C(Cause::Overflow);
            C.Node = Val[R][Comp].Step.Node;
            C.Detail = Val[R][Comp].Overflow;
            C.Affects.push_back(resourceName(R));
            Out.push_back(std::move(C));
          }
      }
      for (unsigned Callee : G.Nodes[N].Callees)
        if (!Seen[Callee]) {
          Seen[Callee] = true;
          Work.push_back(Callee);
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
  unsigned Resources;
  std::vector<int> ComponentOf;
  std::vector<Component> Components;
  std::vector<std::vector<Value>> Val; ///< [resource][component]
};

} // namespace

Bounds computeBounds(const CallGraph &G, const Settings &S) {
  return Solver(G, S).run();
}

} // namespace bound
} // namespace scopealloc
