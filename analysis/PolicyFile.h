//===- PolicyFile.h - User-written stack-alloca policies --------*- C++ -*-===//
//
// A policy file (YAML, or JSON, which the same parser reads) names targets:
//
//   version: 1
//   pools: [npu_sram]                  # named pools targets may use
//   targets:
//     cortex-m4-8k:
//       triples: ["thumbv7em-*-eabi*"] # optional: applies to these triples
//       max-stack-alloca: 128
//       frame-budget: 1024
//       dynamic: demote                # keep | demote | reject
//       pool: workspace                # where unscoped demoted memory goes
//       stack-scope-over-budget: warn  # error (default) | warn
//       address-space-scopes: { 5: global.npu_sram }  # allocas in addrspace(5)
//       functions:                     # per function, over the target's
//         fir_filter: { frame-budget: 64 }  # (source annotations win)
//       # What scopealloc-bound checks (--check, and the links of the
//       # wrappers and scopealloc_enable()); the pass places nothing by it:
//       stack-bound: 8192              # worst-case stack of every entry
//       entries: { main: 4096, SysTick_Handler: 512 }  # per entry point
//       pool-sizes: { workspace: 16384 }  # worst-case use of each pool
//       recursion: { fib: 10 }         # frames of a call cycle, at most
//       interrupt-priorities: { SysTick_Handler: 2, USART1_IRQHandler: 1 }
//                                      # who preempts whom (as the NVIC: a
//                                      # lower number preempts a higher one)
//       rtos: freertos-cm4f            # the switch context of its tasks
//       tasks:                         # entry points on stacks of their own
//         net: { entry: net_task, stack: net_stack }  # bytes or a symbol
//         ui: { entry: ui_task, stack: 2048, switch-context: 36,
//               arena: ui_arena }     # its SCOPEALLOC_DEFINE_TASK_ARENA
//
// Every field is optional; what a target leaves out comes from the layers
// below it. Errors name the file, line and key.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_POLICYFILE_H
#define SCOPEALLOC_POLICYFILE_H

#include "AllocatorSpec.h"
#include "PolicySettings.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace scopealloc {

/// A task of 'tasks': an entry point that runs on a stack of its own.
struct TaskDecl {
  std::string Name;
  std::string Entry;                     ///< its function's symbol name
  std::optional<uint64_t> StackBytes;    ///< 'stack' as a byte count
  std::string StackSymbol;               ///< 'stack' as the array's symbol
  std::optional<uint64_t> SwitchContext; ///< bytes its switcher pushes
  /// 'arena': the name given to SCOPEALLOC_DEFINE_TASK_ARENA, whose buffer
  /// serves the task's default-pool frames.
  std::string Arena;
  /// 'pools': its partition of each named pool (the bytes it passes to
  /// scopealloc_task_add_pool), which its use of that pool is held to.
  std::map<std::string, uint64_t> Pools;
  unsigned Line = 0;
};

/// 'rtos': the RTOS ports whose context switch the bound knows, the bytes
/// their switcher pushes on the task's stack beyond the exception frame,
/// without and with floating-point state. Empty Name: not found.
struct RtosPort {
  llvm::StringRef Name;
  uint64_t Switch = 0, SwitchFP = 0;
  llvm::StringRef Why; ///< where the numbers come from
};
llvm::ArrayRef<RtosPort> rtosPorts();
const RtosPort *findRtosPort(llvm::StringRef Name);

/// What a target declares for scopealloc-bound: bounds it checks and the
/// depths of call cycles. Names are symbol names; in file order.
struct BoundFields {
  std::optional<uint64_t> StackBound; ///< every entry without its own
  std::vector<std::pair<std::string, uint64_t>> Entries;   ///< stack bounds
  std::vector<std::pair<std::string, uint64_t>> PoolSizes; ///< pool -> bytes
  std::vector<std::pair<std::string, uint64_t>> Recursion; ///< fn -> depth
  /// Interrupt handler -> priority (lower preempts higher), with its line.
  std::vector<std::pair<std::string, int64_t>> InterruptPriorities;
  std::vector<TaskDecl> Tasks;
  std::string Rtos; ///< a name of rtosPorts(), or ""

  /// Whether a link must be checked against it.
  bool declaresBound() const {
    return StackBound || !Entries.empty() || !PoolSizes.empty() ||
           !Tasks.empty();
  }
};

struct PolicyTarget {
  std::string Name;
  std::vector<std::string> TriplePatterns; ///< glob patterns
  PolicyFields Fields;
  /// 'functions': settings of single functions (by symbol name), a layer
  /// between the pass's parameters and the function's own attributes.
  std::vector<std::pair<std::string, PolicyFields>> Functions;
  /// The line of each entry of Functions in the file (0: not from a file).
  std::vector<unsigned> FunctionLines;
  BoundFields Bounds;

  /// The settings 'functions' gives \p Function, or nullptr.
  const PolicyFields *functionFields(llvm::StringRef Function) const;
};

struct PolicyFile {
  std::string Path;
  std::vector<std::string> Pools;
  std::vector<unsigned> PoolLines; ///< the line of each of Pools
  std::vector<PolicyTarget> Targets;
  /// 'allocators': calls scope-alloc-promote may turn into stack buffers,
  /// beside the built-in ones (WorkspaceAllocators.h).
  std::vector<AllocatorSpec> Allocators;
  /// Accepted with a warning (e.g. no 'version'); reported per module.
  std::vector<std::string> Warnings;

  const PolicyTarget *findTarget(llvm::StringRef Name) const;
  /// The first target whose triple patterns match \p Triple.
  const PolicyTarget *matchTriple(llvm::StringRef Triple) const;
};

/// Limits on what a policy file may be: larger or deeper files are
/// rejected before llvm::yaml sees them (its parser recurses per level).
inline constexpr uint64_t MaxPolicyFileBytes = 1 << 20;
inline constexpr size_t MaxPolicyNesting = 64;

/// Reads and checks \p Path (a regular file of at most MaxPolicyFileBytes);
/// parsed files are cached by path. The error text is "file:line:col: message"
/// for each problem.
llvm::Expected<std::shared_ptr<const PolicyFile>>
loadPolicyFile(llvm::StringRef Path);

} // namespace scopealloc

#endif
