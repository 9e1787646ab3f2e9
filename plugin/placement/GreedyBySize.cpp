//===- GreedyBySize.cpp - USMP's greedy-by-size offsets, a reference ------===//
#include "placement/GreedyBySize.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <numeric>
#include <vector>

using namespace llvm;

namespace scopealloc {

uint64_t greedyBySize(ArrayRef<PlannedBuffer> Buffers,
                      function_ref<bool(unsigned, unsigned)> Conflict) {
  std::vector<unsigned> Order(Buffers.size());
  std::iota(Order.begin(), Order.end(), 0);
  // Largest first; ties in the given order, so the plan is the same for
  // the same input.
  llvm::stable_sort(Order, [&](unsigned A, unsigned B) {
    return Buffers[A].Size > Buffers[B].Size;
  });
  struct Placed {
    uint64_t Begin, End;
    unsigned Buffer;
  };
  std::vector<Placed> Done; // by Begin
  uint64_t Size = 0;
  for (unsigned B : Order) {
    const PlannedBuffer &Buf = Buffers[B];
    // One pass over the conflicting buffers in offset order: each overlap
    // moves the candidate past it, and none before can overlap again.
    uint64_t Offset = 0;
    for (const Placed &P : Done)
      if (P.Begin < Offset + Buf.Size && Offset < P.End &&
          Conflict(P.Buffer, B))
        Offset = alignTo(P.End, Buf.Alignment);
    Placed New{Offset, Offset + Buf.Size, B};
    Done.insert(llvm::upper_bound(Done, New,
                                  [](const Placed &L, const Placed &R) {
                                    return L.Begin < R.Begin;
                                  }),
                New);
    Size = std::max(Size, New.End);
  }
  return Size;
}

} // namespace scopealloc
