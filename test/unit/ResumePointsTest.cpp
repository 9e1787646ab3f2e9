//===- ResumePointsTest.cpp - Finding where execution resumes -------------===//
#include "transform/ResumePoints.h"
#include "IRParsing.h"

using namespace llvm;
using namespace scopealloc;
using namespace scopealloc::test;

namespace {

static constexpr const char *IR = R"IR(
declare void @may_throw()
declare i32 @__gxx_personality_v0(...)
declare i32 @setjmp(ptr) returns_twice
declare i32 @not_setjmp(ptr)

define void @plain() {
  call void @may_throw()
  ret void
}

define void @catches() personality ptr @__gxx_personality_v0 {
  invoke void @may_throw() to label %ok unwind label %lp
ok:
  ret void
lp:
  %e = landingpad { ptr, i32 } catch ptr null
  ret void
}

define void @filters() personality ptr @__gxx_personality_v0 {
  invoke void @may_throw() to label %ok unwind label %lp
ok:
  ret void
lp:
  %e = landingpad { ptr, i32 } filter [0 x ptr] zeroinitializer
  ret void
}

define void @cleanup_only() personality ptr @__gxx_personality_v0 {
  invoke void @may_throw() to label %ok unwind label %lp
ok:
  ret void
lp:
  %e = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %e
}

define void @calls_setjmp(ptr %buf) {
  br label %later
later:
  %r = call i32 @setjmp(ptr %buf)
  ret void
}

define void @attribute_at_call(ptr %buf) {
  %r = call i32 @not_setjmp(ptr %buf) returns_twice
  ret void
}

define void @no_returns_twice(ptr %buf) {
  %r = call i32 @not_setjmp(ptr %buf)
  ret void
}
)IR";

TEST(ResumePoints, FoundWhereExecutionResumes) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, IR);
  ASSERT_TRUE(M);
  auto Has = [&](StringRef Name) {
    return hasResumePoints(*M->getFunction(Name));
  };
  EXPECT_FALSE(Has("plain"));
  EXPECT_TRUE(Has("catches"));
  EXPECT_TRUE(Has("filters"));
  // A cleanup runs and resumes unwinding: nothing resumes in this frame.
  EXPECT_FALSE(Has("cleanup_only"));
  EXPECT_TRUE(Has("calls_setjmp"));
  EXPECT_TRUE(Has("attribute_at_call"));
  EXPECT_FALSE(Has("no_returns_twice"));
}

} // namespace
