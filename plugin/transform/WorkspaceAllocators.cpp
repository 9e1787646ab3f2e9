//===- WorkspaceAllocators.cpp - Allocation calls promotion knows ---------===//
#include "transform/WorkspaceAllocators.h"

#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace scopealloc {

ArrayRef<AllocatorSpec> builtinAllocators() {
  static const AllocatorSpec Builtins[] = {
      {"TVMBackendAllocWorkspace", 5, 2, "TVMBackendFreeWorkspace", 3, 2, 64,
       true, std::make_pair(0u, uint64_t(1)),
       "its device type is not the CPU (kDLCPU = 1)", "built-in (TVM)",
       "__TVMBackendAllocWorkspace", "__TVMBackendFreeWorkspace"},
      {"halide_malloc", 2, 1, "halide_free", 2, 1, 64, true, std::nullopt, "",
       "built-in (Halide)"},
  };
  return Builtins;
}

const GlobalVariable *slotOf(const CallBase &CB) {
  if (CB.getCalledFunction())
    return nullptr;
  auto *Load = dyn_cast<LoadInst>(CB.getCalledOperand()->stripPointerCasts());
  if (!Load || !Load->isSimple())
    return nullptr;
  return dyn_cast<GlobalVariable>(
      Load->getPointerOperand()->stripPointerCasts());
}

bool callsFunctionOrSlot(const CallBase &CB, StringRef Name, StringRef Slot) {
  if (const Function *Callee = CB.getCalledFunction())
    return Callee->getName() == Name;
  const GlobalVariable *G = slotOf(CB);
  return G && !Slot.empty() && G->getName() == Slot;
}

const AllocatorSpec *builtinAllocatorOf(const CallBase &CB) {
  for (const AllocatorSpec &A : builtinAllocators())
    if (callsFunctionOrSlot(CB, A.Alloc, A.AllocSlot))
      return &A;
  return nullptr;
}

} // namespace scopealloc
