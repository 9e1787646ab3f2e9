//===- FrameLayout.h - Offsets of demoted allocas in one frame --*- C++ -*-===//
//
// All constant-size entry allocas that move to one pool share one frame, so
// a function costs one bump. Like stack colouring on the machine stack,
// allocas whose lifetimes (llvm.lifetime.start/end) never overlap may share
// bytes, so buffers with disjoint lifetimes do not add up in the pool.
// Under stack protection each alloca is followed by its canary, which is
// live for the whole frame: no other alloca ever shares its bytes.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_FRAMELAYOUT_H
#define SCOPEALLOC_FRAMELAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Alignment.h"

namespace llvm {
class AllocaInst;
class Function;
} // namespace llvm

namespace scopealloc {

struct FrameLayout {
  /// The allocas in placement order, and the offset of each.
  llvm::SmallVector<llvm::AllocaInst *, 8> Allocas;
  llvm::SmallVector<uint64_t, 8> Offsets;
  /// The offset of each alloca's canary (right after it, unaligned), when
  /// the layout reserved canaries.
  llvm::SmallVector<uint64_t, 8> CanaryOffsets;
  uint64_t Size = 0;
  llvm::Align Alignment;
};

/// Lays out \p Allocas (constant size, entry block) of \p F, each followed
/// by \p CanarySize bytes when non-zero. Must run while their lifetime
/// markers are still in place. \p LiveAcrossCallsLow puts the buffers
/// alive after some call first, so that what is live at the calls ends
/// low (a statically planned frame's callees start there).
FrameLayout layoutFrame(const llvm::Function &F,
                        llvm::ArrayRef<llvm::AllocaInst *> Allocas,
                        uint64_t CanarySize = 0,
                        bool LiveAcrossCallsLow = false);

} // namespace scopealloc

#endif
