//===- FrameLayout.cpp - Offsets of demoted allocas in one frame ----------===//
#include "placement/FrameLayout.h"
#include "LLVMCompat.h"
#include "placement/CallSiteLiveness.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Analysis/StackLifetime.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "scope-alloc-layout"

using namespace llvm;

namespace scopealloc {

FrameLayout layoutFrame(const Function &F, ArrayRef<AllocaInst *> Allocas,
                        uint64_t CanarySize, bool LiveAcrossCallsLow) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  FrameLayout L;
  L.Allocas.assign(Allocas.begin(), Allocas.end());
  SmallVector<const AllocaInst *, 8> Queried(Allocas.begin(), Allocas.end());
  StackLifetime Lifetimes(F, Queried, StackLifetime::LivenessType::May);
  Lifetimes.run();
  DenseMap<const AllocaInst *, unsigned> AcrossCalls;
  if (LiveAcrossCallsLow) {
    CallSiteLiveness Live = CallSiteLiveness::compute(F, Allocas);
    for (unsigned A = 0; A < Allocas.size(); ++A)
      AcrossCalls[Allocas[A]] = Live.CallsAcross[A];
  }
  // (Alive across the most calls first,) most aligned first, then
  // largest, then program order: little padding, and the same layout for
  // the same input.
  llvm::stable_sort(L.Allocas, [&](AllocaInst *A, AllocaInst *B) {
    if (AcrossCalls.lookup(A) != AcrossCalls.lookup(B))
      return AcrossCalls.lookup(A) > AcrossCalls.lookup(B);
    if (A->getAlign() != B->getAlign())
      return A->getAlign() > B->getAlign();
    return getAllocationSize(*A, DL)->getFixedValue() >
           getAllocationSize(*B, DL)->getFixedValue();
  });

  struct Placed {
    uint64_t Begin, End;
    /// Null for a canary: live for the whole frame.
    const StackLifetime::LiveRange *Live;
  };
  SmallVector<Placed, 16> Done;
  for (AllocaInst *AI : L.Allocas) {
    uint64_t Size = getAllocationSize(*AI, DL)->getFixedValue();
    const StackLifetime::LiveRange &Live = Lifetimes.getLiveRange(AI);
    // Lowest aligned offset at which the alloca overlaps no placed alloca
    // alive at the same time and no canary, and its canary no placed byte
    // (canaries are live for the whole frame) but for an identical canary,
    // which it shares; each conflict pushes the candidate past it, until
    // none is left.
    auto Conflicts = [&](const Placed &P, uint64_t Offset) {
      auto Overlaps = [&](uint64_t Begin, uint64_t End) {
        return Begin < P.End && P.Begin < End;
      };
      uint64_t DataEnd = Offset + Size;
      bool IsCanary = !P.Live;
      return (Overlaps(Offset, DataEnd) &&
              (IsCanary || P.Live->overlaps(Live))) ||
             (CanarySize && Overlaps(DataEnd, DataEnd + CanarySize) &&
              !(IsCanary && P.Begin == DataEnd));
    };
    uint64_t Offset = 0;
    for (bool Moved = true; Moved;) {
      Moved = false;
      for (const Placed &P : Done)
        if (Conflicts(P, Offset)) {
          Offset = alignTo(P.End, AI->getAlign());
          Moved = true;
        }
    }
    LLVM_DEBUG(dbgs() << "layout of " << F.getName() << ": ";
               AI->printAsOperand(dbgs(), false);
               dbgs() << " (" << Size << " bytes, align "
                      << AI->getAlign().value() << ") at offset " << Offset
                      << "\n");
    Done.push_back({Offset, Offset + Size, &Live});
    L.Offsets.push_back(Offset);
    if (CanarySize && !is_contained(L.CanaryOffsets, Offset + Size)) {
      Done.push_back({Offset + Size, Offset + Size + CanarySize, nullptr});
      L.CanaryOffsets.push_back(Offset + Size);
    }
    L.Size = std::max(L.Size, Offset + Size + CanarySize);
    L.Alignment = std::max(L.Alignment, AI->getAlign());
  }
  LLVM_DEBUG(dbgs() << "layout of " << F.getName() << ": " << L.Size
                    << " bytes, align " << L.Alignment.value() << ", "
                    << L.CanaryOffsets.size() << " canaries\n");
  return L;
}

} // namespace scopealloc
