//===- StackProtector.cpp - Canaries after demoted buffers ----------------===//
#include "transform/StackProtector.h"
#include "LLVMCompat.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <climits>

using namespace llvm;

namespace scopealloc {

static bool hasStackProtectorAttr(const Function &F) {
  return F.hasFnAttribute(Attribute::StackProtect) ||
         F.hasFnAttribute(Attribute::StackProtectStrong) ||
         F.hasFnAttribute(Attribute::StackProtectReq);
}

bool DemotedCanaries::wanted(const Function &F) {
  if (!hasStackProtectorAttr(F))
    return false;
  Triple T(F.getParent()->getTargetTriple());
  // MSVC's cookie is checked through __security_check_cookie and mixed with
  // the frame pointer; OpenBSD reports through __stack_smash_handler.
  return !T.isWindowsMSVCEnvironment() && !T.isWindowsItaniumEnvironment() &&
         !T.isOSOpenBSD();
}

uint64_t DemotedCanaries::size(const Function &F) {
  return wanted(F) ? F.getParent()->getDataLayout().getPointerSize() : 0;
}

DemotedCanaries::DemotedCanaries(Function &F)
    : F(F),
      IntPtr(F.getParent()->getDataLayout().getIntPtrType(F.getContext())) {}

/// glibc, bionic (API 17 on) and Fuchsia keep the guard in the thread
/// control block on x86 (as X86TargetLowering::getIRStackGuard).
static bool hasX86GuardSlotTLS(const Triple &T) {
  return T.isOSGlibc() || T.isOSFuchsia() ||
         (T.isAndroid() && !T.isAndroidVersionLT(17));
}

/// The address of the guard when the target reads it in IR, else null (the
/// guard is then llvm.stackguard).
static Value *irGuardAddress(IRBuilder<> &B, Module &M) {
  Triple T(M.getTargetTriple());
  StringRef Mode = M.getStackProtectorGuard();
  if (!Mode.empty() && Mode != "tls")
    return nullptr; // "global" (or "sysreg"): codegen's own lowering
  if (T.isX86() && hasX86GuardSlotTLS(T)) {
    // Address spaces 256/257 are %gs/%fs; x86-64 uses %fs (the kernel code
    // model, which uses %gs, is not a ScopeAlloc target).
    unsigned AS = T.isArch64Bit() ? 257 : 256;
    if (T.isOSFuchsia())
      return ConstantExpr::getIntToPtr(B.getInt32(0x10), B.getPtrTy(AS));
    int Offset = M.getStackProtectorGuardOffset();
    if (Offset == INT_MAX)
      Offset = T.isArch64Bit() ? 0x28 : 0x14;
    StringRef Reg = M.getStackProtectorGuardReg();
    if (Reg == "fs")
      AS = 257;
    else if (Reg == "gs")
      AS = 256;
    StringRef Symbol = M.getStackProtectorGuardSymbol();
    if (!Symbol.empty()) {
      if (GlobalVariable *GV = M.getGlobalVariable(Symbol))
        return GV;
      auto *GV = new GlobalVariable(
          M, T.isArch64Bit() ? B.getInt64Ty() : B.getInt32Ty(), false,
          GlobalValue::ExternalLinkage, nullptr, Symbol, nullptr,
          GlobalValue::NotThreadLocal, AS);
      if (!T.isOSDarwin())
        GV->setDSOLocal(getDirectAccessExternalData(M));
      return GV;
    }
    return ConstantExpr::getIntToPtr(B.getInt32(Offset), B.getPtrTy(AS));
  }
  if (T.isAArch64() && (T.isAndroid() || T.isOSFuchsia())) {
    Value *TP = createThreadPointer(B);
    return B.CreateConstGEP1_32(B.getInt8Ty(), TP,
                                T.isAndroid() ? 0x28 : -0x10);
  }
  return nullptr;
}

Value *DemotedCanaries::loadGuard(Instruction *Before) {
  IRBuilder<> B(Before);
  Module &M = *F.getParent();
  if (Value *Addr = irGuardAddress(B, M))
    return B.CreateLoad(IntPtr, Addr, /*isVolatile=*/true, "scopealloc.guard");
  // What TargetLowering::insertSSPDeclarations declares, so that codegen
  // finds the guard even when its own stack protector adds nothing here;
  // kept from GlobalDCE, which runs after the pass and sees no IR use.
  GlobalValue *GV = M.getNamedValue("__stack_chk_guard");
  if (!GV) {
    auto *NewGV = cast<GlobalVariable>(
        M.getOrInsertGlobal("__stack_chk_guard", B.getPtrTy()));
    // Static code (no PIC level) reaches it directly, as codegen would.
    if (M.getPICLevel() == PICLevel::NotPIC &&
        !Triple(M.getTargetTriple()).isWindowsGNUEnvironment())
      NewGV->setDSOLocal(true);
    GV = NewGV;
  }
  if (GV->isDeclaration()) {
    SmallVector<GlobalValue *, 8> Used;
    collectUsedGlobalVariables(M, Used, /*CompilerUsed=*/true);
    if (!is_contained(Used, GV))
      appendToCompilerUsed(M, {GV});
  }
  Value *Guard = B.CreateIntrinsic(Intrinsic::stackguard, ArrayRef<Type *>(),
                                   ArrayRef<Value *>());
  return B.CreatePtrToInt(Guard, IntPtr, "scopealloc.guard");
}

void DemotedCanaries::place(Instruction *Before, ArrayRef<Value *> NewAddrs) {
  if (NewAddrs.empty())
    return;
  Value *Guard = loadGuard(Before);
  IRBuilder<> B(Before);
  // Volatile, like the stack protector's own slot: no optimisation (LTO
  // included) may forward the stored guard to the check.
  for (Value *Addr : NewAddrs) {
    B.CreateAlignedStore(Guard, Addr, Align(1), /*isVolatile=*/true);
    Addrs.push_back(Addr);
  }
}

BasicBlock *DemotedCanaries::failBlock() {
  if (Fail)
    return Fail;
  LLVMContext &C = F.getContext();
  Fail = BasicBlock::Create(C, "scopealloc.stack_chk_fail", &F);
  IRBuilder<> B(Fail);
  if (DISubprogram *SP = F.getSubprogram())
    B.SetCurrentDebugLocation(DILocation::get(C, 0, 0, SP));
  FunctionCallee ChkFail =
      F.getParent()->getOrInsertFunction("__stack_chk_fail", B.getVoidTy());
  if (auto *Fn = dyn_cast<Function>(ChkFail.getCallee())) {
    Fn->addFnAttr(Attribute::NoReturn);
    Fn->addFnAttr(Attribute::NoUnwind);
  }
  CallInst *Call = B.CreateCall(ChkFail);
  Call->setDoesNotReturn();
  Call->setDoesNotThrow();
  B.CreateUnreachable();
  return Fail;
}

void DemotedCanaries::placeDynamic(Instruction *EntryPoint, Instruction *Before,
                                   Value *Addr, bool DefaultPool) {
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> Slots(&Entry, Entry.begin());
  IRBuilder<> Init(EntryPoint);
  if (!GuardCopy) {
    GuardCopy = Slots.CreateAlloca(IntPtr, nullptr, "scopealloc.guard.copy");
    Init.CreateStore(loadGuard(EntryPoint), GuardCopy);
  }
  AllocaInst *Slot =
      Slots.CreateAlloca(Slots.getPtrTy(), nullptr, "scopealloc.canary.slot");
  Init.CreateStore(ConstantPointerNull::get(Init.getPtrTy()), Slot);
  Dynamic.push_back({Slot, DefaultPool});

  Value *Guard = loadGuard(Before);
  IRBuilder<> B(Before);
  B.CreateAlignedStore(Guard, Addr, Align(1), /*isVolatile=*/true);
  B.CreateStore(Addr, Slot);
}

void DemotedCanaries::check(Instruction *Before, Value *RestoreMark) {
  // A restore frees dynamic allocations of the default pool only.
  auto Freed = [&](const DynamicSite &S) {
    return !RestoreMark || S.DefaultPool;
  };
  if ((RestoreMark || Addrs.empty()) && none_of(Dynamic, Freed))
    return;
  Value *Guard = loadGuard(Before);
  IRBuilder<> B(Before);
  // One branch per release: the canaries' differences from the guard,
  // or-ed.
  Value *Diff = nullptr;
  auto Compare = [&](Value *Addr) {
    Value *Canary =
        B.CreateAlignedLoad(IntPtr, Addr, Align(1),
                            /*isVolatile=*/true, "scopealloc.canary");
    Value *D = B.CreateXor(Canary, Guard);
    Diff = Diff ? B.CreateOr(Diff, D) : D;
  };
  if (!RestoreMark)
    for (Value *Addr : Addrs)
      Compare(Addr);
  // A site's latest canary, if any and (for a restore) allocated after the
  // mark: the arena grows upwards, so it is the memory the release frees.
  SmallVector<std::pair<AllocaInst *, Value *>, 4> Forget;
  for (const DynamicSite &S : Dynamic) {
    if (!Freed(S))
      continue;
    Value *Addr = B.CreateLoad(B.getPtrTy(), S.Slot);
    Value *Live = B.CreateIsNotNull(Addr);
    if (RestoreMark) {
      Live = B.CreateAnd(Live, B.CreateICmpUGE(Addr, RestoreMark));
      Forget.push_back(
          {S.Slot,
           B.CreateSelect(Live, ConstantPointerNull::get(B.getPtrTy()), Addr)});
    }
    Compare(B.CreateSelect(Live, Addr, GuardCopy));
  }
  Value *Smashed =
      B.CreateICmpNE(Diff, ConstantInt::get(IntPtr, 0), "scopealloc.smashed");
  BasicBlock *Head = Before->getParent();
  BasicBlock *Tail = SplitBlock(Head, Before);
  Tail->setName(Head->getName() + ".canary.ok");
  Instruction *Br = Head->getTerminator();
  IRBuilder<>(Br).CreateCondBr(Smashed, failBlock(), Tail,
                               createUnlikelyBranchWeights(F.getContext()));
  Br->eraseFromParent();
  // The freed canaries are not checked again once their memory is reused.
  IRBuilder<> After(Before);
  for (auto [Slot, Kept] : Forget)
    After.CreateStore(Kept, Slot);
}

} // namespace scopealloc
