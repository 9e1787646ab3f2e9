//===- BoundSettings.h - What the user tells scopealloc-bound ---*- C++ -*-===//
//
// Entry points, recursion depths and assumed stack sizes, from options and
// from a --config file, over a built-in table of assumed sizes for common
// libc, compiler-rt and ScopeAlloc runtime functions (code that carries no
// facts). A config file has one setting per line, '#' starts a comment:
//
//   entry <function>              an entry point
//   recursion <function> <depth>  the cycle through <function> holds at most
//                                 <depth> frames of its functions at once
//   assume <function> <bytes>     worst-case stack of <function>, callees
//                                 included (it uses no pool)
//   priority <handler> <number>   an interrupt handler's priority: a lower
//                                 number preempts a higher one, equal ones
//                                 do not nest (an NVIC's numbering)
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_BOUNDSETTINGS_H
#define SCOPEALLOC_BOUNDSETTINGS_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace scopealloc {
struct PolicyFile;
struct PolicyTarget;

namespace bound {

/// A bound that --check holds the image to, and where it was declared.
struct Limit {
  uint64_t Bytes = 0;
  std::string From; ///< "'stack-bound' of target 'm4' in policy.yaml"
};

struct Settings {
  std::vector<std::string> Entries;
  /// Those of Entries that a policy's 'entries' declares.
  std::set<std::string> PolicyEntries;
  llvm::StringMap<uint64_t> RecursionDepth;
  /// Where each depth of RecursionDepth was declared.
  llvm::StringMap<std::string> RecursionFrom;
  /// From --policy: the stack bound of every entry point, those of single
  /// entry points, and the sizes of pools.
  std::optional<Limit> StackBound;
  std::map<std::string, Limit> EntryBounds;
  std::map<std::string, Limit> PoolSizes;
  /// The policy file, and the target of it that --suggest-policy writes
  /// into (the tag's, else the one the triple matches).
  std::shared_ptr<const PolicyFile> Policy;
  const PolicyTarget *SuggestTarget = nullptr;
  std::string SuggestTargetWhy; ///< why there is none
  /// Interrupt handlers and their priorities, and where each was
  /// declared: who may preempt whom (Bounds.h nests them).
  struct Priority {
    int64_t Level = 0;
    std::string From;
  };
  std::map<std::string, Priority> InterruptPriorities;
  /// From a policy's 'tasks': entry points on stacks of their own (an
  /// RTOS's tasks on PSP); no interrupt handler nests on them.
  struct Task {
    std::string Name, Entry;
    uint64_t StackBytes = 0; ///< 0: the size of StackSymbol in the image
    std::string StackSymbol;
    std::optional<uint64_t> SwitchContext; ///< else the RTOS port's
    std::string Rtos;
    std::string From;  ///< "'tasks' of target 'm4' in p.yaml"
    std::string Arena; ///< its SCOPEALLOC_DEFINE_TASK_ARENA's name, or ""
    /// Its partitions of named pools (scopealloc_task_add_pool), bytes.
    std::map<std::string, uint64_t> Pools;
  };
  std::vector<Task> Tasks;
  /// The matched target's 'rtos' (for tasks found in the image), or "".
  std::string Rtos;
  /// The task whose entry is \p Function, or null.
  const Task *taskOfEntry(llvm::StringRef Function) const {
    for (const Task &T : Tasks)
      if (T.Entry == Function)
        return &T;
    return nullptr;
  }
  /// Whether \p Function is the entry of a task.
  bool isTaskEntry(llvm::StringRef Function) const {
    for (const Task &T : Tasks)
      if (T.Entry == Function)
        return true;
    return false;
  }
  llvm::StringMap<uint64_t> Assumed;
  /// Where each assumption came from ("built-in", a file:line, "option").
  llvm::StringMap<std::string> AssumedFrom;
  /// Bytes a call adds beyond the callee's frame (the return address that
  /// x86 pushes), and what a leaf may use below the stack pointer.
  uint64_t CallOverhead = 0, RedZone = 0;
  /// Bytes the hardware pushes when it enters an interrupt handler, and
  /// why that many when it is not the basic frame (exceptionFrame).
  uint64_t ExceptionFrame = 0;
  std::string ExceptionFrameWhy;
};

/// The built-in table of assumed sizes.
void addBuiltinAssumptions(Settings &S);

/// Reads the targets of policy file \p Path that apply (the one whose
/// triples match \p Triple, then the one named \p Tag, which overrides it)
/// into \p S: stack bounds, pool sizes, recursion depths.
llvm::Error readPolicy(llvm::StringRef Path, llvm::StringRef Tag,
                       llvm::StringRef Triple, Settings &S);

/// Adds what target \p T of policy file \p Path declares to \p S (later
/// targets override earlier ones). The stack-bound fit of the pass
/// (plugin/placement/BoundFit.h) reads the targets in force through it too.
void addTargetBounds(const PolicyTarget &T, llvm::StringRef Path, Settings &S);

/// Whether \p S holds a bound that --check enforces from a policy.
bool declaresBound(const Settings &S);

/// Reads a config file into \p S (later settings override earlier ones).
llvm::Error readConfig(llvm::StringRef Path, Settings &S);

/// A recursion depth of 0 is an error (as in a policy file), at \p Where.
llvm::Error checkDepth(llvm::StringRef Function, uint64_t Depth,
                       const llvm::Twine &Where);

/// "<handler>=<priority>", as --interrupt-priority takes it.
llvm::Error parsePriority(llvm::StringRef Text, Settings &S);

/// "<function>=<number>", as --assume and --recursion-bound take it.
llvm::Error parseAssignment(llvm::StringRef Text, llvm::StringRef Option,
                            llvm::StringMap<uint64_t> &Into);

} // namespace bound
} // namespace scopealloc

#endif
