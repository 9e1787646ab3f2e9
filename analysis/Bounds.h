//===- Bounds.h - Worst-case stack and pool use per entry point -*- C++ -*-===//
//
// Over the call graph's strongly connected components, callees first: the
// worst case of a function is its own use plus the worst of its callees',
// for the machine stack and for each pool separately, each with the chain
// that reaches it. A cycle is unbounded unless a depth is declared for it
// (--recursion-bound, 'recursion' in --config or in a --policy target, or
// SCOPEALLOC_RECURSION_BOUND in the source, which the others override):
// then it counts depth times its largest member's use; with depths on
// several of its functions, the smallest. What cannot be bounded still gets the
// part that is known, and the causes reachable from the entry are named.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_BOUNDS_H
#define SCOPEALLOC_BOUNDS_H

#include "BoundSettings.h"
#include "CallGraph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace scopealloc {
namespace bound {

/// One frame of a critical chain.
struct ChainStep {
  static constexpr unsigned ExceptionFrame = ~0u; ///< pseudo node
  unsigned Node = 0;
  uint64_t Bytes = 0;     ///< what the step adds, Repeat times included
  uint64_t Frame = 0;     ///< the function's own frame (or pool bytes)
  uint64_t Repeat = 1;    ///< a cycle's declared depth
  std::string RepeatFrom; ///< where the depth was declared
  bool Assumed = false;
  bool Unknown = false; ///< its own use is not known
};

/// An interrupt handler counted on top of an entry that it may preempt
/// (InterruptNesting.h): the largest of its priority level.
struct NestedHandler {
  unsigned Entry = 0; ///< its index in Bounds::Entries
  unsigned Node = 0;
  std::string Kind;   ///< its entry kind, "interrupt vector 15"
  uint64_t Bytes = 0; ///< its own worst case (exception frame included)
  bool Bounded = true;
  std::string Level; ///< "priority 2 ('interrupt-priorities' of ...)"
};

struct ResourceBound {
  std::string Name; ///< "stack" or the pool's name
  bool Bounded = true;
  uint64_t Bytes = 0; ///< the bound, or the known part when unbounded
  std::vector<ChainStep> Chain;
  /// With interrupt handlers that may preempt the entry: Bytes is OwnBytes
  /// (the chain's) plus theirs.
  uint64_t OwnBytes = 0;
  std::vector<NestedHandler> Nested;
};

struct EntryBound {
  EntryPoint Entry;
  ResourceBound Stack;
  std::vector<ResourceBound> Pools; ///< used or unbounded pools only
  std::vector<Cause> Causes;        ///< reachable from the entry
};

struct Bounds {
  std::vector<EntryBound> Entries;
  std::vector<std::string> Warnings;
};

Bounds computeBounds(const CallGraph &G, const Settings &S);

/// The entry points whose worst case uses \p Pool, by the threads they
/// run on: thread start routines (each run is a thread of its own, holding
/// a partition of a shared pool of its own) and the main thread's (main,
/// constructors, destructors, exit handlers: one partition between them).
/// Other entries (handlers, marked entries) run on a thread counted here
/// or on one the graph does not see.
struct PoolUsers {
  std::vector<const EntryBound *> ThreadStarts;
  std::vector<const EntryBound *> MainThread;
  /// The fewest threads that hold a partition of the pool over a run.
  size_t threads() const { return ThreadStarts.size() + !MainThread.empty(); }
};
PoolUsers poolUsers(const CallGraph &G, const Bounds &B,
                    const std::string &Pool);

} // namespace bound
} // namespace scopealloc

#endif
