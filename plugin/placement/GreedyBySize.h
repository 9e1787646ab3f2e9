//===- GreedyBySize.h - USMP's greedy-by-size offsets, a reference -*- C++
//-*-===//
//
// TVM's unified static memory planner placed workspace buffers with
// "greedy by size": the largest buffer first, each at the lowest offset
// where it overlaps no placed buffer it conflicts with (may be live at the
// same time). The static frame plan keeps frames whole and stacks them
// along the call graph; this plans the same buffers one by one, so that
// the plan's region size has a reference beside it (a remark at the link,
// docs/static-planning.md).
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_GREEDYBYSIZE_H
#define SCOPEALLOC_GREEDYBYSIZE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Alignment.h"

#include <cstdint>

namespace scopealloc {

struct PlannedBuffer {
  uint64_t Size;
  llvm::Align Alignment;
};

/// The size of the region in which greedy-by-size places \p Buffers, where
/// \p Conflict(A, B) says whether buffers A and B may be live at once.
uint64_t greedyBySize(llvm::ArrayRef<PlannedBuffer> Buffers,
                      llvm::function_ref<bool(unsigned, unsigned)> Conflict);

} // namespace scopealloc

#endif
