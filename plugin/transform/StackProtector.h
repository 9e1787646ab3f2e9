//===- StackProtector.h - Canaries after demoted buffers --------*- C++ -*-===//
//
// A demoted buffer leaves the machine stack, so the canary that
// -fstack-protector{,-strong,-all} puts there no longer guards it. In
// functions with ssp, sspstrong or sspreq the pass therefore puts a canary
// right after each demoted static buffer (one per allocation, so that an
// overflow of one buffer into the next of the same frame is caught too),
// stores the target's stack guard there when the frame is allocated, and
// compares every canary with the guard before each release of the frame
// (ret, musttail call, resume), calling __stack_chk_fail on a mismatch.
//
// A demoted dynamic allocation (VLA, alloca(n)) gets a canary after it too;
// a stack slot per allocation site remembers the site's latest canary, which
// is checked at the exits and at each redirected stackrestore that frees it
// (earlier allocations of a site that runs repeatedly without a
// stackrestore in between are not checked).
//
// The guard is read the way the target's own stack protector reads it:
// the TLS slot of glibc/bionic/Fuchsia on x86 (honouring
// -mstack-protector-guard{,-reg,-offset,-symbol}), the thread pointer slot
// on AArch64 Android/Fuchsia, else llvm.stackguard, which codegen lowers to
// __stack_chk_guard or the target's LOAD_STACK_GUARD.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_STACKPROTECTOR_H
#define SCOPEALLOC_STACKPROTECTOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>

namespace llvm {
class AllocaInst;
class BasicBlock;
class Function;
class Instruction;
class IntegerType;
class Value;
} // namespace llvm

namespace scopealloc {

class DemotedCanaries {
public:
  explicit DemotedCanaries(llvm::Function &F);

  /// Whether \p F asks for stack protection and the target has a stack
  /// guard the pass knows how to read (not the MSVC cookie, not OpenBSD).
  static bool wanted(const llvm::Function &F);
  /// Bytes of one canary (the pointer size); 0 when \p F gets none.
  static uint64_t size(const llvm::Function &F);

  /// Stores the guard at each of \p Addrs, before \p Before; every release
  /// emitted later checks them.
  void place(llvm::Instruction *Before, llvm::ArrayRef<llvm::Value *> Addrs);
  /// Stores the guard at \p Addr, the canary of a dynamic allocation from
  /// the default pool (\p DefaultPool) or a named one, before \p Before;
  /// \p EntryPoint is where the function's entry code goes.
  void placeDynamic(llvm::Instruction *EntryPoint, llvm::Instruction *Before,
                    llvm::Value *Addr, bool DefaultPool);
  /// Compares every canary with the guard before \p Exit, branching to a
  /// shared cold block that calls __stack_chk_fail. Splits \p Exit's block;
  /// \p Exit starts the new block.
  void checkBefore(llvm::Instruction *Exit) { check(Exit, nullptr); }
  /// The same before \p Restore, which releases the default pool to
  /// \p Mark: for the dynamic canaries that release frees.
  void checkBeforeRestore(llvm::Instruction *Restore, llvm::Value *Mark) {
    check(Restore, Mark);
  }

private:
  llvm::Value *loadGuard(llvm::Instruction *Before);
  llvm::BasicBlock *failBlock();
  void check(llvm::Instruction *Before, llvm::Value *RestoreMark);

  struct DynamicSite {
    llvm::AllocaInst *Slot; ///< the site's latest canary, or null
    bool DefaultPool;
  };

  llvm::Function &F;
  llvm::IntegerType *IntPtr;
  llvm::SmallVector<llvm::Value *, 8> Addrs;
  llvm::SmallVector<DynamicSite, 4> Dynamic;
  /// A copy of the guard that a site with no live canary compares with.
  llvm::AllocaInst *GuardCopy = nullptr;
  llvm::BasicBlock *Fail = nullptr;
};

} // namespace scopealloc

#endif
