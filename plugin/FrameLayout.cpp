//===- FrameLayout.cpp - Offsets of demoted allocas in one frame ----------===//
#include "FrameLayout.h"

#include "llvm/Analysis/StackLifetime.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace scopealloc {

FrameLayout layoutFrame(const Function &F, ArrayRef<AllocaInst *> Allocas) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  FrameLayout L;
  L.Allocas.assign(Allocas.begin(), Allocas.end());
  // Most aligned first, then largest, then program order: little padding,
  // and the same layout for the same input.
  llvm::stable_sort(L.Allocas, [&](AllocaInst *A, AllocaInst *B) {
    if (A->getAlign() != B->getAlign())
      return A->getAlign() > B->getAlign();
    return A->getAllocationSize(DL)->getFixedValue() >
           B->getAllocationSize(DL)->getFixedValue();
  });

  SmallVector<const AllocaInst *, 8> Queried(L.Allocas.begin(),
                                             L.Allocas.end());
  StackLifetime Lifetimes(F, Queried, StackLifetime::LivenessType::May);
  Lifetimes.run();

  struct Placed {
    uint64_t Begin, End;
    const StackLifetime::LiveRange *Live;
  };
  SmallVector<Placed, 8> Done;
  for (AllocaInst *AI : L.Allocas) {
    uint64_t Size = AI->getAllocationSize(DL)->getFixedValue();
    const StackLifetime::LiveRange &Live = Lifetimes.getLiveRange(AI);
    // Lowest aligned offset that overlaps no placed alloca alive at the same
    // time; each conflict pushes the candidate past it, until none is left.
    uint64_t Offset = 0;
    for (bool Moved = true; Moved;) {
      Moved = false;
      for (const Placed &P : Done)
        if (P.Live->overlaps(Live) && Offset < P.End &&
            P.Begin < Offset + Size) {
          Offset = alignTo(P.End, AI->getAlign());
          Moved = true;
        }
    }
    Done.push_back({Offset, Offset + Size, &Live});
    L.Offsets.push_back(Offset);
    L.Size = std::max(L.Size, Offset + Size);
    L.Alignment = std::max(L.Alignment, AI->getAlign());
  }
  return L;
}

} // namespace scopealloc
