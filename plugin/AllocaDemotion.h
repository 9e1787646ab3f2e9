//===- AllocaDemotion.h - Rewrite allocas into workspace memory -*- C++ -*-===//
//
// Given the allocas of one function that must leave the stack, replaces them
// with memory from the workspace runtime:
//   - entry-block allocas of constant size share one frame per pool: one mark
//     and one bump at entry, each alloca becomes an offset into the frame;
//   - other allocas (VLAs, alloca(n), allocas in loops) bump at their own
//     position; llvm.stacksave/stackrestore become mark/release of the
//     default pool so that a VLA in a loop is released every iteration;
//   - every way out of the function (ret, musttail call, resume) releases
//     back to the marks taken at entry;
//   - under a stack protector, each static demoted buffer is followed by a
//     canary checked before every release (StackProtector.h).
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_ALLOCADEMOTION_H
#define SCOPEALLOC_ALLOCADEMOTION_H

#include "llvm/ADT/ArrayRef.h"
#include <string>

namespace llvm {
class AllocaInst;
class Function;
} // namespace llvm

namespace scopealloc {

struct DemotionRequest {
  llvm::AllocaInst *Alloca;
  /// Pool to take the memory from; empty = the default workspace pool.
  std::string Pool;
};

/// Rewrites \p Requests (allocas of \p F). \p StackSaveMayMoveToArena says
/// whether no dynamic alloca stays on the machine stack, so stacksave and
/// stackrestore can be redirected to the default pool.
void demoteAllocas(llvm::Function &F, llvm::ArrayRef<DemotionRequest> Requests,
                   bool StackSaveMayMoveToArena);

} // namespace scopealloc

#endif
