//===- DemotionResultTest.cpp - What demoteAllocas says it did ------------===//
//
// demoteAllocas on parsed IR: the description it returns (pools, frames,
// offsets, canaries, dynamic allocations, releases) matches the rewritten
// IR, and the resume points follow the calls it names.
//
//===----------------------------------------------------------------------===//
#include "IRParsing.h"
#include "transform/AllocaDemotion.h"
#include "transform/ResumePoints.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Verifier.h"

using namespace llvm;
using namespace scopealloc;
using namespace scopealloc::test;

namespace {

struct Demoted {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  Function *F = nullptr;
  FunctionDemotion D;

  /// Demotes the allocas named in \p Requests (name, pool) of @f.
  Demoted(StringRef IR, ArrayRef<std::pair<StringRef, StringRef>> Requests,
          bool StackSaveMayMoveToArena = true) {
    M = parseIR(Ctx, IR);
    if (!M)
      return;
    F = M->getFunction("f");
    SmallVector<DemotionRequest, 8> Rs;
    for (auto [Name, Pool] : Requests)
      Rs.push_back({allocaNamed(*F, Name), Pool.str()});
    D = demoteAllocas(*F, Rs, StackSaveMayMoveToArena);
    std::string Errors;
    raw_string_ostream OS(Errors);
    EXPECT_FALSE(verifyFunction(*F, &OS)) << Errors;
  }

  std::string description() const {
    std::string S;
    raw_string_ostream OS(S);
    D.print(OS);
    return S;
  }
};

StringRef calleeName(const Value *V) {
  const auto *CI = dyn_cast_or_null<CallInst>(V);
  const Function *Callee = CI ? CI->getCalledFunction() : nullptr;
  return Callee ? Callee->getName() : "";
}

uint64_t constantArg(const Value *Call, unsigned I) {
  return cast<ConstantInt>(cast<CallInst>(Call)->getArgOperand(I))
      ->getZExtValue();
}

/// The byte offset of \p Address from \p Base, or -1 when it is none.
int64_t offsetFrom(const Value *Address, const Value *Base,
                   const DataLayout &DL) {
  APInt Offset(64, 0);
  const Value *Stripped =
      Address->stripAndAccumulateConstantOffsets(DL, Offset, true);
  return Stripped == Base ? Offset.getSExtValue() : -1;
}

// No target triple: no inline fast path, every pool is marked and bumped by
// calls.
TEST(DemotionResult, FramePerPoolWithOffsetsAndReleases) {
  Demoted T(R"IR(
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
declare void @use(ptr, ptr, ptr, ptr)
define void @f(i1 %c) {
  %a = alloca [3 x i8], align 1
  %b = alloca i64, align 8
  %c5 = alloca [5 x i8], align 4
  %t = alloca [64 x i8], align 16
  call void @use(ptr %a, ptr %b, ptr %c5, ptr %t)
  br i1 %c, label %one, label %two
one:
  ret void
two:
  ret void
}
)IR",
            {{"a", ""}, {"b", ""}, {"t", "npu"}, {"c5", ""}});
  ASSERT_TRUE(T.F);
  ASSERT_EQ(T.D.Pools.size(), 2u);
  EXPECT_TRUE(T.D.StackSaves.empty());
  EXPECT_TRUE(T.D.StackRestores.empty());
  const DataLayout &DL = T.M->getDataLayout();

  // The default pool: most aligned first, then largest.
  const PoolFrame &W = T.D.Pools[0];
  EXPECT_EQ(T.D.pool(""), &W);
  EXPECT_EQ(W.Pool, "");
  EXPECT_FALSE(W.Inline);
  EXPECT_EQ(calleeName(W.Mark), "__scopealloc_mark");
  EXPECT_EQ(calleeName(W.Frame), "__scopealloc_alloc");
  EXPECT_EQ(W.FrameSize, 16u);
  EXPECT_EQ(W.FrameAlign.value(), 8u);
  EXPECT_EQ(constantArg(W.Frame, 0), W.FrameSize);
  EXPECT_EQ(constantArg(W.Frame, 1), W.FrameAlign.value());
  ASSERT_EQ(W.Statics.size(), 3u);
  struct Want {
    StringRef Name;
    uint64_t Offset, Size, Align;
  };
  Want Wanted[] = {{"b", 0, 8, 8}, {"c5", 8, 5, 4}, {"a", 13, 3, 1}};
  for (auto [S, Want] : zip(W.Statics, Wanted)) {
    EXPECT_EQ(S.Name, Want.Name);
    EXPECT_EQ(S.Offset, Want.Offset) << S.Name;
    EXPECT_EQ(S.Size, Want.Size) << S.Name;
    EXPECT_EQ(S.Alignment.value(), Want.Align) << S.Name;
    // What replaced the alloca is the frame plus its offset.
    EXPECT_EQ(offsetFrom(S.Address, W.Frame, DL), int64_t(S.Offset)) << S.Name;
  }
  EXPECT_TRUE(W.CanaryOffsets.empty());
  EXPECT_TRUE(W.Dynamic.empty());
  // One release per ret, back to the entry mark.
  ASSERT_EQ(W.Releases.size(), 2u);
  for (Instruction *R : W.Releases) {
    EXPECT_EQ(calleeName(R), "__scopealloc_release");
    EXPECT_EQ(cast<CallInst>(R)->getArgOperand(0), W.Mark);
    EXPECT_TRUE(isa<ReturnInst>(R->getNextNode()));
  }

  // The named pool comes second: it was first asked for after the default.
  const PoolFrame &N = T.D.Pools[1];
  EXPECT_EQ(T.D.pool("npu"), &N);
  EXPECT_EQ(calleeName(N.Mark), "__scopealloc_pool_mark");
  EXPECT_EQ(calleeName(N.Frame), "__scopealloc_pool_alloc");
  EXPECT_EQ(N.FrameSize, 64u);
  EXPECT_EQ(N.FrameAlign.value(), 16u);
  ASSERT_EQ(N.Statics.size(), 1u);
  EXPECT_EQ(N.Statics[0].Name, "t");
  EXPECT_EQ(offsetFrom(N.Statics[0].Address, N.Frame, DL), 0);
  ASSERT_EQ(N.Releases.size(), 2u);
  EXPECT_EQ(calleeName(N.Releases[0]), "__scopealloc_pool_release");
  // Newest pool first at each exit: the named pool's release precedes the
  // default pool's.
  EXPECT_EQ(N.Releases[0]->getNextNode(), W.Releases[0]);

  EXPECT_EQ(T.D.pool("other"), nullptr);
  // The frame bump of the default pool and the two releases move its top.
  auto Changes = T.D.defaultPoolChanges();
  ASSERT_EQ(Changes.size(), 3u);
  EXPECT_EQ(Changes[0].Call, W.Frame);
  EXPECT_EQ(Changes[0].ReleasedTo, nullptr);
  for (unsigned I = 1; I < 3; ++I)
    EXPECT_EQ(Changes[I].ReleasedTo, W.Mark);

  EXPECT_EQ(T.description(),
            "  pool workspace: frame of 16 bytes, align 8, 2 releases\n"
            "    %b at 0, 8 bytes, align 8\n"
            "    %c5 at 8, 5 bytes, align 4\n"
            "    %a at 13, 3 bytes, align 1\n"
            "  pool npu: frame of 64 bytes, align 16, 2 releases\n"
            "    %t at 0, 64 bytes, align 16\n");
}

// Buffers whose lifetimes never overlap share bytes of the frame.
TEST(DemotionResult, DisjointLifetimesShareTheFrame) {
  Demoted T(R"IR(
declare void @use(ptr)
define void @f() {
  %x = alloca [64 x i8], align 16
  %y = alloca [48 x i8], align 16
  call void @llvm.lifetime.start.p0(i64 64, ptr %x)
  call void @use(ptr %x)
  call void @llvm.lifetime.end.p0(i64 64, ptr %x)
  call void @llvm.lifetime.start.p0(i64 48, ptr %y)
  call void @use(ptr %y)
  call void @llvm.lifetime.end.p0(i64 48, ptr %y)
  ret void
}
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)
)IR",
            {{"x", ""}, {"y", ""}});
  ASSERT_EQ(T.D.Pools.size(), 1u);
  const PoolFrame &W = T.D.Pools[0];
  EXPECT_EQ(W.FrameSize, 64u);
  ASSERT_EQ(W.Statics.size(), 2u);
  EXPECT_EQ(W.Statics[0].Offset, 0u);
  EXPECT_EQ(W.Statics[1].Offset, 0u);
  EXPECT_EQ(constantArg(W.Frame, 0), 64u);
}

static constexpr const char *VLAInLoop = R"IR(
declare void @use(ptr)
define void @f(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %sp = call ptr @llvm.stacksave()
  %vla = alloca i32, i64 %n, align 4
  call void @use(ptr %vla)
  call void @llvm.stackrestore(ptr %sp)
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, 10
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
declare ptr @llvm.stacksave()
declare void @llvm.stackrestore(ptr)
)IR";

// A VLA bumps where it was; stacksave/stackrestore become marks and
// releases of the default pool.
TEST(DemotionResult, DynamicAllocationsAndStackRestore) {
  Demoted T(VLAInLoop, {{"vla", ""}});
  ASSERT_TRUE(T.F);
  ASSERT_EQ(T.D.Pools.size(), 1u);
  const PoolFrame &W = T.D.Pools[0];
  EXPECT_EQ(W.Frame, nullptr);
  EXPECT_EQ(W.FrameSize, 0u);
  EXPECT_TRUE(W.Statics.empty());
  EXPECT_EQ(calleeName(W.Mark), "__scopealloc_mark");
  ASSERT_EQ(W.Dynamic.size(), 1u);
  const DemotedDynamic &V = W.Dynamic[0];
  EXPECT_EQ(V.Name, "vla");
  EXPECT_EQ(calleeName(V.Alloc), "__scopealloc_alloc");
  EXPECT_EQ(V.Alloc->getArgOperand(0), V.Bytes);
  EXPECT_EQ(constantArg(V.Alloc, 1), 4u);
  EXPECT_EQ(V.Alignment.value(), 4u);
  EXPECT_EQ(V.CanaryAddress, nullptr);
  EXPECT_EQ(V.Alloc->getParent()->getName(), "loop");

  ASSERT_EQ(T.D.StackSaves.size(), 1u);
  ASSERT_EQ(T.D.StackRestores.size(), 1u);
  CallInst *Save = T.D.StackSaves[0], *Restore = T.D.StackRestores[0];
  EXPECT_EQ(calleeName(Save), "__scopealloc_mark");
  EXPECT_EQ(Save->getName(), "sp");
  EXPECT_EQ(calleeName(Restore), "__scopealloc_release");
  EXPECT_EQ(Restore->getArgOperand(0), Save);

  auto Changes = T.D.defaultPoolChanges();
  ASSERT_EQ(Changes.size(), 3u);
  auto Find = [&](const CallInst *CI) -> const FunctionDemotion::TopChange * {
    for (const FunctionDemotion::TopChange &C : Changes)
      if (C.Call == CI)
        return &C;
    return nullptr;
  };
  ASSERT_TRUE(Find(V.Alloc));
  EXPECT_EQ(Find(V.Alloc)->ReleasedTo, nullptr);
  ASSERT_TRUE(Find(Restore));
  EXPECT_EQ(Find(Restore)->ReleasedTo, Save);
  ASSERT_EQ(W.Releases.size(), 1u);
  ASSERT_TRUE(Find(cast<CallInst>(W.Releases[0])));
  EXPECT_EQ(Find(cast<CallInst>(W.Releases[0]))->ReleasedTo, W.Mark);

  EXPECT_EQ(T.description(),
            "  pool workspace, 1 releases\n"
            "    %vla dynamic, align 4\n"
            "  stacksave/stackrestore: 1/1 redirected to the default pool\n");
}

// A hosted target bumps the default pool inline: no calls, a phi for the
// mark and the frame, stores for the releases.
TEST(DemotionResult, InlineFrame) {
  Demoted T(R"IR(
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
declare void @use(ptr)
define void @f() {
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  ret void
}
)IR",
            {{"buf", ""}});
  ASSERT_EQ(T.D.Pools.size(), 1u);
  const PoolFrame &W = T.D.Pools[0];
  EXPECT_TRUE(W.Inline);
  EXPECT_TRUE(isa<PHINode>(W.Mark));
  EXPECT_TRUE(isa<PHINode>(W.Frame));
  EXPECT_EQ(W.FrameSize, 4096u);
  ASSERT_EQ(W.Releases.size(), 1u);
  auto *Store = dyn_cast<StoreInst>(W.Releases[0]);
  ASSERT_TRUE(Store);
  EXPECT_EQ(Store->getValueOperand(), W.Mark);
  EXPECT_EQ(T.description(),
            "  pool workspace: frame of 4096 bytes, align 16, inline, 1 "
            "releases\n"
            "    %buf at 0, 4096 bytes, align 16\n");
}

// Under a stack protector each buffer is followed by its canary; the frame
// size counts them.
TEST(DemotionResult, CanariesInTheFrame) {
  Demoted T(R"IR(
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
declare void @use(ptr, ptr, ptr)
define void @f(i64 %n) sspstrong {
  %a = alloca [4096 x i8], align 16
  %b = alloca [2000 x i8], align 8
  %vla = alloca i8, i64 %n, align 1
  call void @use(ptr %a, ptr %b, ptr %vla)
  ret void
}
)IR",
            {{"a", "npu"}, {"b", "npu"}, {"vla", "npu"}});
  ASSERT_EQ(T.D.Pools.size(), 1u);
  const PoolFrame &N = T.D.Pools[0];
  EXPECT_EQ(N.Pool, "npu");
  EXPECT_EQ(N.CanaryOffsets, (SmallVector<uint64_t, 4>{4096, 6104}));
  EXPECT_EQ(N.FrameSize, 6112u);
  EXPECT_EQ(constantArg(N.Frame, 1), 6112u);
  ASSERT_EQ(N.CanaryAddresses.size(), 2u);
  for (auto [Offset, Address] : zip(N.CanaryOffsets, N.CanaryAddresses))
    EXPECT_EQ(offsetFrom(Address, N.Frame, T.M->getDataLayout()),
              int64_t(Offset));
  ASSERT_EQ(N.Dynamic.size(), 1u);
  EXPECT_NE(N.Dynamic[0].CanaryAddress, nullptr);
  // The allocation asks for the canary's 8 bytes more than the VLA.
  auto *Asked = dyn_cast<BinaryOperator>(N.Dynamic[0].Alloc->getArgOperand(1));
  ASSERT_TRUE(Asked);
  EXPECT_EQ(Asked->getOperand(0), N.Dynamic[0].Bytes);
  // No default pool: nothing moves its top.
  EXPECT_TRUE(T.D.defaultPoolChanges().empty());
}

TEST(DemotionResult, NothingAskedNothingDone) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, R"IR(
define void @f() {
  %a = alloca i32
  ret void
}
)IR");
  ASSERT_TRUE(M);
  FunctionDemotion D = demoteAllocas(*M->getFunction("f"), {}, true);
  EXPECT_TRUE(D.empty());
  EXPECT_TRUE(D.defaultPoolChanges().empty());
  EXPECT_EQ(D.pool(""), nullptr);
}

// The resume points keep the expected top after each change the result
// names: a fresh mark after an allocation, the mark released to after a
// release.
TEST(DemotionResult, ResumePointsFollowTheRecordedCalls) {
  Demoted T(R"IR(
declare void @use(ptr)
declare i32 @setjmp(ptr) returns_twice
define void @f(i64 %n, ptr %env) {
entry:
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  %r = call i32 @setjmp(ptr %env)
  %sp = call ptr @llvm.stacksave()
  %vla = alloca i8, i64 %n
  call void @use(ptr %vla)
  call void @llvm.stackrestore(ptr %sp)
  ret void
}
declare ptr @llvm.stacksave()
declare void @llvm.stackrestore(ptr)
)IR",
            {{"buf", ""}, {"vla", ""}});
  ASSERT_TRUE(T.F);
  auto Changes = T.D.defaultPoolChanges();
  // The frame, the VLA, the stackrestore and the ret's release.
  ASSERT_EQ(Changes.size(), 4u);
  restoreArenaAtResumePoints(*T.F, T.D.defaultPoolChanges());
  EXPECT_FALSE(verifyFunction(*T.F, &errs()));
  for (auto [Call, ReleasedTo] : Changes) {
    Instruction *Next = Call->getNextNode();
    Value *Top = ReleasedTo;
    if (!ReleasedTo) {
      EXPECT_EQ(calleeName(Next), "__scopealloc_mark");
      Top = Next;
      Next = Next->getNextNode();
    }
    auto *Store = dyn_cast<StoreInst>(Next);
    ASSERT_TRUE(Store) << "no store after " << calleeName(Call).str();
    EXPECT_TRUE(Store->isVolatile());
    EXPECT_EQ(Store->getPointerOperand()->getName(), "scopealloc.top");
    EXPECT_EQ(Store->getValueOperand(), Top);
  }
}

} // namespace
