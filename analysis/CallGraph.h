//===- CallGraph.h - Functions, calls, entry points -------------*- C++ -*-===//
//
// The one call graph of a whole program, with the rules that
// scopealloc-bound checks an image by and the pass's stack-bound fit
// estimates by (both build it from a ProgramImage, then Bounds.h).
//
// One node per function: those with a record, a frame size or a function
// symbol in the image, and those called by name but defined elsewhere (a
// shared library). Edges are the records' direct calls (by address, else by
// name) and their indirect calls, resolved by type among the address-taken
// functions (flagged in a record, referenced by one, or stored in the
// image's data) through one shared node per type (Node::TargetSet). What makes
// a node's own use unbounded is a Cause. Entry points: main, thread start
// routines, interrupt handlers (vector table, and *_Handler names on bare
// metal), constructors and destructors (.init_array, ...), exit, fork and
// thread exit handlers, signal handlers, functions marked in the source, a
// policy's 'entries', and --entry. The handlers that a library call runs
// before it returns are also its callees: qsort's comparator, fork's
// handlers, and everything exit() and pthread_exit() run (exit handlers,
// static destructors, thread exit handlers) on top of their callers.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_CALLGRAPH_H
#define SCOPEALLOC_CALLGRAPH_H

#include "BoundSettings.h"
#include "ProgramImage.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace scopealloc {
namespace bound {

/// Why a bound does not exist.
struct Cause {
  enum KindTy {
    Recursion,    ///< a call cycle with no declared depth
    IndirectCall, ///< an indirect call no address-taken function matches
    DynamicStack, ///< a dynamic allocation left on the machine stack
    DynamicPool,  ///< a dynamic allocation in a pool (per pool)
    NoFacts,      ///< a call into code without facts nor an assumed size
    NoFrameSize,  ///< facts but no .stack_sizes entry
    Overflow,     ///< a worst case past 2^64 - 1 bytes (set by computeBounds)
    Interrupt,    ///< an unbounded interrupt handler that may preempt the
                  ///< entry (InterruptNesting.h; its causes are its own)
  } Kind;
  explicit Cause(KindTy Kind) : Kind(Kind) {}
  unsigned Node = 0;           ///< where (NoFacts: the code without facts)
  unsigned Caller = ~0u;       ///< NoFacts: one caller
  std::string Detail;          ///< type, allocation name, ...
  std::string Pool;            ///< DynamicPool
  unsigned Line = 0;           ///< DynamicStack/DynamicPool
  std::vector<unsigned> Cycle; ///< Recursion: the cycle's functions
  /// "stack" and the pools it makes unbounded (set by computeBounds).
  std::vector<std::string> Affects;

  static const char *kindName(KindTy K);
  /// Whether it makes the stack, or pool \p Pool, unbounded.
  bool affectsStack() const;
  bool affectsPool(const std::string &Pool) const;
  /// Whether it makes every pool unbounded (unknown code could use any).
  bool affectsEveryPool() const;
};

struct Node {
  std::string Name;
  uint64_t Address = 0; ///< 0: not in the image
  const FunctionFacts *Facts = nullptr;
  std::optional<uint64_t> Frame;   ///< .stack_sizes
  std::optional<uint64_t> Assumed; ///< no facts: the assumed total stack
  std::string AssumedFrom;
  bool AddressTaken = false;
  /// Its address is handed to code the graph does not see (FactsFormat.h
  /// FlagAddressEscapes): that code may run it at any time, on any thread.
  bool AddressEscapes = false;
  /// Not a function: the address-taken functions of one type, which every
  /// indirect call of that type reaches. Callers have one edge to it and it
  /// has one to each of them, so that C call sites and T targets make
  /// C + T edges, not C x T. Its own use is zero; chains and cycles skip it.
  bool TargetSet = false;
  std::vector<unsigned> Callees; ///< no duplicates
  std::vector<Cause> Causes;     ///< of its own use (not recursion)
  /// Bytes per call it takes from each pool (display name), padding and
  /// constant-size dynamic allocations included.
  std::map<std::string, uint64_t> PoolBytes;

  /// Calls nothing (from its facts): it may use the red zone.
  bool isLeaf() const;
  std::string where() const; ///< "file:line" from its facts, or ""
};

/// How many runs of an entry point may be live at once.
enum class Concurrency {
  Once,      ///< one at a time: main, a constructor, an exit handler, an
             ///< interrupt handler (which does not preempt itself)
  PerThread, ///< one per thread: a thread start routine, a thread exit or
             ///< fork handler, an entry marked in the source or named
  Unknown,   ///< any number, nested too: a signal handler, a function
             ///< whose address is handed to code the graph does not see
};

struct EntryPoint {
  unsigned Node;
  std::string Kind;       ///< "main", "thread start", "interrupt vector 3", ...
  bool Exception = false; ///< entered by a hardware exception
  /// Of the most concurrent kind the program shows for it (a function that
  /// is two kinds of entry is the more concurrent one).
  Concurrency Runs = Concurrency::Once;
};

struct CallGraph {
  std::vector<Node> Nodes;
  std::vector<EntryPoint> Entries;
  std::vector<std::string> Pools; ///< display names, sorted
  std::vector<std::string> Warnings;
  unsigned WithFacts = 0, WithFrames = 0;
};

/// One cause of an unbounded result, as a sentence.
std::string causeText(const CallGraph &G, const Cause &C);

/// The display name of a pool: the default pool ("") is "workspace".
std::string poolName(const std::string &Pool);

/// Builds the graph of a linked image.
CallGraph buildCallGraph(const Image &Img, const Settings &S);

/// The strongly connected components of a graph, callees first.
struct Components {
  std::vector<int> Of;                        ///< by node
  std::vector<std::vector<unsigned>> Members; ///< each in the order found
  std::vector<bool> Cycle; ///< more than one member, or one that calls itself
};
/// Tarjan's algorithm, iteratively.
Components findComponents(const CallGraph &G);

/// The call overhead, red zone and exception frame of the image's machine.
void setMachineDefaults(const Image &Img, Settings &S);

/// The graph, with warnings about what the image lacks (records, frame
/// sizes, immediate binding): what the tool and its fuzz target bound.
CallGraph analyzeImage(const Image &Img, const Settings &S);

} // namespace bound
} // namespace scopealloc

#endif
