//===- Placement.h - Where a buffer's memory comes from ---------*- C++ -*-===//
//
// The placement rules, in one place for both passes. Per buffer, in order:
//   cannot-move   the IR needs it on the stack (inalloca, swifterror, ...)
//   scope-stack / scope-pool
//                 its scope decides
//   dynamic-size / dynamic-keep / dynamic-reject
//                 its size is only known at run time: the policy's rule
//   over-limit / within-limit
//                 its size against the policy's limit
// then per function:
//   over-budget   the kept buffers must fit the frame budget; those that must
//                 stay count first, the others by benefit (FrameBudget.h)
//   with-dynamic  dynamic allocas move together (llvm.stackrestore)
// then, over the whole program (full LTO, BoundFit.h):
//   fit-stack-bound  kept buffers on an entry point's critical call chain
//                 move while its estimated stack exceeds the policy's bound
//
// scope-alloc plans every alloca with FunctionPlanner; scope-alloc-promote
// asks placeByScope/placeBuffer whether a workspace call may become an
// alloca, and promotes only what fits the frame budget beside
// stackBytesKept, so that scope-alloc never moves a promoted buffer back.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_PLACEMENT_H
#define SCOPEALLOC_PLACEMENT_H

#include "placement/AllocaDecision.h"
#include "policy/StackPolicy.h"

#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace llvm {
class AllocaInst;
class MDNode;
class DataLayout;
class Function;
} // namespace llvm

namespace scopealloc {

/// What the per-buffer rules say about one buffer.
struct BufferVerdict {
  AllocaDecision::ActionTy Action;
  PlacementRule Rule;
  std::string Pool; ///< when it moves; empty = the default workspace pool
};

/// The verdict when \p S alone decides (the stack, or a pool), else
/// std::nullopt: the policy decides.
std::optional<BufferVerdict> placeByScope(const Scope &S);

/// The per-buffer rules after cannot-move: the scope, then the dynamic rule
/// when \p Size is unknown, then the limit.
BufferVerdict placeBuffer(const Scope &S, std::optional<uint64_t> Size,
                          const StackPolicy &P);

/// Why \p AI can never leave the stack, or an empty string. An alloca in
/// another address space than 0 may leave it when \p P gives that address
/// space a scope.
std::string whyPinned(const llvm::AllocaInst &AI, const llvm::DataLayout &DL,
                      const StackPolicy *P = nullptr);

/// The scope of \p AI: its !scope metadata, else the scope \p P gives its
/// address space, else none. The error says what is malformed.
llvm::Expected<Scope> allocaScope(const llvm::AllocaInst &AI,
                                  const StackPolicy &P);

/// "limit 1024 bytes (<source>)" and "frame budget 600 bytes (<source>)".
std::string limitText(const StackPolicy &P);
std::string budgetText(const StackPolicy &P);
/// The same in a remark's reason: the value alone ("limit 1024 bytes"), its
/// source only under -scope-alloc-remark-sources (the report lists every
/// setting's source beside the decisions).
std::string limitInReason(const StackPolicy &P);
std::string budgetInReason(const StackPolicy &P);
/// " (<Source>)" under -scope-alloc-remark-sources, else "".
std::string sourceInReason(const std::string &Source);

/// Bytes of \p F's static allocas that the per-buffer rules keep on the
/// stack (kept or cannot move): what a frame budget has to hold before any
/// workspace call is promoted. Allocas with a malformed scope count as
/// unscoped (scope-alloc reports them).
uint64_t stackBytesKept(const llvm::Function &F, const StackPolicy &P);

/// Plans the allocas of one function: the decisions, and the errors and
/// warnings the rules report.
class FunctionPlanner {
public:
  FunctionPlanner(llvm::Function &F, const StackPolicy &Policy);

  /// Fills Decisions; false when an error was reported (a malformed scope,
  /// a rejected allocation, a stack scope over the budget, a reserved pool).
  bool plan();
  /// Whether llvm.stacksave/stackrestore may follow the arena: no dynamic
  /// alloca stays on the machine stack.
  bool stackSaveMayMoveToArena() const;

  llvm::SmallVector<AllocaDecision, 8> Decisions;

private:
  void decide(AllocaDecision &D);
  /// The policy for \p AI's own placement: the function's, with the
  /// per-buffer settings its LTO compile step recorded (LTODeferral.h).
  const StackPolicy &bufferPolicy(const llvm::AllocaInst &AI);
  bool applyFrameBudget();
  void keepStackRestoreConsistent();

  llvm::Function &F;
  const llvm::DataLayout &DL;
  const StackPolicy &Policy;
  std::map<const llvm::MDNode *, StackPolicy> RecordedPolicies;
};

} // namespace scopealloc

#endif
