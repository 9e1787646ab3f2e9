//===- SanitizerSupport.cpp - Demoted frames seen by sanitizers -----------===//
#include "transform/SanitizerSupport.h"
#include "transform/RuntimeABI.h"

#include "scopealloc/abi_constants.h"

#include "LLVMCompat.h" // llvm/TargetParser/Triple.h
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace scopealloc {

bool isMSanInstrumented(const Function &F) {
  return F.hasFnAttribute(Attribute::SanitizeMemory);
}

void poisonForMSan(IRBuilder<> &B, Value *Ptr, Value *Bytes) {
  Module &M = *B.GetInsertBlock()->getModule();
  Type *IntPtr = M.getDataLayout().getIntPtrType(M.getContext());
  // <sanitizer/msan_interface.h>; the origin it records is this call's
  // stack, i.e. the function whose frame it is.
  FunctionCallee Fn = M.getOrInsertFunction(
      "__msan_allocated_memory", B.getVoidTy(), B.getPtrTy(), IntPtr);
  if (auto *Decl = dyn_cast<Function>(Fn.getCallee()))
    Decl->setDoesNotThrow();
  B.CreateCall(Fn, {Ptr, B.CreateZExtOrTrunc(Bytes, IntPtr)});
}

bool wantsFrameNotes(const Function &F) {
  return F.hasFnAttribute(Attribute::SanitizeAddress) &&
         Triple(F.getParent()->getTargetTriple()).getOS() != Triple::UnknownOS;
}

/// The qualified source name (img::Filter::blur, not its mangled symbol)
/// when debug info has it.
static std::string functionName(const Function &F) {
  const DISubprogram *SP = F.getSubprogram();
  if (!SP || SP->getName().empty())
    return F.getName().str();
  std::string Name = SP->getName().str();
  for (const DIScope *S = SP->getScope(); S; S = S->getScope())
    if (isa<DINamespace>(S) || isa<DICompositeType>(S))
      Name = (S->getName().empty() ? "(anonymous namespace)" : S->getName())
                 .str() +
             "::" + Name;
  return Name;
}

void noteFrameForASan(IRBuilder<> &B, Function &F, Value *Frame,
                      uint64_t FrameSize, ArrayRef<FrameVariable> Vars) {
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  IntegerType *IntPtr = M.getDataLayout().getIntPtrType(C);
  PointerType *Ptr = B.getPtrTy();
  auto String = [&](StringRef S) -> Constant * {
    return B.CreateGlobalStringPtr(S, "scopealloc.name", 0, &M);
  };
  // struct scopealloc_var_desc and scopealloc_frame_desc of
  // <scopealloc/scopealloc.h>.
  StructType *VarTy = StructType::get(C, {Ptr, IntPtr, IntPtr});
  StructType *FrameTy = StructType::get(C, {Ptr, IntPtr, IntPtr, Ptr});
  SmallVector<Constant *, 8> VarInits;
  for (const FrameVariable &V : Vars)
    VarInits.push_back(ConstantStruct::get(
        VarTy, {String(V.Name), ConstantInt::get(IntPtr, V.Offset),
                ConstantInt::get(IntPtr, V.Size)}));
  ArrayType *VarsTy = ArrayType::get(VarTy, VarInits.size());
  auto *VarsGV = new GlobalVariable(
      M, VarsTy, /*isConstant=*/true, GlobalValue::PrivateLinkage,
      ConstantArray::get(VarsTy, VarInits), "scopealloc.vars");
  auto *Desc = new GlobalVariable(
      M, FrameTy, /*isConstant=*/true, GlobalValue::PrivateLinkage,
      ConstantStruct::get(FrameTy,
                          {String(functionName(F)),
                           ConstantInt::get(IntPtr, FrameSize),
                           ConstantInt::get(IntPtr, Vars.size()), VarsGV}),
      "scopealloc.frame.desc");
  // ASan must not pad these with redzones: the runtime reads them as C
  // structs.
  for (GlobalVariable *GV : {VarsGV, Desc}) {
    GlobalVariable::SanitizerMetadata MD;
    MD.NoAddress = true;
    GV->setSanitizerMetadata(MD);
  }
  RuntimeABI(M).noteFrame(B, Frame, Desc);
}

bool wantsRedzones(const Function &F) {
  return F.hasFnAttribute(Attribute::SanitizeAddress);
}

/// ASan's shadow granule: a redzone poisons whole granules from its first
/// byte on, so every buffer starts on one.
static constexpr uint64_t ShadowGranule = 8;
/// The redzone before the first buffer (ASan's frame header is as big).
static constexpr uint64_t LeadingRedzone = 32;

/// The redzone after a buffer of \p Size bytes: ASan's own stack-frame rule
/// (ComputeASanStackFrameLayout), wider for bigger buffers.
static uint64_t redzoneAfter(uint64_t Size) {
  if (Size <= 4)
    return 16 - Size;
  if (Size <= 16)
    return 32 - Size;
  if (Size <= 128)
    return 32;
  if (Size <= 512)
    return 64;
  if (Size <= 4096)
    return 128;
  return 256;
}

FrameLayout withRedzones(const Function &F, const FrameLayout &L,
                         uint64_t CanarySize) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  FrameLayout R;
  R.Alignment = std::max(L.Alignment, Align(ShadowGranule));
  uint64_t Offset = LeadingRedzone;
  for (AllocaInst *AI : L.Allocas) {
    uint64_t Size = getAllocationSize(*AI, DL)->getFixedValue();
    Offset = alignTo(Offset, std::max(AI->getAlign(), Align(ShadowGranule)));
    R.Allocas.push_back(AI);
    R.Offsets.push_back(Offset);
    uint64_t End = Offset + Size;
    if (CanarySize) {
      R.CanaryOffsets.push_back(End);
      End += CanarySize;
    }
    Offset = alignTo(End + redzoneAfter(Size), ShadowGranule);
  }
  R.Size = Offset;
  return R;
}

void poisonRedzones(IRBuilder<> &B, Value *Frame, const FrameLayout &L,
                    uint64_t CanarySize) {
  Module &M = *B.GetInsertBlock()->getModule();
  const DataLayout &DL = M.getDataLayout();
  Type *IntPtr = DL.getIntPtrType(M.getContext());
  // <sanitizer/asan_interface.h>
  FunctionCallee Poison = M.getOrInsertFunction(
      "__asan_poison_memory_region", B.getVoidTy(), B.getPtrTy(), IntPtr);
  if (auto *Decl = dyn_cast<Function>(Poison.getCallee()))
    Decl->setDoesNotThrow();
  uint64_t From = 0; // the end of the last buffer (and canary) so far
  auto PoisonUpTo = [&](uint64_t To) {
    if (To <= From)
      return;
    Value *Begin = From ? B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Frame,
                                                       From, "scopealloc.redzone")
                        : Frame;
    B.CreateCall(Poison, {Begin, ConstantInt::get(IntPtr, To - From)});
  };
  for (auto [AI, Offset] : zip(L.Allocas, L.Offsets)) {
    PoisonUpTo(Offset);
    From = Offset + getAllocationSize(*AI, DL)->getFixedValue() + CanarySize;
  }
  PoisonUpTo(L.Size);
}

} // namespace scopealloc
