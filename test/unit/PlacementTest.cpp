//===- PlacementTest.cpp - The placement rules as functions ---------------===//
#include "placement/Placement.h"
#include "IRParsing.h"
#include "LLVMCompat.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"

using namespace llvm;
using namespace scopealloc;
using namespace scopealloc::test;

namespace {

Scope scope(StringRef Spelling) {
  Expected<Scope> S = parseScopeSpelling(Spelling);
  EXPECT_TRUE(static_cast<bool>(S)) << Spelling.str();
  return S ? *S : Scope();
}

StackPolicy policy(uint64_t Limit = 64,
                   DynamicRule Dynamic = DynamicRule::Demote,
                   std::string Pool = "") {
  StackPolicy P;
  P.MaxStackAlloca = Limit;
  P.Source = "test";
  P.Dynamic = Dynamic;
  P.Pool = std::move(Pool);
  return P;
}

// The remarks and the report print these names; scripts read them.
TEST(PlacementRules, NamesAreTheRemarkRules) {
  EXPECT_EQ(ruleName(PlacementRule::CannotMove), "cannot-move");
  EXPECT_EQ(ruleName(PlacementRule::ScopeStack), "scope-stack");
  EXPECT_EQ(ruleName(PlacementRule::ScopePool), "scope-pool");
  EXPECT_EQ(ruleName(PlacementRule::DynamicSize), "dynamic-size");
  EXPECT_EQ(ruleName(PlacementRule::DynamicKeep), "dynamic-keep");
  EXPECT_EQ(ruleName(PlacementRule::DynamicReject), "dynamic-reject");
  EXPECT_EQ(ruleName(PlacementRule::OverLimit), "over-limit");
  EXPECT_EQ(ruleName(PlacementRule::WithinLimit), "within-limit");
  EXPECT_EQ(ruleName(PlacementRule::OverBudget), "over-budget");
  EXPECT_EQ(ruleName(PlacementRule::WithDynamic), "with-dynamic");
  EXPECT_EQ(ruleName(PlacementRule::FitStackBound), "fit-stack-bound");
  // The decision's rule reads as its name where text is wanted.
  AllocaDecision D{nullptr, Scope()};
  D.Rule = PlacementRule::OverBudget;
  std::string Text = D.Rule;
  EXPECT_EQ(Text, "over-budget");
}

TEST(PlacementRules, ScopeDecidesFirst) {
  EXPECT_FALSE(placeByScope(Scope()));
  EXPECT_FALSE(placeByScope(scope("global")));

  // A stack scope keeps even what exceeds the limit.
  BufferVerdict V = placeBuffer(scope("local"), 4096, policy(64));
  EXPECT_EQ(V.Action, AllocaDecision::Keep);
  EXPECT_EQ(V.Rule, PlacementRule::ScopeStack);

  // A pool scope moves even what is within the limit, to its own pool.
  V = placeBuffer(scope("global.workspace"), 8, policy(64, {}, "sram"));
  EXPECT_EQ(V.Action, AllocaDecision::Demote);
  EXPECT_EQ(V.Rule, PlacementRule::ScopePool);
  EXPECT_EQ(V.Pool, ""); // the default pool, not the policy's
  V = placeBuffer(scope("global.npu_sram"), 8, policy());
  EXPECT_EQ(V.Pool, "npu_sram");
}

TEST(PlacementRules, DynamicSizeFollowsThePolicy) {
  BufferVerdict V = placeBuffer(Scope(), std::nullopt,
                                policy(64, DynamicRule::Demote, "sram"));
  EXPECT_EQ(V.Action, AllocaDecision::Demote);
  EXPECT_EQ(V.Rule, PlacementRule::DynamicSize);
  EXPECT_EQ(V.Pool, "sram");
  V = placeBuffer(Scope(), std::nullopt, policy(64, DynamicRule::Keep));
  EXPECT_EQ(V.Action, AllocaDecision::Keep);
  EXPECT_EQ(V.Rule, PlacementRule::DynamicKeep);
  V = placeBuffer(Scope(), std::nullopt, policy(64, DynamicRule::Reject));
  EXPECT_EQ(V.Action, AllocaDecision::Rejected);
  EXPECT_EQ(V.Rule, PlacementRule::DynamicReject);
}

// "An allocation of at most the limit may stay."
TEST(PlacementRules, LimitIsInclusive) {
  EXPECT_EQ(placeBuffer(Scope(), 64, policy(64)).Rule,
            PlacementRule::WithinLimit);
  BufferVerdict V = placeBuffer(scope("global"), 65, policy(64, {}, "sram"));
  EXPECT_EQ(V.Action, AllocaDecision::Demote);
  EXPECT_EQ(V.Rule, PlacementRule::OverLimit);
  EXPECT_EQ(V.Pool, "sram");
  EXPECT_EQ(placeBuffer(Scope(), 0, policy(0)).Rule,
            PlacementRule::WithinLimit);
  EXPECT_EQ(placeBuffer(Scope(), 1, policy(0)).Rule, PlacementRule::OverLimit);
}

TEST(PlacementRules, Texts) {
  StackPolicy P = policy(64);
  P.FrameBudget = 600;
  P.FrameBudgetSource = "command line";
  EXPECT_EQ(limitText(P), "limit 64 bytes (test)");
  EXPECT_EQ(budgetText(P), "frame budget 600 bytes (command line)");
  // Reasons (remarks, the report) cite the values alone by default.
  EXPECT_EQ(limitInReason(P), "limit 64 bytes");
  EXPECT_EQ(budgetInReason(P), "frame budget 600 bytes");
  EXPECT_EQ(sourceInReason("test"), "");
}

static constexpr const char *IR = R"IR(
target datalayout = "e-m:e-p:64:64-i64:64-n8:16:32:64-S128"
declare void @use(ptr)
define void @f(i64 %n) {
  %small = alloca [16 x i8]
  %busy = alloca [32 x i8]
  %big = alloca [100 x i8]
  %loc = alloca [200 x i8], !scope !0
  %ws = alloca [8 x i8], !scope !1
  %esc = alloca [4 x i8]
  call void (...) @llvm.localescape(ptr %esc)
  %vla = alloca i8, i64 %n
  call void @use(ptr %small)
  store i8 0, ptr %busy
  store i8 1, ptr %busy
  call void @use(ptr %busy)
  call void @use(ptr %big)
  call void @use(ptr %loc)
  call void @use(ptr %ws)
  call void @use(ptr %vla)
  ret void
}
declare void @llvm.localescape(...)
!0 = !{!"local"}
!1 = !{!"global.workspace"}
)IR";

struct Planned : ::testing::Test {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, IR);
  Function &F = *M->getFunction("f");
  std::vector<std::string> Diagnostics;

  void SetUp() override {
    Ctx.setDiagnosticHandlerCallBack(
        [](scopealloc::DiagnosticHandlerArg DI, void *Context) {
          std::string S;
          raw_string_ostream OS(S);
          DiagnosticPrinterRawOStream DP(OS);
          scopealloc::diagnosticOf(DI).print(DP);
          static_cast<Planned *>(Context)->Diagnostics.push_back(S);
        },
        this);
  }

  const AllocaDecision &decision(const FunctionPlanner &P, StringRef Name) {
    for (const AllocaDecision &D : P.Decisions)
      if (D.Alloca->getName() == Name)
        return D;
    ADD_FAILURE() << "no decision for %" << Name.str();
    return P.Decisions.front();
  }
};

TEST_F(Planned, EveryRuleInOneFunction) {
  StackPolicy P = policy(64);
  FunctionPlanner Planner(F, P);
  ASSERT_TRUE(Planner.plan());
  // The one warning: a stack scope over the limit.
  ASSERT_EQ(Diagnostics.size(), 1u);
  EXPECT_NE(Diagnostics[0].find("'%loc' (200 bytes) stays on the stack "
                                "because of scope 'local', but exceeds the "
                                "limit 64 bytes (test)"),
            std::string::npos)
      << Diagnostics[0];
  ASSERT_EQ(Planner.Decisions.size(), 7u);
  EXPECT_EQ(decision(Planner, "small").Rule, PlacementRule::WithinLimit);
  EXPECT_EQ(decision(Planner, "big").Rule, PlacementRule::OverLimit);
  EXPECT_EQ(decision(Planner, "big").Action, AllocaDecision::Demote);
  EXPECT_EQ(decision(Planner, "loc").Rule, PlacementRule::ScopeStack);
  EXPECT_EQ(decision(Planner, "ws").Rule, PlacementRule::ScopePool);
  EXPECT_EQ(decision(Planner, "esc").Action, AllocaDecision::Pinned);
  EXPECT_EQ(decision(Planner, "esc").Rule, PlacementRule::CannotMove);
  EXPECT_EQ(decision(Planner, "esc").Reason,
            "it escapes through llvm.localescape");
  EXPECT_EQ(decision(Planner, "vla").Rule, PlacementRule::DynamicSize);
  EXPECT_EQ(decision(Planner, "big").Reason,
            "100 bytes exceed the limit 64 bytes");
  // Every dynamic alloca moves: stackrestore can follow the arena.
  EXPECT_TRUE(Planner.stackSaveMayMoveToArena());
}

// Must-stay bytes count first (loc 200 + esc 4), then by benefit: busy (3
// accesses in 32 bytes) before small (1 in 16); 204 + 32 fits 240, small no
// longer does.
TEST_F(Planned, FrameBudget) {
  StackPolicy P = policy(64);
  P.FrameBudget = 240;
  P.FrameBudgetSource = "test budget";
  FunctionPlanner Planner(F, P);
  ASSERT_TRUE(Planner.plan());
  EXPECT_EQ(decision(Planner, "busy").Rule, PlacementRule::WithinLimit);
  EXPECT_EQ(decision(Planner, "busy").Action, AllocaDecision::Keep);
  const AllocaDecision &Small = decision(Planner, "small");
  EXPECT_EQ(Small.Action, AllocaDecision::Demote);
  EXPECT_EQ(Small.Rule, PlacementRule::OverBudget);
  EXPECT_EQ(Small.Reason,
            "16 bytes are within the limit 64 bytes, but the frame "
            "budget 240 bytes is spent on allocations that must "
            "stay or gain more from the stack (236 bytes kept)");
}

// A dynamic allocation kept on the machine stack keeps llvm.stackrestore
// there; a rejected one is an error naming it.
TEST_F(Planned, DynamicKeepAndReject) {
  FunctionPlanner Keep(F, policy(64, DynamicRule::Keep));
  ASSERT_TRUE(Keep.plan());
  EXPECT_EQ(decision(Keep, "vla").Rule, PlacementRule::DynamicKeep);
  EXPECT_FALSE(Keep.stackSaveMayMoveToArena());

  Diagnostics.clear();
  FunctionPlanner Reject(F, policy(1000, DynamicRule::Reject));
  EXPECT_FALSE(Reject.plan());
  ASSERT_EQ(Diagnostics.size(), 1u);
  EXPECT_NE(Diagnostics[0].find("'%vla' is a dynamically sized allocation, "
                                "which the policy rejects: dynamic "
                                "allocations: reject"),
            std::string::npos)
      << Diagnostics[0];
}

// What a frame budget must hold before promotion: kept (small, busy), stack
// scope (loc) and cannot-move (esc); not what moves (big, ws) nor the VLA.
TEST_F(Planned, StackBytesKept) {
  EXPECT_EQ(stackBytesKept(F, policy(64)), 16u + 32u + 200u + 4u);
  EXPECT_EQ(stackBytesKept(F, policy(0)), 200u + 4u);
  EXPECT_EQ(stackBytesKept(F, policy(1000)), 16u + 32u + 100u + 200u + 4u);
}

} // namespace
