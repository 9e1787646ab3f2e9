//===- AllocaDemotion.h - Rewrite allocas into workspace memory -*- C++ -*-===//
//
// Given the allocas of one function that must leave the stack, replaces them
// with memory from the workspace runtime:
//   - entry-block allocas of constant size share one frame per pool: one mark
//     and one bump at entry, each alloca becomes an offset into the frame;
//   - other allocas (VLAs, alloca(n), allocas in loops) bump at their own
//     position; llvm.stacksave/stackrestore become mark/release of the
//     default pool so that a VLA in a loop is released every iteration,
//     and take/release marks of the named pools that serve such allocas;
//   - every way out of the function (ret, musttail call, resume) releases
//     back to the marks taken at entry;
//   - under a stack protector, each static demoted buffer is followed by a
//     canary checked before every release (StackProtector.h).
//
// It returns what it did (FunctionDemotion): the report takes each pool's
// frame size from it, and the resume points (ResumePoints.h) the calls that
// move the default pool, so that neither works the layout out again nor
// looks for runtime calls by name.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_ALLOCADEMOTION_H
#define SCOPEALLOC_ALLOCADEMOTION_H

#include "placement/StaticFramePlan.h"
#include "transform/ResumePoints.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Alignment.h"
#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class AllocaInst;
class CallInst;
class Function;
class Instruction;
class Value;
class raw_ostream;
} // namespace llvm

namespace scopealloc {

struct DemotionRequest {
  llvm::AllocaInst *Alloca;
  /// Pool to take the memory from; empty = the default workspace pool.
  std::string Pool;
};

/// A constant-size entry alloca, now a slice of its pool's frame.
struct DemotedStatic {
  std::string Name;               ///< the alloca's IR name (may be empty)
  llvm::Value *Address = nullptr; ///< what replaced it: frame + Offset
  uint64_t Offset = 0, Size = 0;  ///< bytes into the frame, bytes
  llvm::Align Alignment;
};

/// A VLA, alloca(n) or alloca in a loop, now its own runtime allocation.
struct DemotedDynamic {
  std::string Name;                ///< the alloca's IR name (may be empty)
  llvm::CallInst *Alloc = nullptr; ///< the runtime call that replaced it
  llvm::Value *Bytes = nullptr;    ///< bytes asked for, canary excluded
  llvm::Align Alignment;
  llvm::Value *CanaryAddress = nullptr; ///< its canary, under ssp
};

/// What one pool serves one function.
struct PoolFrame {
  std::string Pool; ///< empty = the default workspace pool
  /// The pool's position at entry, which every exit releases to: the mark
  /// call, or the phi of the inline bump.
  llvm::Value *Mark = nullptr;
  /// The first byte of the static frame: the allocation call, or the phi of
  /// the inline bump; null when the pool serves only dynamic allocations.
  llvm::Value *Frame = nullptr;
  /// Bumped inline (RuntimeABI::inlineFrame): no call marks or allocates it,
  /// and the releases are stores.
  bool Inline = false;
  /// Bytes and alignment of the one bump per call: padding, bytes shared by
  /// disjoint lifetimes and the canaries included (FrameLayout.h).
  uint64_t FrameSize = 0;
  llvm::Align FrameAlign;
  llvm::SmallVector<DemotedStatic, 8> Statics; ///< in placement order
  /// The canaries after the static buffers: offsets into the frame, and the
  /// addresses the guard is stored at.
  llvm::SmallVector<uint64_t, 4> CanaryOffsets;
  llvm::SmallVector<llvm::Value *, 4> CanaryAddresses;
  llvm::SmallVector<DemotedDynamic, 2> Dynamic; ///< in program order
  /// The releases back to Mark, one per exit: runtime calls, or the inline
  /// release's store.
  llvm::SmallVector<llvm::Instruction *, 4> Releases;
  /// A named pool's dynamic allocations follow llvm.stacksave/stackrestore:
  /// its marks taken beside each stacksave, and its releases to them beside
  /// each stackrestore.
  llvm::SmallVector<llvm::CallInst *, 2> SaveMarks, RestoreReleases;
};

/// One function's demotion.
struct FunctionDemotion {
  /// Each pool the function uses, in the order the marks are taken at entry
  /// (exits release them in reverse).
  llvm::SmallVector<PoolFrame, 2> Pools;
  /// The default pool's static frame when it is planned (plan: static,
  /// StaticFramePlan.h): at a fixed offset of a region, with no mark and
  /// no release; not one of Pools.
  std::optional<PoolFrame> Planned;
  /// llvm.stacksave and llvm.stackrestore redirected to the default pool:
  /// marks, and releases to their argument.
  llvm::SmallVector<llvm::CallInst *, 2> StackSaves;
  llvm::SmallVector<llvm::CallInst *, 2> StackRestores;

  bool empty() const { return Pools.empty(); }
  /// The frame of \p Pool ("" = default), or null when it serves nothing.
  const PoolFrame *pool(llvm::StringRef Pool) const;

  using TopChange = PoolTopChange;
  /// Every such call, in no particular order. The default pool must not
  /// have been bumped inline (its stores are no calls).
  llvm::SmallVector<TopChange, 8> defaultPoolChanges() const;

  /// A readable description, for -debug-only=scope-alloc-layout and tests.
  void print(llvm::raw_ostream &OS) const;
};

/// Whether every llvm.stackrestore of \p F restores the value of an
/// llvm.stacksave that dominates it (directly, or at -O0 through the slot
/// only that save is stored to), and there is one: then the named pools'
/// dynamic allocations are released at each stackrestore too
/// (memref.alloca_scope, a VLA in a loop), not only when the function returns.
bool namedPoolsFollowStackRestore(const llvm::Function &F);

/// Rewrites \p Requests (allocas of \p F) and returns what it did.
/// \p StackSaveMayMoveToArena says whether no dynamic alloca stays on the
/// machine stack, so stacksave and stackrestore can be redirected to the
/// default pool. With \p Planned, the default pool's static frame is at
/// that address.
FunctionDemotion demoteAllocas(llvm::Function &F,
                               llvm::ArrayRef<DemotionRequest> Requests,
                               bool StackSaveMayMoveToArena,
                               const StaticFrameAddress *Planned = nullptr);

} // namespace scopealloc

#endif
