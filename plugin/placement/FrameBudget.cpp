//===- FrameBudget.cpp - Which allocas the frame budget keeps -------------===//
#include "placement/FrameBudget.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "scope-alloc-budget"

using namespace llvm;

namespace scopealloc {

double stackBenefit(const Value &Ptr, uint64_t Size) {
  unsigned Accesses = 0;
  SmallVector<const Value *, 8> Work{&Ptr};
  SmallPtrSet<const Value *, 8> Seen;
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second)
      continue;
    for (const User *U : V->users()) {
      if (isa<GetElementPtrInst>(U) || isa<BitCastInst>(U))
        Work.push_back(U);
      else if (isa<LoadInst>(U) || isa<StoreInst>(U) || isa<CallBase>(U))
        ++Accesses;
    }
  }
  return double(Accesses) / double(std::max<uint64_t>(Size, 1));
}

SmallVector<unsigned, 8> rankByBenefit(ArrayRef<BudgetCandidate> Candidates,
                                       SmallVectorImpl<double> *Benefits) {
  SmallVector<double, 8> Benefit;
  SmallVector<unsigned, 8> Order;
  for (unsigned I = 0, E = Candidates.size(); I != E; ++I) {
    const BudgetCandidate &C = Candidates[I];
    Benefit.push_back(stackBenefit(*C.Ptr, C.Size));
    Order.push_back(I);
  }
  llvm::stable_sort(Order, [&](unsigned A, unsigned B) {
    if (Benefit[A] != Benefit[B])
      return Benefit[A] > Benefit[B];
    return Candidates[A].Size < Candidates[B].Size;
  });
  if (Benefits)
    *Benefits = std::move(Benefit);
  return Order;
}

SmallVector<BudgetChoice, 8>
chooseWithinBudget(ArrayRef<BudgetCandidate> Candidates, uint64_t Used,
                   uint64_t Budget) {
  SmallVector<double, 8> Benefit;
  SmallVector<unsigned, 8> Order = rankByBenefit(Candidates, &Benefit);
  LLVM_DEBUG(dbgs() << "frame budget " << Budget << " bytes, " << Used
                    << " bytes must stay\n");
  SmallVector<BudgetChoice, 8> Choices;
  for (unsigned I : Order) {
    const BudgetCandidate &C = Candidates[I];
    bool Stays = Used + C.Size <= Budget;
    if (Stays)
      Used += C.Size;
    LLVM_DEBUG(dbgs() << "  " << (Stays ? "keeps " : "moves ");
               C.Ptr->printAsOperand(dbgs(), false);
               dbgs() << " (" << C.Size << " bytes, benefit " << Benefit[I]
                      << "), " << Used << " bytes kept\n");
    Choices.push_back({I, Stays, Used});
  }
  return Choices;
}

} // namespace scopealloc
