//===- CallSiteLiveness.cpp - A frame's buffers live at each call ---------===//
#include "placement/CallSiteLiveness.h"
#include "LLVMCompat.h"

#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace scopealloc {

CallSiteLiveness CallSiteLiveness::compute(const Function &F,
                                           ArrayRef<AllocaInst *> Buffers) {
  CallSiteLiveness Out;
  Out.Buffers = Buffers.size();
  Out.CallsAcross.resize(Buffers.size());
  SmallVector<const AllocaInst *, 8> Queried(Buffers.begin(), Buffers.end());
  StackLifetime Lifetimes(F, Queried, StackLifetime::LivenessType::May);
  Lifetimes.run();
  for (const AllocaInst *AI : Queried)
    Out.Ranges.push_back(Lifetimes.getLiveRange(AI));
  // StackLifetime numbers the blocks reachable from the entry only; calls
  // in the others never run.
  for (const BasicBlock *BB : depth_first(&F.getEntryBlock()))
    for (const Instruction &I : *BB) {
      const auto *Call = dyn_cast<CallBase>(&I);
      if (!Call || isa<IntrinsicInst>(Call) || Call->isInlineAsm())
        continue;
      BitVector Live(Out.Buffers);
      for (unsigned A = 0; A < Out.Buffers; ++A)
        if (Lifetimes.isAliveAfter(Queried[A], Call)) {
          Live.set(A);
          ++Out.CallsAcross[A];
        }
      const Value *Callee = Call->getCalledOperand()->stripPointerCasts();
      if (const auto *GA = dyn_cast<GlobalAlias>(Callee))
        Callee = GA->getAliaseeObject();
      if (const auto *G = dyn_cast<Function>(Callee)) {
        auto [It, New] = Out.Direct.try_emplace(G, Out.Buffers);
        It->second |= Live;
      } else if (Out.Indirect) {
        *Out.Indirect |= Live;
      } else {
        Out.Indirect = Live;
      }
    }
  return Out;
}

BitVector CallSiteLiveness::aliveAtCallsOf(const Function *F) const {
  auto It = F ? Direct.find(F) : Direct.end();
  return It == Direct.end() ? BitVector(Buffers, true) : It->second;
}

BitVector CallSiteLiveness::aliveAtIndirectCalls() const {
  return Indirect ? *Indirect : BitVector(Buffers, true);
}

uint64_t liveTop(const FrameLayout &L, const BitVector &Live) {
  uint64_t Top = 0;
  for (unsigned A : Live.set_bits()) {
    const AllocaInst &AI = *L.Allocas[A];
    const DataLayout &DL = AI.getModule()->getDataLayout();
    Top = std::max(Top,
                   L.Offsets[A] + getAllocationSize(AI, DL)->getFixedValue());
  }
  return Top;
}

} // namespace scopealloc
