//===- StaticPlanPiecesTest.cpp - The static plan's pure pieces -----------===//
//
// GreedyBySize (the reference plan), CallSiteLiveness (buffers live at each
// call) and TableDispatch (functions only the program's own tables call),
// each on its own.
#include "IRParsing.h"
#include "placement/CallSiteLiveness.h"
#include "placement/GreedyBySize.h"
#include "placement/TableDispatch.h"

using namespace llvm;
using namespace scopealloc;
using namespace scopealloc::test;

namespace {

TEST(GreedyBySize, BuffersThatNeverConflictShareOffsetZero) {
  std::vector<PlannedBuffer> B{
      {100, Align(16)}, {300, Align(16)}, {50, Align(8)}};
  EXPECT_EQ(greedyBySize(B, [](unsigned, unsigned) { return false; }), 300u);
}

TEST(GreedyBySize, LargestFirstThenLowestFreeGap) {
  // 0 (400) conflicts with 1 (100) and 2 (200); 1 and 2 do not conflict:
  // 0 at 0, 2 at 400, 1 at 400 too.
  std::vector<PlannedBuffer> B{
      {400, Align(16)}, {100, Align(16)}, {200, Align(16)}};
  auto Conflict = [](unsigned A, unsigned C) { return (A == 0) != (C == 0); };
  EXPECT_EQ(greedyBySize(B, Conflict), 600u);
}

TEST(GreedyBySize, AlignmentPushesPastAConflict) {
  std::vector<PlannedBuffer> B{{24, Align(8)}, {8, Align(64)}};
  EXPECT_EQ(greedyBySize(B, [](unsigned, unsigned) { return true; }), 72u);
}

TEST(CallSiteLiveness, BuffersAliveAfterEachCall) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, R"IR(
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
declare void @use(ptr)
declare void @g()
declare void @h()
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)
define void @f(ptr %fp) {
  %a = alloca [64 x i8]
  %b = alloca [64 x i8]
  call void @llvm.lifetime.start.p0(i64 64, ptr %a)
  call void @use(ptr %a)
  call void @g()
  call void @llvm.lifetime.end.p0(i64 64, ptr %a)
  call void @h()
  call void %fp()
  call void @use(ptr %b)
  ret void
}
)IR");
  ASSERT_TRUE(M);
  Function &F = *M->getFunction("f");
  AllocaInst *A = allocaNamed(F, "a"), *B = allocaNamed(F, "b");
  SmallVector<AllocaInst *, 2> Buffers{A, B};
  CallSiteLiveness L = CallSiteLiveness::compute(F, Buffers);
  // %b has no markers: alive everywhere. %a only up to its end.
  BitVector G = L.Direct.lookup(M->getFunction("g"));
  BitVector H = L.Direct.lookup(M->getFunction("h"));
  ASSERT_EQ(G.size(), 2u);
  EXPECT_TRUE(G.test(0) && G.test(1));
  EXPECT_TRUE(!H.test(0) && H.test(1));
  ASSERT_TRUE(L.Indirect);
  EXPECT_TRUE(!L.Indirect->test(0) && L.Indirect->test(1));
  // A callee: at its direct calls; no direct call shows it: the whole
  // frame.
  EXPECT_EQ(L.aliveAtCallsOf(M->getFunction("h")).count(), 1u);
  EXPECT_EQ(L.aliveAtCallsOf(M->getFunction("use")).count(), 2u);
  EXPECT_EQ(L.aliveAtCallsOf(nullptr).count(), 2u);
  EXPECT_EQ(L.aliveAtIndirectCalls().count(), 1u);
  EXPECT_EQ(L.CallsAcross[0], 2u); // use, g
  EXPECT_EQ(L.CallsAcross[1], 5u); // use, g, h, %fp, use
}

TEST(TableDispatch, OnlyOwnConstantTablesLoadedToCall) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, R"IR(
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
@table = internal constant [2 x ptr] [ptr @own, ptr @own2]
@exported = constant [1 x ptr] [ptr @public]
@mutable = internal global [1 x ptr] [ptr @written]
@leak = global ptr null
define internal void @own() { ret void }
define internal void @own2() { ret void }
define internal void @public() { ret void }
define internal void @written() { ret void }
define internal void @stored() { ret void }
define void @main(i64 %i) {
  %slot = getelementptr [2 x ptr], ptr @table, i64 0, i64 %i
  %f = load ptr, ptr %slot
  call void %f()
  store ptr @stored, ptr @leak
  %w = load ptr, ptr @mutable
  call void %w()
  ret void
}
)IR");
  ASSERT_TRUE(M);
  EXPECT_TRUE(calledOnlyThroughOwnTables(*M->getFunction("own")));
  EXPECT_TRUE(calledOnlyThroughOwnTables(*M->getFunction("own2")));
  EXPECT_FALSE(calledOnlyThroughOwnTables(*M->getFunction("public")));
  EXPECT_FALSE(calledOnlyThroughOwnTables(*M->getFunction("written")));
  EXPECT_FALSE(calledOnlyThroughOwnTables(*M->getFunction("stored")));
  EXPECT_FALSE(calledOnlyThroughOwnTables(*M->getFunction("main")));
}

} // namespace
