//===- Tasks.h - The stack bound of each task of a policy -------*- C++ -*-===//
//
// A task (a policy's 'tasks') runs on a stack of its own: on a Cortex-M
// RTOS its stack holds its own worst chain, the exception frame the
// hardware pushes when it is preempted (32 bytes, 104 with FP state) and
// what the context switch pushes itself (the 'rtos' port's, or the task's
// 'switch-context'). The handlers run on the main stack (MSP) and are not
// counted here.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_BOUND_TASKS_H
#define SCOPEALLOC_BOUND_TASKS_H

#include "BoundSettings.h"
#include "Bounds.h"
#include "CallGraph.h"
#include "Image.h"

#include <string>
#include <vector>

namespace scopealloc {
namespace bound {

struct TaskBound {
  const Settings::Task *Task = nullptr;
  const EntryBound *Entry = nullptr; ///< null: the entry is not in the image
  uint64_t Chain = 0, ExceptionFrame = 0, SwitchContext = 0;
  std::string SwitchFrom; ///< "'rtos: pendsv' (a bare PendSV ...)"
  uint64_t Bytes = 0;     ///< the sum (the known part when unbounded)
  bool Bounded = true;
  /// The stack it has: 'stack' in bytes, or its array's size in the image
  /// (0 with StackProblem when the image has no such symbol).
  uint64_t StackBytes = 0;
  std::string StackFrom, StackProblem;
  /// With 'arena': its buffer (scopealloc_task_buffer_<arena>), which holds
  /// the task's default-pool frames and those of the handlers preempting
  /// it (Entry's pool 'workspace', or null when it uses none).
  uint64_t ArenaBytes = 0;
  std::string ArenaFrom, ArenaProblem;
  const ResourceBound *ArenaUse = nullptr;
  /// Its partition of each named pool its 'pools' gives (rounded up to 64
  /// bytes, as scopealloc_task_add_pool does) and its use of that pool,
  /// with the handlers that may preempt it (null: it uses none).
  struct PoolShare {
    std::string Pool;
    uint64_t Asked = 0, Bytes = 0;
    const ResourceBound *Use = nullptr;
  };
  std::vector<PoolShare> Shares;
};

/// Adds to \p S a task for each creation call of the image whose entry is
/// a function constant (facts TagTaskCreate: xTaskCreateStatic,
/// k_thread_create, ...) and that the policy's 'tasks' does not name: its
/// stack is the call's stack array (its size in the image) or its constant
/// size, its switch context the target's 'rtos', else FreeRTOS's port for
/// the image (CM4F with FP code, else CM3). Returns a warning for each task
/// whose switch context is not known (Zephyr, ThreadX with no 'rtos').
std::vector<std::string> addCreatedTasks(const Image &Img, Settings &S);

/// The symbol of the buffer SCOPEALLOC_DEFINE_TASK_ARENA(\p Arena, ...)
/// defines.
std::string taskArenaBuffer(llvm::StringRef Arena);

/// Whether entry \p E's use of \p Pool is a task's arena's, checked by
/// the task (a task with an 'arena' the image defines, the default pool;
/// a named pool its 'pools' gives it a partition of).
bool inTaskArena(const Image &Img, const CallGraph &G, const Settings &S,
                 const EntryBound &E, llvm::StringRef Pool);

std::vector<TaskBound> taskBounds(const Image &Img, const CallGraph &G,
                                  const Settings &S, const Bounds &B);

} // namespace bound
} // namespace scopealloc

#endif
