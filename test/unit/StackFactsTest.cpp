//===- StackFactsTest.cpp - The facts a record holds, and its bytes -------===//
//
// collectFacts and addPoolFacts on parsed IR: callees, indirect call types,
// references, flags, dynamic allocations and pool frames; typeSignature
// spells structures out so that modules agree; recordAssembly's header.
//
//===----------------------------------------------------------------------===//
#include "facts/StackFacts.h"
#include "FactsFormat.h"
#include "IRParsing.h"
#include "LLVMCompat.h"
#include "transform/AllocaDemotion.h"

#include "llvm/IR/Module.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace scopealloc;
using namespace scopealloc::test;

namespace {

const char *Header = R"(
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
)";

std::vector<std::string> names(const std::vector<FunctionFacts::SymbolUse> &L) {
  std::vector<std::string> Out;
  for (const FunctionFacts::SymbolUse &S : L)
    Out.push_back(S.Name);
  return Out;
}

TEST(StackFacts, CallsReferencesAndFlags) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, std::string(Header) + R"(
declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare extern_weak void @maybe()
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
define internal ptr @worker(ptr %p) { ret ptr %p }
define internal void @helper() { ret void }
define void @f(ptr %fp, ptr %dst, ptr %src, ptr %start) {
  call void @helper()
  call void @helper()
  call i32 %fp(i64 1, ptr null)
  call i32 %fp(i64 2, ptr null)
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 64, i1 false)
  call void @maybe()
  %t = call i32 @pthread_create(ptr %dst, ptr null, ptr @worker, ptr null)
  %u = call i32 @pthread_create(ptr %dst, ptr null, ptr %start, ptr null)
  store ptr @helper, ptr %dst
  ret void
}
)");
  ASSERT_TRUE(M);
  FunctionFacts F = collectFacts(*M->getFunction("f"));
  EXPECT_EQ(F.Name, "f");
  EXPECT_EQ(F.Type, "void (ptr, ptr, ptr, ptr)");
  EXPECT_EQ(names(F.Calls),
            (std::vector<std::string>{"helper", "memcpy", "maybe",
                                      "pthread_create"}));
  EXPECT_TRUE(F.Calls[0].Relocatable);  // defined here
  EXPECT_FALSE(F.Calls[1].Relocatable); // a library call by name
  EXPECT_FALSE(F.Calls[2].Relocatable); // a declaration
  EXPECT_EQ(F.Calls[2].Flags, uint64_t(facts::CallWeak));
  EXPECT_EQ(F.IndirectCalls.size(), 1u);
  EXPECT_EQ(F.IndirectCalls["i32 (i64, ptr)"], 2u);
  EXPECT_EQ(names(F.Refs), (std::vector<std::string>{"worker", "helper"}));
  EXPECT_EQ(F.Refs[0].Flags, uint64_t(facts::RefThreadStart));
  EXPECT_EQ(F.Refs[1].Flags, 0u);
  EXPECT_EQ(F.Flags,
            uint64_t(facts::FlagExternal | facts::FlagUnknownThreadStart));
  // Stored: its address escapes. Passed to pthread_create: registered.
  EXPECT_EQ(collectFacts(*M->getFunction("helper")).Flags,
            uint64_t(facts::FlagAddressTaken | facts::FlagAddressEscapes));
  EXPECT_EQ(collectFacts(*M->getFunction("worker")).Flags,
            uint64_t(facts::FlagAddressTaken));
}

TEST(StackFacts, RegistrationsAndEscapes) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, std::string(Header) + R"(
declare i32 @atexit(ptr)
declare i32 @pthread_atfork(ptr, ptr, ptr)
declare i32 @__cxa_thread_atexit(ptr, ptr, ptr)
declare void @elsewhere(ptr)
@table = internal constant [1 x ptr] [ptr @tabled]
define internal void @handler() { ret void }
define internal void @tabled() { ret void }
define internal void @dtor(ptr %p) { ret void }
define internal void @both() { ret void }
define void @f(ptr %obj) {
  call i32 @atexit(ptr @handler)
  call i32 @pthread_atfork(ptr null, ptr @handler, ptr null)
  call i32 @__cxa_thread_atexit(ptr @dtor, ptr %obj, ptr null)
  call i32 @atexit(ptr @both)
  call void @elsewhere(ptr @both)
  ret void
}
)");
  ASSERT_TRUE(M);
  FunctionFacts F = collectFacts(*M->getFunction("f"));
  EXPECT_EQ(names(F.Refs),
            (std::vector<std::string>{"handler", "dtor", "both"}));
  EXPECT_EQ(F.Refs[0].Flags,
            uint64_t(facts::RefExitHandler | facts::RefForkHandler));
  EXPECT_EQ(F.Refs[1].Flags, uint64_t(facts::RefThreadExitHandler));
  EXPECT_EQ(F.Refs[2].Flags, uint64_t(facts::RefExitHandler));
  auto Flags = [&](const char *Name) {
    return collectFacts(*M->getFunction(Name)).Flags;
  };
  EXPECT_EQ(Flags("handler"), uint64_t(facts::FlagAddressTaken));
  EXPECT_EQ(Flags("dtor"), uint64_t(facts::FlagAddressTaken));
  // A table the image's data shows; an argument of an unknown function.
  EXPECT_EQ(Flags("tabled"), uint64_t(facts::FlagAddressTaken));
  EXPECT_EQ(Flags("both"),
            uint64_t(facts::FlagAddressTaken | facts::FlagAddressEscapes));
}

TEST(StackFacts, AnnotationsAreNoAddressTaken) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, std::string(Header) + R"(
@.str = private constant [20 x i8] c"scope-alloc-entry=1\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @task, ptr @.str, ptr null, i32 1, ptr null }], section "llvm.metadata"
define void @task() #0 { ret void }
attributes #0 = { "scope-alloc-entry"="1" }
)");
  ASSERT_TRUE(M);
  EXPECT_EQ(collectFacts(*M->getFunction("task")).Flags,
            uint64_t(facts::FlagEntry | facts::FlagExternal));
}

TEST(StackFacts, DynamicAllocationsOnTheStackAndInPools) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, std::string(Header) + R"(
declare void @use(ptr)
define void @f(i64 %n) {
entry:
  %fixed = alloca [64 x i8], align 16
  %big = alloca [4096 x i8], align 32
  %vla = alloca i8, i64 %n, align 16
  call void @use(ptr %fixed)
  call void @use(ptr %big)
  call void @use(ptr %vla)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %each = alloca [32 x i8], align 8
  call void @use(ptr %each)
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)");
  ASSERT_TRUE(M);
  Function &F = *M->getFunction("f");
  FunctionDemotion D = demoteAllocas(
      F, {{allocaNamed(F, "big"), "npu"}, {allocaNamed(F, "vla"), ""}}, true);
  FunctionFacts Facts = collectFacts(F);
  addPoolFacts(Facts, F, D);
  ASSERT_EQ(Facts.Pools.size(), 1u);
  EXPECT_EQ(Facts.Pools[0].Name, "npu");
  EXPECT_GE(Facts.Pools[0].FrameBytes, 4096u);
  EXPECT_EQ(Facts.Pools[0].Align, 32u);
  ASSERT_EQ(Facts.Dynamics.size(), 2u);
  // The alloca in the loop stays on the stack, of constant size.
  EXPECT_EQ(Facts.Dynamics[0].Place, facts::PlaceStack);
  EXPECT_EQ(Facts.Dynamics[0].ConstantBytes, 32u);
  EXPECT_EQ(Facts.Dynamics[0].Flags, uint64_t(facts::DynamicInCycle));
  EXPECT_EQ(Facts.Dynamics[0].Name, "%each");
  // The VLA went to the default pool; its size is known at run time only.
  EXPECT_EQ(Facts.Dynamics[1].Place, facts::PlacePool);
  EXPECT_EQ(Facts.Dynamics[1].Pool, "");
  EXPECT_EQ(Facts.Dynamics[1].ConstantBytes, 0u);
  EXPECT_EQ(Facts.Dynamics[1].Flags, 0u);
}

TEST(StackFacts, TypeSignaturesSpellStructuresOut) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, std::string(Header) + R"(
%struct.pair = type { i32, ptr }
%struct.pair.12 = type { i32, ptr }
%struct.empty = type {}
declare %struct.pair @a(ptr, ...)
declare %struct.pair.12 @b(ptr, ...)
declare void @c(%struct.empty, <4 x float>, [3 x %struct.pair])
)");
  ASSERT_TRUE(M);
  EXPECT_EQ(typeSignature(M->getFunction("a")->getFunctionType()),
            "{ i32, ptr } (ptr, ...)");
  EXPECT_EQ(typeSignature(M->getFunction("a")->getFunctionType()),
            typeSignature(M->getFunction("b")->getFunctionType()));
  EXPECT_EQ(typeSignature(M->getFunction("c")->getFunctionType()),
            "void ({}, <4 x float>, [3 x { i32, ptr }])");
}

TEST(StackFacts, RecordHeader) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, std::string(Header) + R"(
define void @f() { ret void }
)");
  ASSERT_TRUE(M);
  Function &F = *M->getFunction("f");
  std::string Asm = recordAssembly(collectFacts(F), F);
  StringRef A(Asm);
  EXPECT_TRUE(A.starts_with(".pushsection .scopealloc_facts,\"o\",%progbits,f\n"
                            ".byte 83,65,70,82,1,8,0,0\n"
                            ".long "));
  EXPECT_TRUE(A.contains("\n.quad f\n"));
  EXPECT_TRUE(A.ends_with("\n.popsection"));
  // Body: address (8), then tag, size, payload: name "f" (1+1+1), flags
  // (1+1+1), type "void ()" (1+1+7).
  EXPECT_TRUE(A.contains(".long 23\n.quad f\n"
                         ".byte 1,1,102,2,1,4,3,7,118,111,105,100,32,40,41\n"))
      << Asm;
}

} // namespace
