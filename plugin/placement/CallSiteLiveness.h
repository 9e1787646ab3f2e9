//===- CallSiteLiveness.h - A frame's buffers live at each call -*- C++ -*-===//
//
// Which buffers of a demoted frame are alive while its function calls
// another: LLVM's StackLifetime (the lifetime markers clang writes for each
// block scope) asked after each call. A statically planned callee starts
// above only those (StaticFramePlan.h), and the greedy-by-size reference
// counts them as the callee's conflicts.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_CALLSITELIVENESS_H
#define SCOPEALLOC_CALLSITELIVENESS_H

#include "placement/FrameLayout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Analysis/StackLifetime.h"

#include <optional>
#include <vector>

namespace llvm {
class AllocaInst;
class Function;
} // namespace llvm

namespace scopealloc {

struct CallSiteLiveness {
  /// Bits index the buffers as given. Alive after some call of each direct
  /// callee, and after some indirect call.
  llvm::DenseMap<const llvm::Function *, llvm::BitVector> Direct;
  std::optional<llvm::BitVector> Indirect;
  /// Each buffer's live range, for overlaps inside the frame.
  std::vector<llvm::StackLifetime::LiveRange> Ranges;
  /// After how many calls each buffer is alive.
  std::vector<unsigned> CallsAcross;
  unsigned Buffers = 0;

  /// \p Buffers of \p F (constant-size allocas of its entry block); must
  /// run while their lifetime markers are in place.
  static CallSiteLiveness compute(const llvm::Function &F,
                                  llvm::ArrayRef<llvm::AllocaInst *> Buffers);

  /// The buffers alive while \p F runs, called directly from this frame's
  /// function; all of them when no direct call shows it (the graph's edge
  /// comes from elsewhere: the frame's own runtime calls).
  llvm::BitVector aliveAtCallsOf(const llvm::Function *F) const;
  /// The buffers alive while the target of one of its indirect calls runs
  /// (the graph's edge to a set of targets); all of them when it has none.
  llvm::BitVector aliveAtIndirectCalls() const;
};

/// The end of the highest of the \p Live buffers of \p L (0 for none).
uint64_t liveTop(const FrameLayout &L, const llvm::BitVector &Live);

} // namespace scopealloc

#endif
