//===- InterruptNesting.cpp - Handlers on top of what they preempt --------===//
#include "InterruptNesting.h"

#include "llvm/Support/MathExtras.h"

#include <map>
#include <optional>

using namespace llvm;

namespace scopealloc {
namespace bound {

namespace {

/// Whether entry \p E is an interrupt handler (it nests on others).
bool isInterruptHandler(const CallGraph &G, const Settings &S,
                        const EntryPoint &E) {
  return E.Exception || S.InterruptPriorities.count(G.Nodes[E.Node].Name);
}

struct Handler {
  size_t Entry;
  std::optional<int64_t> Priority;
  std::string Level;
};

/// A snapshot of an entry's own worst case of one resource.
struct Own {
  uint64_t Bytes = 0;
  bool Bounded = true;
  bool Present = false;
};

Own ownOf(const EntryBound &E, const std::string &Resource) {
  if (Resource == "stack")
    return {E.Stack.Bytes, E.Stack.Bounded, true};
  for (const ResourceBound &R : E.Pools)
    if (R.Name == Resource)
      return {R.Bytes, R.Bounded, true};
  return {};
}

} // namespace

void nestInterrupts(const CallGraph &G, const Settings &S, Bounds &B) {
  for (EntryBound &E : B.Entries) {
    E.Stack.OwnBytes = E.Stack.Bytes;
    for (ResourceBound &R : E.Pools)
      R.OwnBytes = R.Bytes;
  }
  std::vector<Handler> Handlers;
  for (size_t I = 0; I < B.Entries.size(); ++I) {
    const EntryPoint &E = B.Entries[I].Entry;
    if (!isInterruptHandler(G, S, E))
      continue;
    Handler H{I, std::nullopt, "no priority declared"};
    if (auto It = S.InterruptPriorities.find(G.Nodes[E.Node].Name);
        It != S.InterruptPriorities.end()) {
      H.Priority = It->second.Level;
      H.Level = "priority " + std::to_string(It->second.Level) + ", " +
                It->second.From;
    }
    Handlers.push_back(std::move(H));
  }
  if (Handlers.empty())
    return;
  // Every resource some handler uses, besides the stack.
  std::vector<std::string> Resources{"stack"};
  for (const Handler &H : Handlers)
    for (const ResourceBound &R : B.Entries[H.Entry].Pools)
      if (!is_contained(Resources, R.Name))
        Resources.push_back(R.Name);
  // Own values, read before any entry grows.
  std::vector<std::vector<Own>> Owns(Handlers.size());
  for (size_t H = 0; H < Handlers.size(); ++H)
    for (const std::string &R : Resources)
      Owns[H].push_back(ownOf(B.Entries[Handlers[H].Entry], R));

  for (size_t I = 0; I < B.Entries.size(); ++I) {
    EntryBound &E = B.Entries[I];
    // A task runs on a stack of its own: the handlers that preempt it run
    // on the main stack (Cortex-M's MSP), not on the task's; they do take
    // their pool memory from the task's arena, as from any code they
    // preempt.
    bool Task = S.isTaskEntry(G.Nodes[E.Entry.Node].Name) &&
                !isInterruptHandler(G, S, E.Entry);
    // The entry's own priority: none for a handler without one (anything
    // may preempt it) and for the code that handlers interrupt.
    std::optional<int64_t> Mine;
    for (const Handler &H : Handlers)
      if (H.Entry == I)
        Mine = H.Priority;
    // The handlers that may preempt it, grouped by level: a declared
    // priority is one group, an undeclared handler a group of its own.
    std::map<int64_t, std::vector<size_t>> Levels;
    std::vector<std::vector<size_t>> Groups;
    for (size_t H = 0; H < Handlers.size(); ++H) {
      if (Handlers[H].Entry == I)
        continue;
      if (!Handlers[H].Priority)
        Groups.push_back({H});
      else if (!Mine || *Handlers[H].Priority < *Mine)
        Levels[*Handlers[H].Priority].push_back(H);
    }
    for (auto &[Level, Members] : Levels)
      Groups.push_back(std::move(Members));
    if (Groups.empty())
      continue;
    for (size_t R = Task ? 1 : 0; R < Resources.size(); ++R) {
      std::vector<NestedHandler> Nested;
      for (const std::vector<size_t> &Group : Groups) {
        // The group's largest, an unbounded one first.
        std::optional<size_t> Worst;
        for (size_t H : Group) {
          const Own &O = Owns[H][R];
          if (!O.Present || (O.Bounded && !O.Bytes))
            continue;
          const Own *W = Worst ? &Owns[*Worst][R] : nullptr;
          if (!W || (!O.Bounded && W->Bounded) ||
              (O.Bounded == W->Bounded && O.Bytes > W->Bytes))
            Worst = H;
        }
        if (!Worst)
          continue;
        const Own &O = Owns[*Worst][R];
        const EntryPoint &HE = B.Entries[Handlers[*Worst].Entry].Entry;
        Nested.push_back({unsigned(Handlers[*Worst].Entry), HE.Node, HE.Kind,
                          O.Bytes, O.Bounded, Handlers[*Worst].Level});
      }
      if (Nested.empty())
        continue;
      ResourceBound *Into = nullptr;
      if (Resources[R] == "stack") {
        Into = &E.Stack;
      } else {
        for (ResourceBound &P : E.Pools)
          if (P.Name == Resources[R])
            Into = &P;
        if (!Into) {
          E.Pools.push_back(ResourceBound());
          Into = &E.Pools.back();
          Into->Name = Resources[R];
        }
      }
      for (NestedHandler &N : Nested) {
        bool Over = false;
        Into->Bytes = SaturatingAdd(Into->Bytes, N.Bytes, &Over);
        Into->Bounded &= N.Bounded && !Over;
        // An unbounded handler makes the sum unbounded: one cause per
        // handler names it (its own causes stay under its entry: copying
        // them to every entry it preempts grows as entries x handlers).
        if (!N.Bounded) {
          auto It = find_if(E.Causes, [&](const Cause &C) {
            return C.Kind == Cause::Interrupt && C.Node == N.Node;
          });
          if (It == E.Causes.end()) {
            Cause C(Cause::Interrupt);
            C.Node = N.Node;
            E.Causes.push_back(std::move(C));
            It = std::prev(E.Causes.end());
          }
          It->Affects.push_back(Resources[R]);
        }
        Into->Nested.push_back(std::move(N));
      }
    }
    llvm::sort(E.Pools, [](const ResourceBound &A, const ResourceBound &B) {
      return A.Name < B.Name;
    });
  }
}

} // namespace bound
} // namespace scopealloc
