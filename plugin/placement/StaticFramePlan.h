//===- StaticFramePlan.h - Demoted frames at fixed offsets ------*- C++ -*-===//
//
// plan: static. At a whole-program link the call graph is known: a function
// whose demoted frame (the default pool's static buffers) can only be live
// once at a time, on one entry point's stack, gets a fixed offset in a
// region of that entry instead of the run-time bump. Its buffers are then
// the region's address plus a constant: no runtime call, no bump, no check,
// nothing to release on any way out (return, unwinding, longjmp).
//
// A function is planned when (each "no" is a remark naming why, and the
// frame keeps the bump):
//   - its policy says plan: static, and its frame is the default pool's
//     (a named pool's memory is placed by the application);
//   - exactly one entry point reaches it (main, a thread start routine, an
//     interrupt handler, a constructor, an RTOS task's entry, ...: two
//     entries may run at the same time), and that entry is not a signal
//     handler (which may interrupt itself). The entry of a policy's task
//     (one task per entry) is run by the scheduler as that task only: its
//     address, handed to the scheduler, does not make it an entry of
//     unknown concurrency, and its region is the task's;
//   - everything that entry reaches is closed: every indirect call
//     resolved, no call into code outside the program that is not known
//     to return without calling back;
//   - it is not in a call cycle (below one it is live once at a time
//     still), and only the graph can call it (local linkage and address
//     not taken, or taken only for the program's own dispatch tables), or
//     it is an entry itself;
//   - no function that code outside the program can call by name reaches
//     it: one not internalized (exported, named by an object outside the
//     LTO link) or kept by attribute 'used' (module asm, a linker script).
//     main, interrupt handlers and declared entries do not count.
// Offsets: in the topological order of the entry's graph, a function's
// frame starts above what is live of its callers' planned frames at each
// call that leads to it: at a direct call, the caller's buffers that
// StackLifetime finds alive after it (and all of them under stack
// protection, whose canaries are checked at the end); at an indirect call,
// or for an edge the function's calls do not show, the caller's whole
// frame. The region is as large as the deepest chain. A thread start
// routine's region, and that of an entry whose concurrency is unknown
// (marked in the source, a policy's or the command line's), is
// thread-local on a hosted target: one per thread.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_STATICFRAMEPLAN_H
#define SCOPEALLOC_STATICFRAMEPLAN_H

#include "BoundSettings.h"
#include "placement/FrameLayout.h"
#include "placement/ModuleProgram.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Alignment.h"

#include <cstdint>
#include <utility>

namespace llvm {
class AllocaInst;
class Function;
class GlobalVariable;
class Module;
} // namespace llvm

namespace scopealloc {

/// Where a planned function's default-pool frame lives.
struct StaticFrameAddress {
  llvm::GlobalVariable *Region = nullptr; ///< thread-local or not
  uint64_t Offset = 0;
  /// The frame as planned, which the demotion lays out: the offsets of
  /// its callees depend on it.
  FrameLayout Layout;
};
using StaticFrames = llvm::DenseMap<const llvm::Function *, StaticFrameAddress>;

/// The frame that demoting \p Allocas of a function lays out
/// (FrameLayout.h, canaries included, buffers live across calls lowest),
/// while their lifetime markers are in place.
using FrameLayoutFn = llvm::function_ref<FrameLayout(
    llvm::Function &, llvm::ArrayRef<llvm::AllocaInst *>)>;

/// Plans the frames of \p Plans whose policy says plan: static, creates
/// the regions in \p M and emits a remark per frame, planned or not.
StaticFrames planStaticFrames(llvm::Module &M, const bound::Settings &S,
                              const PlannedFunctions &Plans,
                              FrameLayoutFn Layout);

} // namespace scopealloc

#endif
