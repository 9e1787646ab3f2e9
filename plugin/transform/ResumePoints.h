//===- ResumePoints.h - Restore the arena at resume points ------*- C++ -*-===//
//
// Frames skipped by a C++ exception or a longjmp never run their releases.
// Like SafeStack with its unsafe stack pointer, every function that can
// resume after such a jump (a landing pad that catches, a call that returns
// twice) keeps the arena top it expects in a stack slot, and restores the
// default pool to it at those points: whatever the skipped frames took is
// freed at once, and nothing of the resuming frame is. In a coroutine
// before coro-split, the top is taken again after every suspension: its
// landing pads run in later resume calls, on the stack of whoever resumes.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_RESUMEPOINTS_H
#define SCOPEALLOC_RESUMEPOINTS_H

#include "llvm/ADT/SmallVector.h"

namespace llvm {
class CallInst;
class Function;
class Value;
} // namespace llvm

namespace scopealloc {

/// A runtime call that moves the default pool's top: an allocation
/// (ReleasedTo null: the top is past it), or a release to ReleasedTo.
struct PoolTopChange {
  llvm::CallInst *Call;
  llvm::Value *ReleasedTo;
};

/// True when \p F has a landing pad with catch or filter clauses from which
/// it can go on (a path to a `ret` or back to the pad: not a terminate pad
/// nor a rethrowing handler), or calls a returns_twice function (setjmp,
/// ...).
bool hasResumePoints(const llvm::Function &F);

/// Adds the expected-top slot and the restores. Runs after demotion, which
/// gives in \p Changes the calls it made that move the default pool
/// (FunctionDemotion::defaultPoolChanges); each of those, and each runtime
/// call of the default pool \p F had before, updates the slot.
void restoreArenaAtResumePoints(llvm::Function &F,
                                llvm::SmallVector<PoolTopChange, 8> Changes);

} // namespace scopealloc

#endif
