//===- SanitizerSupport.cpp - Demoted frames seen by sanitizers -----------===//
#include "transform/SanitizerSupport.h"
#include "transform/RuntimeABI.h"

#include "scopealloc/abi_constants.h"

#include "LLVMCompat.h" // llvm/TargetParser/Triple.h
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

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

} // namespace scopealloc
