//===- AllocaDemotion.cpp - Rewrite allocas into workspace memory ---------===//
#include "transform/AllocaDemotion.h"
#include "LLVMCompat.h"
#include "OptionCategory.h"
#include "Scope.h"
#include "placement/FrameLayout.h"
#include "support/Diagnostics.h"
#include "transform/ResumePoints.h"
#include "transform/RuntimeABI.h"
#include "transform/SanitizerSupport.h"
#include "transform/StackProtector.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Local.h"

#include <map>
#include <optional>

#define DEBUG_TYPE "scope-alloc-layout"

using namespace llvm;

static cl::opt<bool> InlineFastPath(
    "scope-alloc-inline-fast-path", cl::cat(scopealloc::optionCategory()),
    cl::desc("Bump the default pool inline for a function's demoted static "
             "allocas and release with a store (false: call the runtime for "
             "every mark, allocation and release, e.g. under Valgrind)"),
    cl::init(true));

namespace scopealloc {

/// Entry code must run before any dynamic alloca of the entry block, or the
/// marks would be taken after memory they are meant to release.
static Instruction *firstNonStaticAlloca(BasicBlock &Entry) {
  for (Instruction &I : Entry) {
    auto *AI = dyn_cast<AllocaInst>(&I);
    // Debug intrinsics too (before LLVM 19's debug records): the code
    // inserted here takes this instruction's line, and a dbg.value of an
    // argument has line 0, which would hide the frame's caller from
    // addr2line.
    if (!(AI && AI->isStaticAlloca()) && !isa<PHINode>(I) &&
        !isa<DbgInfoIntrinsic>(I))
      return &I;
  }
  llvm_unreachable("a basic block ends with a terminator");
}

namespace {

/// Per-pool values in the order the pools were first used ("" = default).
template <typename T>
using PoolMap = MapVector<std::string, T, std::map<std::string, unsigned>>;

class FunctionDemoter {
public:
  FunctionDemoter(Function &F, const StaticFrameAddress *Planned)
      : F(F), DL(F.getParent()->getDataLayout()), RT(*F.getParent()),
        DIB(*F.getParent(), /*AllowUnresolved=*/false), Canaries(F),
        PlannedAddress(Planned) {}

  FunctionDemotion run(ArrayRef<DemotionRequest> Requests,
                       bool StackSaveMayMoveToArena);

private:
  PoolFrame &entryMark(StringRef Pool);
  void demoteStaticFrame(StringRef Pool, const FrameLayout &Layout);
  void demoteDynamic(AllocaInst *AI, StringRef Pool);
  void redirectStackSaveRestore();
  void followStackRestoreInNamedPools();
  void releaseOnEveryExit();

  Function &F;
  const DataLayout &DL;
  RuntimeABI RT;
  DIBuilder DIB;
  /// Entry-block code goes before this instruction, in creation order, after
  /// the leading allocas so that the allocas that stay remain a static frame.
  Instruction *EntryPoint = nullptr;
  /// What each pool serves, in the order the marks are taken at entry:
  /// what run() returns.
  PoolMap<PoolFrame> Pools;
  /// The redirected stacksave and stackrestore calls.
  SmallVector<CallInst *, 2> StackSaves, StackRestores;
  /// The default pool's frame when it was bumped inline.
  std::optional<RuntimeABI::InlineFrame> Inline;
  /// Canaries after the demoted buffers (ssp, sspstrong, sspreq).
  DemotedCanaries Canaries;
  /// Where the default pool's static frame was planned (plan: static).
  const StaticFrameAddress *PlannedAddress;
  std::optional<PoolFrame> Planned;
};

} // namespace

/// Lifetime markers describe stack slots; the memory is no longer one.
/// Under MemorySanitizer, which poisons a stack buffer at each lifetime
/// start (a loop body's buffer is uninitialised again in every iteration),
/// each start of a demoted buffer poisons it too.
static void eraseLifetimeMarkers(AllocaInst *AI) {
  Function &F = *AI->getFunction();
  for (User *U : make_early_inc_range(AI->users()))
    if (auto *II = dyn_cast<IntrinsicInst>(U);
        II && II->isLifetimeStartOrEnd()) {
      if (II->getIntrinsicID() == Intrinsic::lifetime_start &&
          isMSanInstrumented(F) && AI->isStaticAlloca()) {
        IRBuilder<> B(II);
        uint64_t Size = *getAllocationSize(*AI, F.getParent()->getDataLayout());
        poisonForMSan(B, AI, B.getInt64(Size));
      }
      II->eraseFromParent();
    }
}

static void replaceAlloca(AllocaInst *AI, Value *NewPtr) {
  // An alloca in another address space (the policy gave it a scope): its
  // users reach the pool's memory through a cast to that address space.
  if (NewPtr->getType() != AI->getType()) {
    auto *Def = cast<Instruction>(NewPtr);
    Instruction *Before = isa<PHINode>(Def)
                              ? &*Def->getParent()->getFirstInsertionPt()
                              : Def->getNextNode();
    NewPtr = new AddrSpaceCastInst(NewPtr, AI->getType(), "", Before);
  }
  if (auto *I = dyn_cast<Instruction>(NewPtr); I && AI->getDebugLoc())
    I->setDebugLoc(AI->getDebugLoc());
  NewPtr->takeName(AI);
  AI->replaceAllUsesWith(NewPtr);
  AI->eraseFromParent();
}

/// Describes the variables of \p AI as living at (*Slot + Offset): declares,
/// and the value records InstCombine made of them at -O2.
static void redirectDebugRecords(AllocaInst *AI, AllocaInst *Slot,
                                 uint64_t Offset, DIBuilder &DIB,
                                 Instruction *DeclareBefore) {
  SmallVector<DbgVariableIntrinsic *, 4> Intrinsics;
  SmallVector<DbgVariableRecord *, 4> Records;
  findDbgUsers(Intrinsics, AI, &Records);
  SmallSet<std::pair<const DILocalVariable *, const DIExpression *>, 4>
      Declared;
  auto IsAssign = [](auto *D) {
    if constexpr (std::is_same_v<decltype(D), DbgVariableRecord *>)
      return D->isDbgAssign();
    else
      return isa<DbgAssignIntrinsic>(D);
  };
  auto AddressExpression = [](auto *D) {
    if constexpr (std::is_same_v<decltype(D), DbgVariableRecord *>)
      return D->getAddressExpression();
    else
      return cast<DbgAssignIntrinsic>(D)->getAddressExpression();
  };
  auto Redirect = [&](auto *D) {
    if (IsAssign(D)) {
      // Assignment tracking (clang -O2 -g) describes the variable through
      // its stack slot; the memory is no longer one, so declare where it is.
      DIExpression *Expr = DIExpression::prepend(
          AddressExpression(D), DIExpression::DerefBefore, int64_t(Offset));
      if (auto Frag = D->getExpression()->getFragmentInfo())
        Expr = *DIExpression::createFragmentExpression(Expr, Frag->OffsetInBits,
                                                       Frag->SizeInBits);
      if (Declared.insert({D->getVariable(), Expr}).second)
        DIB.insertDeclare(Slot, D->getVariable(), Expr, D->getDebugLoc(),
                          DeclareBefore);
      D->eraseFromParent();
      return;
    }
    if (D->hasArgList())
      return; // multi-location expressions keep what RAUW gives them
    D->replaceVariableLocationOp(AI, Slot);
    D->setExpression(DIExpression::prepend(
        D->getExpression(), DIExpression::DerefBefore, int64_t(Offset)));
  };
  for (DbgVariableRecord *DVR : Records)
    Redirect(DVR);
  for (DbgVariableIntrinsic *DVI : Intrinsics)
    Redirect(DVI);
}

PoolFrame &FunctionDemoter::entryMark(StringRef Pool) {
  auto [It, Inserted] = Pools.insert({Pool.str(), PoolFrame()});
  PoolFrame &PF = It->second;
  if (!Inserted)
    return PF;
  PF.Pool = Pool.str();
  IRBuilder<> B(EntryPoint);
  PF.Mark = RT.mark(B, Pool);
  PF.Mark->setName(Pool.empty() ? "scopealloc.mark"
                                : "scopealloc.mark." + Pool);
  return PF;
}

/// The inline bump splits the entry block; allocas that stay on the stack
/// must all precede the split to remain part of the static frame.
static void hoistStaticAllocas(BasicBlock &Entry, Instruction *Before) {
  for (Instruction &I :
       make_early_inc_range(make_range(Before->getIterator(), Entry.end())))
    if (auto *AI = dyn_cast<AllocaInst>(&I); AI && AI->isStaticAlloca())
      AI->moveBefore(Before);
}

void FunctionDemoter::demoteStaticFrame(StringRef Pool,
                                        const FrameLayout &Layout) {
  Value *Frame;
  PoolFrame *PF;
  // MemorySanitizer needs each frame marked uninitialised, which the inline
  // bump would skip.
  if (Pool.empty() && PlannedAddress) {
    // A fixed place: the region (this thread's, if it is thread-local)
    // plus a constant; nothing to mark, bump or release.
    IRBuilder<> B(EntryPoint);
    GlobalVariable *Region = PlannedAddress->Region;
    Value *Base = Region->isThreadLocal() ? createThreadLocalAddress(B, Region)
                                          : static_cast<Value *>(Region);
    Frame = GetElementPtrInst::CreateInBounds(
        B.getInt8Ty(), Base, {B.getInt64(PlannedAddress->Offset)},
        "scopealloc.frame.static", EntryPoint);
    Planned.emplace();
    PF = &*Planned;
    PF->Pool = "";
  } else if (Pool.empty() && InlineFastPath &&
             RuntimeABI::canInlineDefaultPool(F) && !hasResumePoints(F) &&
             !isMSanInstrumented(F)) {
    // Resume points keep the runtime calls: their bookkeeping follows calls.
    hoistStaticAllocas(F.getEntryBlock(), EntryPoint);
    Inline = RT.inlineFrame(EntryPoint, Layout.Size, Layout.Alignment);
    PF = &Pools[""];
    PF->Mark = Inline->Mark;
    PF->Inline = true;
    Frame = Inline->Frame;
  } else {
    PF = &entryMark(Pool);
    IRBuilder<> B(EntryPoint);
    Frame = RT.alloc(B, Pool, ConstantInt::get(RT.sizeType(), Layout.Size),
                     Layout.Alignment);
    Frame->setName(Pool.empty() ? "scopealloc.frame"
                                : "scopealloc.frame." + Pool);
  }
  PF->Frame = Frame;
  PF->FrameSize = Layout.Size;
  PF->FrameAlign = Layout.Alignment;
  PF->CanaryOffsets.assign(Layout.CanaryOffsets.begin(),
                           Layout.CanaryOffsets.end());
  IRBuilder<> B(EntryPoint);
  if (isMSanInstrumented(F))
    poisonForMSan(B, Frame, B.getInt64(Layout.Size));
  if (wantsFrameNotes(F)) {
    SmallVector<FrameVariable, 8> Vars;
    for (auto [AI, Offset] : zip(Layout.Allocas, Layout.Offsets)) {
      const DILocalVariable *Var = findSourceVariable(*AI).Var;
      Vars.push_back({(Var ? Var->getName() : AI->getName()).str(), Offset,
                      getAllocationSize(*AI, DL)->getFixedValue()});
    }
    noteFrameForASan(B, F, Frame, Layout.Size, Vars);
  }
  // The runtime unpoisoned the whole frame; a planned frame has its
  // planned layout, without redzones.
  if (wantsRedzones(F) && !(Pool.empty() && PlannedAddress))
    poisonRedzones(B, Frame, Layout, DemotedCanaries::size(F));

  // A debugger finds each variable through a stack slot that holds the
  // frame's address: stack slots keep a location at every -O level, while
  // the call's result may live in a register that is reused.
  AllocaInst *FrameSlot = nullptr;
  auto HasVariable = [](AllocaInst *AI) {
    return findSourceVariable(*AI).Var != nullptr;
  };
  if (any_of(Layout.Allocas, HasVariable)) {
    IRBuilder<> EB(&F.getEntryBlock(), F.getEntryBlock().begin());
    FrameSlot =
        EB.CreateAlloca(B.getPtrTy(), nullptr, Frame->getName() + ".addr");
    B.CreateStore(Frame, FrameSlot);
  }

  for (auto [AI, Offset] : zip(Layout.Allocas, Layout.Offsets)) {
    if (FrameSlot)
      redirectDebugRecords(AI, FrameSlot, Offset, DIB, EntryPoint);
    Value *Ptr = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Frame, Offset);
    PF->Statics.push_back({AI->getName().str(), Ptr, Offset,
                           getAllocationSize(*AI, DL)->getFixedValue(),
                           AI->getAlign()});
    replaceAlloca(AI, Ptr);
  }

  SmallVector<Value *, 8> CanaryAddrs;
  for (uint64_t Offset : Layout.CanaryOffsets)
    CanaryAddrs.push_back(B.CreateConstInBoundsGEP1_64(
        B.getInt8Ty(), Frame, Offset, "scopealloc.canary.addr"));
  Canaries.place(EntryPoint, CanaryAddrs);
  PF->CanaryAddresses.assign(CanaryAddrs.begin(), CanaryAddrs.end());
}

void FunctionDemoter::demoteDynamic(AllocaInst *AI, StringRef Pool) {
  PoolFrame &PF = entryMark(Pool);
  IRBuilder<> B(AI);
  Type *SizeTy = RT.sizeType();
  Value *Count = B.CreateZExtOrTrunc(AI->getArraySize(), SizeTy);
  uint64_t ElemSize = DL.getTypeAllocSize(AI->getAllocatedType());
  Value *Bytes = ElemSize == 1
                     ? Count
                     : B.CreateMul(Count, ConstantInt::get(SizeTy, ElemSize));
  uint64_t CanarySize = DemotedCanaries::size(F);
  CallInst *Ptr = RT.alloc(
      B, Pool,
      CanarySize ? B.CreateAdd(Bytes, ConstantInt::get(SizeTy, CanarySize))
                 : Bytes,
      AI->getAlign());
  DemotedDynamic &D = PF.Dynamic.emplace_back();
  D.Name = AI->getName().str();
  D.Alloc = Ptr;
  D.Bytes = Bytes;
  D.Alignment = AI->getAlign();
  if (isMSanInstrumented(F))
    poisonForMSan(B, Ptr, Bytes);
  if (CanarySize) {
    D.CanaryAddress = B.CreateInBoundsGEP(B.getInt8Ty(), Ptr, Bytes,
                                          "scopealloc.canary.addr");
    Canaries.placeDynamic(EntryPoint, AI, D.CanaryAddress, Pool.empty());
  }
  replaceDbgDeclare(AI, Ptr, DIB, DIExpression::ApplyOffset, 0);
  replaceAlloca(AI, Ptr);
}

// Once no dynamic alloca is left on the machine stack, stacksave/restore
// only matter for the arena: a VLA in a loop is freed where it was before.
void FunctionDemoter::redirectStackSaveRestore() {
  // Collected first: checking canaries splits blocks.
  SmallVector<IntrinsicInst *, 8> SaveRestore;
  for (Instruction &I : instructions(F))
    if (auto *II = dyn_cast<IntrinsicInst>(&I);
        II && (II->getIntrinsicID() == Intrinsic::stacksave ||
               II->getIntrinsicID() == Intrinsic::stackrestore))
      SaveRestore.push_back(II);
  for (IntrinsicInst *II : SaveRestore) {
    if (II->getIntrinsicID() == Intrinsic::stacksave) {
      IRBuilder<> B(II);
      CallInst *Mark = RT.mark(B, "");
      Mark->takeName(II);
      II->replaceAllUsesWith(Mark);
      StackSaves.push_back(Mark);
    } else {
      Canaries.checkBeforeRestore(II, II->getArgOperand(0));
      IRBuilder<> B(II);
      StackRestores.push_back(RT.release(B, "", II->getArgOperand(0)));
    }
    II->eraseFromParent();
  }
}

static IntrinsicInst *asStackSave(Value *V) {
  auto *II = dyn_cast<IntrinsicInst>(V);
  return II && II->getIntrinsicID() == Intrinsic::stacksave ? II : nullptr;
}

/// The llvm.stacksave whose value \p Restore restores: its argument, or
/// at -O0 a reload of the slot that only that save is stored to (clang's
/// `saved_stack`); null when it cannot be told (a phi of saves, ...).
static IntrinsicInst *savedBy(IntrinsicInst &Restore) {
  Value *Arg = Restore.getArgOperand(0);
  if (IntrinsicInst *Save = asStackSave(Arg))
    return Save;
  auto *Reload = dyn_cast<LoadInst>(Arg);
  auto *Slot =
      Reload ? dyn_cast<AllocaInst>(Reload->getPointerOperand()) : nullptr;
  if (!Slot)
    return nullptr;
  IntrinsicInst *Only = nullptr;
  for (User *U : Slot->users()) {
    if (isa<LoadInst>(U))
      continue;
    if (auto *II = dyn_cast<IntrinsicInst>(U); II && II->isLifetimeStartOrEnd())
      continue;
    auto *Store = dyn_cast<StoreInst>(U);
    IntrinsicInst *Save = Store && Store->getPointerOperand() == Slot
                              ? asStackSave(Store->getValueOperand())
                              : nullptr;
    if (!Save || (Only && Only != Save))
      return nullptr;
    Only = Save;
  }
  return Only;
}

/// Each stackrestore of \p F with its save, when every one has a save that
/// dominates it (so that a mark beside the save reaches the restore).
static std::optional<SmallVector<std::pair<IntrinsicInst *, IntrinsicInst *>>>
savesOfRestores(Function &F) {
  SmallVector<std::pair<IntrinsicInst *, IntrinsicInst *>> Pairs;
  for (Instruction &I : instructions(F))
    if (auto *II = dyn_cast<IntrinsicInst>(&I);
        II && II->getIntrinsicID() == Intrinsic::stackrestore) {
      IntrinsicInst *Save = savedBy(*II);
      if (!Save)
        return std::nullopt;
      Pairs.push_back({II, Save});
    }
  if (Pairs.empty())
    return std::nullopt;
  DominatorTree DT(F);
  for (auto [Restore, Save] : Pairs)
    if (!DT.dominates(Save, Restore))
      return std::nullopt;
  return Pairs;
}

bool namedPoolsFollowStackRestore(const Function &F) {
  return savesOfRestores(const_cast<Function &>(F)).has_value();
}

// Named pools are not the machine stack: their marks go beside each
// stacksave and their releases beside each stackrestore of it, so that a
// loop (a VLA per iteration, MLIR's memref.alloca_scope) does not exhaust
// the pool. The save's mark dominates its restores, as the save does.
void FunctionDemoter::followStackRestoreInNamedPools() {
  SmallVector<PoolFrame *, 2> Dynamic;
  for (auto &[Pool, PF] : Pools)
    if (!Pool.empty() && !PF.Dynamic.empty())
      Dynamic.push_back(&PF);
  if (Dynamic.empty())
    return;
  auto Pairs = savesOfRestores(F);
  if (!Pairs)
    return;
  DenseMap<Value *, SmallVector<CallInst *, 2>> MarksAtSave;
  for (auto [Restore, Save] : *Pairs) {
    SmallVector<CallInst *, 2> &Marks = MarksAtSave[Save];
    if (Marks.empty()) {
      IRBuilder<> B(Save->getNextNode());
      for (PoolFrame *PF : Dynamic) {
        CallInst *Mark = RT.mark(B, PF->Pool);
        Mark->setName("scopealloc.save." + PF->Pool);
        PF->SaveMarks.push_back(Mark);
        Marks.push_back(Mark);
      }
    }
    IRBuilder<> B(Restore);
    for (size_t I = Dynamic.size(); I-- > 0;) // newest mark first
      Dynamic[I]->RestoreReleases.push_back(
          RT.release(B, Dynamic[I]->Pool, Marks[I]));
  }
}

void FunctionDemoter::releaseOnEveryExit() {
  SmallVector<Instruction *, 8> Exits;
  for (BasicBlock &BB : F) {
    Instruction *T = BB.getTerminator();
    // A musttail call must stay right before the ret: release before it.
    if (CallInst *MustTail = BB.getTerminatingMustTailCall())
      Exits.push_back(MustTail);
    else if (isa<ReturnInst>(T) || isa<ResumeInst>(T))
      Exits.push_back(T);
  }
  for (Instruction *Exit : Exits) {
    // The canaries are checked while the frame is still allocated.
    Canaries.checkBefore(Exit);
    IRBuilder<> B(Exit);
    // Newest pool first, mirroring the order the marks were taken.
    for (auto &[Pool, PF] : reverse(Pools)) {
      Instruction *Release;
      if (PF.Inline)
        Release = RT.inlineRelease(B, *Inline);
      else
        Release = RT.release(B, Pool, PF.Mark);
      PF.Releases.push_back(Release);
    }
  }
}

FunctionDemotion FunctionDemoter::run(ArrayRef<DemotionRequest> Requests,
                                      bool StackSaveMayMoveToArena) {
  PoolMap<SmallVector<AllocaInst *, 8>> StaticByPool;
  SmallVector<const DemotionRequest *, 4> Dynamic;
  bool DefaultPoolDynamic = false;
  for (const DemotionRequest &R : Requests) {
    if (R.Alloca->isStaticAlloca()) {
      StaticByPool[R.Pool].push_back(R.Alloca);
    } else {
      Dynamic.push_back(&R);
      DefaultPoolDynamic |= R.Pool.empty();
    }
  }
  // Layouts read the lifetime markers; then they go, before the entry
  // insertion point is chosen, so that it is never one of them.
  PoolMap<FrameLayout> Layouts;
  uint64_t CanarySize = DemotedCanaries::size(F);
  for (auto &[Pool, Allocas] : StaticByPool) {
    // A planned frame keeps the layout it was planned with: its callees'
    // offsets depend on where its buffers are live at each call.
    if (Pool.empty() && PlannedAddress) {
      assert(is_permutation(Allocas, PlannedAddress->Layout.Allocas) &&
             "planned other buffers");
      Layouts[Pool] = PlannedAddress->Layout;
      continue;
    }
    Layouts[Pool] = layoutFrame(F, Allocas, CanarySize);
    // AddressSanitizer reports an overflow only into poisoned bytes: the
    // buffers get redzones between them, as they would on the stack.
    if (wantsRedzones(F))
      Layouts[Pool] = withRedzones(F, Layouts[Pool], CanarySize);
  }
  for (const DemotionRequest &R : Requests)
    eraseLifetimeMarkers(R.Alloca);
  EntryPoint = firstNonStaticAlloca(F.getEntryBlock());

  for (auto &[Pool, Layout] : Layouts)
    demoteStaticFrame(Pool, Layout);
  for (const DemotionRequest *R : Dynamic)
    demoteDynamic(R->Alloca, R->Pool);
  followStackRestoreInNamedPools();
  if (DefaultPoolDynamic && StackSaveMayMoveToArena)
    redirectStackSaveRestore();
  releaseOnEveryExit();

  FunctionDemotion Result;
  for (auto &[Pool, PF] : Pools)
    Result.Pools.push_back(std::move(PF));
  Result.Planned = std::move(Planned);
  Result.StackSaves = std::move(StackSaves);
  Result.StackRestores = std::move(StackRestores);
  LLVM_DEBUG(dbgs() << "demoted in " << F.getName() << ":\n";
             Result.print(dbgs()));
  return Result;
}

const PoolFrame *FunctionDemotion::pool(StringRef Pool) const {
  for (const PoolFrame &PF : Pools)
    if (PF.Pool == Pool)
      return &PF;
  return nullptr;
}

SmallVector<FunctionDemotion::TopChange, 8>
FunctionDemotion::defaultPoolChanges() const {
  SmallVector<TopChange, 8> Changes;
  for (CallInst *Restore : StackRestores)
    Changes.push_back({Restore, Restore->getArgOperand(0)});
  const PoolFrame *Default = pool("");
  if (!Default)
    return Changes;
  assert(!Default->Inline && "an inline bump changes the pool without calls");
  if (Default->Frame)
    Changes.push_back({cast<CallInst>(Default->Frame), nullptr});
  for (const DemotedDynamic &D : Default->Dynamic)
    Changes.push_back({D.Alloc, nullptr});
  for (Instruction *Release : Default->Releases)
    Changes.push_back({cast<CallInst>(Release), Default->Mark});
  return Changes;
}

void FunctionDemotion::print(raw_ostream &OS) const {
  auto Name = [](StringRef N) { return N.empty() ? "<unnamed>" : N; };
  if (Planned) {
    OS << "  static frame of " << Planned->FrameSize << " bytes, align "
       << Planned->FrameAlign.value() << "\n";
    for (const DemotedStatic &S : Planned->Statics)
      OS << "    %" << Name(S.Name) << " at " << S.Offset << ", " << S.Size
         << " bytes\n";
  }
  for (const PoolFrame &PF : Pools) {
    OS << "  pool " << (PF.Pool.empty() ? DefaultPoolName : PF.Pool);
    if (PF.Frame)
      OS << ": frame of " << PF.FrameSize << " bytes, align "
         << PF.FrameAlign.value() << (PF.Inline ? ", inline" : "");
    OS << ", " << PF.Releases.size() << " releases\n";
    for (const DemotedStatic &S : PF.Statics)
      OS << "    %" << Name(S.Name) << " at " << S.Offset << ", " << S.Size
         << " bytes, align " << S.Alignment.value() << "\n";
    for (uint64_t Offset : PF.CanaryOffsets)
      OS << "    canary at " << Offset << "\n";
    for (const DemotedDynamic &D : PF.Dynamic)
      OS << "    %" << Name(D.Name) << " dynamic, align " << D.Alignment.value()
         << (D.CanaryAddress ? ", canary" : "") << "\n";
    if (!PF.RestoreReleases.empty())
      OS << "    released at " << PF.RestoreReleases.size()
         << " llvm.stackrestore\n";
  }
  if (!StackSaves.empty() || !StackRestores.empty())
    OS << "  stacksave/stackrestore: " << StackSaves.size() << "/"
       << StackRestores.size() << " redirected to the default pool\n";
}

FunctionDemotion demoteAllocas(Function &F, ArrayRef<DemotionRequest> Requests,
                               bool StackSaveMayMoveToArena,
                               const StaticFrameAddress *Planned) {
  if (Requests.empty())
    return {};
  return FunctionDemoter(F, Planned).run(Requests, StackSaveMayMoveToArena);
}

} // namespace scopealloc
