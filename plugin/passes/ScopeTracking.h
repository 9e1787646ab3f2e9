//===- ScopeTracking.h - Keep !scope through the optimiser ------*- C++ -*-===//
//
// A code generator's scope must hold at every optimisation level, but the
// optimiser rebuilds allocas without their metadata:
//   - InstCombine turns the array-count form that MLIR, TVM and Halide emit,
//     `alloca float, i64 16384`, into `alloca [16384 x float]` (RAUW);
//   - SROA splits an aggregate into new allocas, each inserted right before
//     the one it splits, which it then deletes;
// and the scope-alloc pass only runs at the end of the pipeline.
//
// The tracker watches every function pass through the pass instrumentation
// (clang, opt and the LTO backends all give the plugin one): before a pass
// it notes the function's entry-block allocas and every scoped alloca, and
// after it puts the scope back on what took a scoped alloca's place:
//   - the alloca it was replaced with (a value handle follows RAUW);
//   - new allocas where a deleted one stood: by the instructions they took
//     over from it (a call that used it, or SROA's copy of one: the same
//     callee and global or argument operands), else by position
//     (between the surviving allocas around the deleted ones). When pieces
//     of differently scoped allocas cannot be told apart, a pool scope wins
//     over a stack scope over none: a piece of an unscoped buffer may then
//     move to a pool or stay on the stack (with the usual remark), but no
//     piece of a scoped buffer loses its scope.
// Allocas a pass creates from nothing stay unscoped.
//
// Two buffers a pass makes one (MemCpyOpt's stack move replaces one alloca
// with the other) keep the stricter scope, a pool over the stack: a warning
// names both when a stack scope gives way, an error when two pools' scopes
// meet. Around module passes it notes each function's scoped allocas; a
// function that afterwards runs another's code (MergeFunctions: a thunk,
// or replaced) whose buffers' scopes differ is an error when a pool scope
// is lost, a warning when a stack scope is.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_SCOPETRACKING_H
#define SCOPEALLOC_SCOPETRACKING_H

namespace llvm {
class PassInstrumentationCallbacks;
} // namespace llvm

namespace scopealloc {

/// Registers the tracker's callbacks; it lives as long as \p PIC.
void registerScopeTracking(llvm::PassInstrumentationCallbacks &PIC);

} // namespace scopealloc

#endif
