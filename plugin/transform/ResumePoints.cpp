//===- ResumePoints.cpp - Restore the arena where execution resumes -------===//
#include "transform/ResumePoints.h"
#include "LLVMCompat.h"
#include "transform/RuntimeABI.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

#define DEBUG_TYPE "scope-alloc-resume-points"

using namespace llvm;

namespace scopealloc {

/// The landing pads of \p F from which it can go on after catching: some
/// path from the pad reaches a `ret`, or comes back to the pad (a loop
/// around the code that threw, where the frames skipped by each throw would
/// pile up). From any other pad every path leaves by `resume` (a rethrow)
/// or by a call that does not return (std::terminate,
/// __cxa_call_unexpected, longjmp), and whoever goes on restores the arena:
/// the `resume` releases this frame, a catcher above restores its own top.
/// One pass over the CFG's strongly connected components, successors first.
static DenseSet<const BasicBlock *> padsThatGoOn(const Function &F) {
  DenseSet<const BasicBlock *> ReachesRet, Pads;
  for (auto SCC = scc_begin(&F); !SCC.isAtEnd(); ++SCC) {
    bool Returns = false;
    for (const BasicBlock *BB : *SCC)
      Returns = Returns || isa<ReturnInst>(BB->getTerminator()) ||
                any_of(successors(BB), [&](const BasicBlock *S) {
                  return ReachesRet.contains(S);
                });
    if (Returns)
      ReachesRet.insert(SCC->begin(), SCC->end());
    for (const BasicBlock *BB : *SCC)
      if (BB->isLandingPad() && (Returns || SCC.hasCycle()))
        Pads.insert(BB);
  }
  return Pads;
}

/// A landing pad with catch or filter clauses from which the function can
/// go on. C++ has many that cannot: clang's terminate pad (`catch ptr null`
/// calling __clang_call_terminate, for a throw out of a noexcept
/// destructor), a throw() filter's __cxa_call_unexpected, and the standard
/// library's `catch (...) { clean up; throw; }`. Counting those would keep
/// the runtime calls in most C++ functions with a destructor (issue 23).
static bool catches(const LandingPadInst &LP,
                    const DenseSet<const BasicBlock *> &GoOn) {
  return LP.getNumClauses() > 0 && GoOn.contains(LP.getParent());
}

/// A suspension point of a coroutine before coro-split: what follows it
/// runs when the coroutine resumes, in a later call of its resume function.
static bool isSuspend(const Instruction &I) {
  auto *II = dyn_cast<IntrinsicInst>(&I);
  if (!II)
    return false;
  switch (II->getIntrinsicID()) {
  case Intrinsic::coro_suspend:
  case Intrinsic::coro_suspend_retcon:
  case Intrinsic::coro_suspend_async:
    return true;
  default:
    return false;
  }
}

static bool returnsTwice(const Instruction &I) {
  auto *CB = dyn_cast<CallBase>(&I);
  return CB && CB->hasFnAttr(Attribute::ReturnsTwice);
}

bool hasResumePoints(const Function &F) {
  std::optional<DenseSet<const BasicBlock *>> GoOn; // when a pad catches
  for (const Instruction &I : instructions(F)) {
    if (auto *LP = dyn_cast<LandingPadInst>(&I); LP && LP->getNumClauses()) {
      if (!GoOn)
        GoOn = padsThatGoOn(F);
      if (catches(*LP, *GoOn))
        return true;
    }
    if (returnsTwice(I))
      return true;
  }
  return false;
}

void restoreArenaAtResumePoints(Function &F,
                                SmallVector<PoolTopChange, 8> Changes) {
  RuntimeABI RT(*F.getParent());
  Type *PtrTy = PointerType::getUnqual(F.getContext());
  IRBuilder<> B(&F.getEntryBlock(), F.getEntryBlock().begin());
  AllocaInst *Slot = B.CreateAlloca(PtrTy, nullptr, "scopealloc.top");
  // The slot's own alignment (the data layout's for a pointer: 4 on 32-bit
  // targets), never a guess.
  Align SlotAlign = Slot->getAlign();
  // Volatile: the value must come from memory after a second return, not
  // from a register the longjmp restored or a forwarded store.
  auto Remember = [&](IRBuilder<> &At, Value *Top) {
    At.CreateAlignedStore(Top, Slot, SlotAlign, /*isVolatile=*/true);
  };

  // The frame's own changes of the default pool, as demotion made them: its
  // allocs move the top up, its releases (stackrestore, returns) move it
  // down.
  SmallPtrSet<const CallInst *, 8> Made;
  for (const PoolTopChange &C : Changes)
    Made.insert(C.Call);
  SmallVector<Instruction *, 8> ResumePoints;
  SmallVector<Instruction *, 4> Suspends;
  Instruction *CoroBegin = nullptr;
  DenseSet<const BasicBlock *> GoOn = padsThatGoOn(F);
  for (Instruction &I : instructions(F)) {
    if (isSuspend(I))
      Suspends.push_back(&I);
    if (auto *II = dyn_cast<IntrinsicInst>(&I);
        II && II->getIntrinsicID() == Intrinsic::coro_begin)
      CoroBegin = II;
    // Runtime calls the function had before (a code generator's) change the
    // top too; only the runtime's names tell them.
    if (auto *CI = dyn_cast<CallInst>(&I);
        CI && !Made.contains(CI) && RT.changesDefaultPool(*CI))
      Changes.push_back(
          {CI, RT.isRelease(*CI) ? CI->getArgOperand(0) : nullptr});
    if (auto *LP = dyn_cast<LandingPadInst>(&I); LP && catches(*LP, GoOn))
      ResumePoints.push_back(LP);
    else if (returnsTwice(I) && isa<CallInst>(I))
      ResumePoints.push_back(&I);
  }

  // A coroutine before coro-split: the slot moves to the coroutine frame
  // (so it is written after the frame exists), and each resumption, on
  // whatever stack the resume call runs, starts from the top it finds then.
  if (CoroBegin)
    B.SetInsertPoint(CoroBegin->getNextNode());
  else
    B.SetInsertPoint(&*getFirstNonPHIOrDbgOrAlloca(F.getEntryBlock()));
  Remember(B, RT.mark(B, ""));
  for (Instruction *S : Suspends) {
    IRBuilder<> After(S->getNextNode());
    Remember(After, RT.mark(After, ""));
  }
  for (auto [Call, ReleasedTo] : Changes) {
    IRBuilder<> After(Call->getNextNode());
    Remember(After, ReleasedTo ? ReleasedTo : RT.mark(After, ""));
  }
  LLVM_DEBUG(dbgs() << "resume points of " << F.getName() << ": "
                    << ResumePoints.size() << ", following " << Changes.size()
                    << " changes of the default pool, " << Suspends.size()
                    << " suspensions\n");
  for (Instruction *I : ResumePoints) {
    IRBuilder<> After(&*I->getParent()->getFirstInsertionPt());
    if (!isa<LandingPadInst>(I))
      After.SetInsertPoint(I->getNextNode());
    Value *Top =
        After.CreateAlignedLoad(PtrTy, Slot, SlotAlign,
                                /*isVolatile=*/true, "scopealloc.top.reload");
    RT.release(After, "", Top);
  }
}

} // namespace scopealloc
