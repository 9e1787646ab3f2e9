//===- FrameBudget.h - Which allocas the frame budget keeps -----*- C++ -*-===//
//
// The frame budget bounds what the allocations that stay on the stack add up
// to. Those that must stay count first (the pass adds them up); the others
// stay in order of benefit (memory accesses per byte, then smaller, then
// program order) while they fit, and the rest move to a pool.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_FRAMEBUDGET_H
#define SCOPEALLOC_FRAMEBUDGET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>

namespace llvm {
class Value;
} // namespace llvm

namespace scopealloc {

/// How much the buffer \p Ptr of \p Size bytes gains from the stack: memory
/// accesses per byte (mem2reg and short stack addressing help most the
/// small, busy buffers). \p Ptr is an alloca, or the result of a workspace
/// call that promotion could make one.
double stackBenefit(const llvm::Value &Ptr, uint64_t Size);

/// A buffer that may stay on (or come to) the stack if the budget allows.
struct BudgetCandidate {
  const llvm::Value *Ptr;
  uint64_t Size;
};

/// The verdict on one candidate, in rank order.
struct BudgetChoice {
  /// Index into the candidates.
  unsigned Index;
  bool Stays;
  /// Bytes kept on the stack once this candidate was decided.
  uint64_t Used;
};

/// The indices of \p Candidates, most benefit first: accesses per byte,
/// then smaller, then given order. The frame budget keeps from the front;
/// the stack-bound fit (BoundFit.h) moves from the back. \p Benefits, when
/// given, receives each candidate's benefit.
llvm::SmallVector<unsigned, 8>
rankByBenefit(llvm::ArrayRef<BudgetCandidate> Candidates,
              llvm::SmallVectorImpl<double> *Benefits = nullptr);

/// Ranks \p Candidates by benefit and keeps each that still fits \p Budget
/// on top of the \p Used bytes that must stay anyway.
llvm::SmallVector<BudgetChoice, 8>
chooseWithinBudget(llvm::ArrayRef<BudgetCandidate> Candidates, uint64_t Used,
                   uint64_t Budget);

} // namespace scopealloc

#endif
