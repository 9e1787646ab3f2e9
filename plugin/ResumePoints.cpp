//===- ResumePoints.cpp - Restore the arena where execution resumes -------===//
#include "ResumePoints.h"
#include "RuntimeABI.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace scopealloc {

static bool catches(const LandingPadInst &LP) { return LP.getNumClauses() > 0; }

static bool returnsTwice(const Instruction &I) {
  auto *CB = dyn_cast<CallBase>(&I);
  return CB && CB->hasFnAttr(Attribute::ReturnsTwice);
}

bool hasResumePoints(const Function &F) {
  for (const Instruction &I : instructions(F)) {
    if (auto *LP = dyn_cast<LandingPadInst>(&I); LP && catches(*LP))
      return true;
    if (returnsTwice(I))
      return true;
  }
  return false;
}

void restoreArenaAtResumePoints(Function &F) {
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

  // The frame's own changes of the default pool: its allocs move the top up,
  // its releases (stackrestore, returns) move it down.
  SmallVector<CallInst *, 8> Changes;
  SmallVector<Instruction *, 8> ResumePoints;
  for (Instruction &I : instructions(F)) {
    if (auto *CI = dyn_cast<CallInst>(&I); CI && RT.changesDefaultPool(*CI))
      Changes.push_back(CI);
    if (auto *LP = dyn_cast<LandingPadInst>(&I); LP && catches(*LP))
      ResumePoints.push_back(LP);
    else if (returnsTwice(I) && isa<CallInst>(I))
      ResumePoints.push_back(&I);
  }

  B.SetInsertPoint(F.getEntryBlock().getFirstNonPHIOrDbgOrAlloca());
  Remember(B, RT.mark(B, ""));
  for (CallInst *CI : Changes) {
    IRBuilder<> After(CI->getNextNode());
    Remember(After,
             RT.isRelease(*CI) ? CI->getArgOperand(0) : RT.mark(After, ""));
  }
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
