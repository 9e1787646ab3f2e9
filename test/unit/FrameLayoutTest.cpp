//===- FrameLayoutTest.cpp - layoutFrame on parsed IR ---------------------===//
#include "placement/FrameLayout.h"
#include "IRParsing.h"
#include "LLVMCompat.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;
using namespace scopealloc;
using namespace scopealloc::test;

namespace {

struct Laid {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  FrameLayout L;

  Laid(StringRef IR, ArrayRef<StringRef> Names, uint64_t CanarySize = 0) {
    M = parseIR(Ctx, IR);
    if (!M)
      return;
    Function &F = *M->getFunction("f");
    SmallVector<AllocaInst *, 8> Allocas;
    for (StringRef N : Names)
      Allocas.push_back(allocaNamed(F, N));
    L = layoutFrame(F, Allocas, CanarySize);
  }

  uint64_t offset(StringRef Name) const {
    for (auto [AI, Off] : zip(L.Allocas, L.Offsets))
      if (AI->getName() == Name)
        return Off;
    ADD_FAILURE() << "%" << Name.str() << " not laid out";
    return ~uint64_t(0);
  }
};

// No lifetime markers: every alloca is live for the whole function.
TEST(FrameLayout, OffsetsHonourAlignment) {
  Laid T(R"IR(
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
declare void @use(ptr, ptr, ptr)
define void @f() {
  %a = alloca [3 x i8], align 1
  %b = alloca i64, align 8
  %c = alloca [5 x i8], align 4
  call void @use(ptr %a, ptr %b, ptr %c)
  ret void
}
)IR",
         {"a", "b", "c"});
  ASSERT_EQ(T.L.Allocas.size(), 3u);
  // Most aligned first, then largest: %b, %c, %a.
  EXPECT_EQ(T.L.Allocas[0]->getName(), "b");
  EXPECT_EQ(T.L.Allocas[1]->getName(), "c");
  EXPECT_EQ(T.L.Allocas[2]->getName(), "a");
  EXPECT_EQ(T.offset("b"), 0u);
  EXPECT_EQ(T.offset("c"), 8u);
  EXPECT_EQ(T.offset("a"), 13u);
  EXPECT_EQ(T.L.Size, 16u);
  EXPECT_EQ(T.L.Alignment.value(), 8u);
  EXPECT_TRUE(T.L.CanaryOffsets.empty());
  for (auto [AI, Off] : zip(T.L.Allocas, T.L.Offsets))
    EXPECT_EQ(Off % AI->getAlign().value(), 0u) << AI->getName().str();
}

// An alignment larger than what came before pushes the next buffer up.
TEST(FrameLayout, PaddingBeforeAnAlignedBuffer) {
  Laid T(R"IR(
declare void @use(ptr, ptr)
define void @f() {
  %p = alloca [24 x i8], align 32
  %q = alloca [16 x i8], align 32
  call void @use(ptr %p, ptr %q)
  ret void
}
)IR",
         {"p", "q"});
  EXPECT_EQ(T.offset("p"), 0u);
  EXPECT_EQ(T.offset("q"), 32u);
  EXPECT_EQ(T.L.Size, 48u);
  EXPECT_EQ(T.L.Alignment.value(), 32u);
}

static constexpr const char *Disjoint = R"IR(
declare void @use(ptr)
define void @f() {
  %x = alloca [64 x i8], align 16
  %y = alloca [64 x i8], align 16
  %z = alloca [32 x i8], align 16
  call void @llvm.lifetime.start.p0(i64 64, ptr %x)
  call void @use(ptr %x)
  call void @llvm.lifetime.end.p0(i64 64, ptr %x)
  call void @llvm.lifetime.start.p0(i64 64, ptr %y)
  call void @use(ptr %y)
  call void @llvm.lifetime.end.p0(i64 64, ptr %y)
  call void @llvm.lifetime.start.p0(i64 32, ptr %z)
  call void @use(ptr %z)
  call void @llvm.lifetime.end.p0(i64 32, ptr %z)
  ret void
}
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)
)IR";

TEST(FrameLayout, DisjointLifetimesShareBytes) {
  Laid T(Disjoint, {"x", "y", "z"});
  EXPECT_EQ(T.offset("x"), 0u);
  EXPECT_EQ(T.offset("y"), 0u);
  EXPECT_EQ(T.offset("z"), 0u);
  EXPECT_EQ(T.L.Size, 64u);
}

TEST(FrameLayout, OverlappingLifetimesDoNotShare) {
  Laid T(R"IR(
declare void @use(ptr, ptr)
define void @f() {
  %x = alloca [64 x i8], align 16
  %y = alloca [64 x i8], align 16
  call void @llvm.lifetime.start.p0(i64 64, ptr %x)
  call void @llvm.lifetime.start.p0(i64 64, ptr %y)
  call void @use(ptr %x, ptr %y)
  call void @llvm.lifetime.end.p0(i64 64, ptr %x)
  call void @llvm.lifetime.end.p0(i64 64, ptr %y)
  ret void
}
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)
)IR",
         {"x", "y"});
  EXPECT_EQ(T.offset("x"), 0u);
  EXPECT_EQ(T.offset("y"), 64u);
  EXPECT_EQ(T.L.Size, 128u);
}

// Canaries are live for the whole frame: buffers of the same size share
// their canary too, a smaller one may not put its data or its canary over
// a canary or (for the canary) over any buffer.
TEST(FrameLayout, CanariesNeverOverlapABuffer) {
  Laid T(Disjoint, {"x", "y", "z"}, /*CanarySize=*/8);
  EXPECT_EQ(T.offset("x"), 0u);
  EXPECT_EQ(T.offset("y"), 0u);
  EXPECT_EQ(T.offset("z"), 80u);
  EXPECT_EQ(T.L.CanaryOffsets, (SmallVector<uint64_t, 8>{64, 112}));
  EXPECT_EQ(T.L.Size, 120u);
  for (uint64_t C : T.L.CanaryOffsets)
    for (auto [AI, Off] : zip(T.L.Allocas, T.L.Offsets)) {
      uint64_t End = Off + *getAllocationSize(*AI, T.M->getDataLayout());
      EXPECT_TRUE(C + 8 <= Off || End <= C)
          << "canary at " << C << " overlaps %" << AI->getName().str();
    }
}

} // namespace
