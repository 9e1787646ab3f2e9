//===- FrameBudgetTest.cpp - Ranking for the frame budget -----------------===//
#include "placement/FrameBudget.h"
#include "IRParsing.h"

using namespace llvm;
using namespace scopealloc;
using namespace scopealloc::test;

namespace {

// %a: 16 bytes, 4 accesses (0.25 per byte); %b: 64 bytes, 2 accesses
// through a GEP (1/32); %c and %d: 8 bytes, 1 call each (0.125).
static constexpr const char *IR = R"IR(
declare void @use(ptr)
define void @f() {
  %a = alloca [4 x i32], align 4
  %b = alloca [64 x i8], align 1
  %c = alloca [8 x i8], align 1
  %d = alloca [8 x i8], align 1
  store i32 1, ptr %a
  %a1 = getelementptr i32, ptr %a, i64 1
  store i32 2, ptr %a1
  %v = load i32, ptr %a
  %w = load i32, ptr %a1
  %b8 = getelementptr i8, ptr %b, i64 8
  store i8 0, ptr %b8
  call void @use(ptr %b8)
  call void @use(ptr %c)
  call void @use(ptr %d)
  ret void
}
)IR";

struct Ranked : ::testing::Test {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, IR);
  Function &F = *M->getFunction("f");
  SmallVector<BudgetCandidate, 4> Candidates{{allocaNamed(F, "a"), 16},
                                             {allocaNamed(F, "b"), 64},
                                             {allocaNamed(F, "c"), 8},
                                             {allocaNamed(F, "d"), 8}};
};

TEST_F(Ranked, BenefitIsAccessesPerByte) {
  EXPECT_DOUBLE_EQ(stackBenefit(*allocaNamed(F, "a"), 16), 0.25);
  EXPECT_DOUBLE_EQ(stackBenefit(*allocaNamed(F, "b"), 64), 2.0 / 64);
  EXPECT_DOUBLE_EQ(stackBenefit(*allocaNamed(F, "c"), 8), 0.125);
  // A zero-size alloca counts as one byte.
  EXPECT_DOUBLE_EQ(stackBenefit(*allocaNamed(F, "c"), 0), 1.0);
}

// Most benefit first, then smaller, then program order (%c before %d); each
// stays while the kept bytes fit.
TEST_F(Ranked, KeepsByBenefitWhileTheyFit) {
  SmallVector<BudgetChoice, 8> C =
      chooseWithinBudget(Candidates, /*Used=*/16, /*Budget=*/40);
  ASSERT_EQ(C.size(), 4u);
  EXPECT_EQ(C[0].Index, 0u); // %a
  EXPECT_TRUE(C[0].Stays);
  EXPECT_EQ(C[0].Used, 32u);
  EXPECT_EQ(C[1].Index, 2u); // %c
  EXPECT_TRUE(C[1].Stays);
  EXPECT_EQ(C[1].Used, 40u);
  EXPECT_EQ(C[2].Index, 3u); // %d: 48 > 40
  EXPECT_FALSE(C[2].Stays);
  EXPECT_EQ(C[2].Used, 40u);
  EXPECT_EQ(C[3].Index, 1u); // %b
  EXPECT_FALSE(C[3].Stays);
  EXPECT_EQ(C[3].Used, 40u);
}

// The rank, not the order given, decides; the budget itself may be used up.
TEST_F(Ranked, RankNotInputOrderAndBudgetInclusive) {
  SmallVector<BudgetCandidate, 4> Two{Candidates[1], Candidates[3]};
  // %d (0.125) ranks before %b (1/32) whatever the order given.
  SmallVector<BudgetChoice, 8> C = chooseWithinBudget(Two, 0, 70);
  ASSERT_EQ(C.size(), 2u);
  EXPECT_EQ(C[0].Index, 1u);
  EXPECT_TRUE(C[0].Stays);
  EXPECT_EQ(C[1].Index, 0u);
  EXPECT_FALSE(C[1].Stays); // 8 + 64 > 70
  C = chooseWithinBudget(Two, 0, 72);
  EXPECT_TRUE(C[1].Stays);
  EXPECT_EQ(C[1].Used, 72u);
}

TEST_F(Ranked, ZeroBudgetKeepsNothing) {
  for (const BudgetChoice &C : chooseWithinBudget(Candidates, 0, 0)) {
    EXPECT_FALSE(C.Stays);
    EXPECT_EQ(C.Used, 0u);
  }
}

} // namespace
