//===- StackPolicyTest.cpp - The layers of the stack policy ---------------===//
#include "policy/StackPolicy.h"
#include "IRParsing.h"
#include "OptionSet.h"

#include "LLVMCompat.h" // llvm/TargetParser/Triple.h
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace scopealloc;
using namespace scopealloc::test;

namespace {

TEST(StackPolicy, TargetDefaults) {
  EXPECT_EQ(
      targetDefaultPolicy(Triple("x86_64-unknown-linux-gnu")).MaxStackAlloca,
      1024u);
  EXPECT_EQ(targetDefaultPolicy(Triple("x86_64-unknown-linux-gnu")).Source,
            "target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU)");
  EXPECT_EQ(targetDefaultPolicy(Triple("thumbv7em-none-eabi")).MaxStackAlloca,
            256u);
  EXPECT_EQ(
      targetDefaultPolicy(Triple("wasm32-unknown-unknown")).MaxStackAlloca,
      512u);
  EXPECT_FALSE(targetDefaultPolicy(Triple("nvptx64-nvidia-cuda")).Enabled);
  EXPECT_FALSE(
      targetDefaultPolicy(Triple("x86_64-unknown-linux-gnu")).FrameBudget);
}

/// A module for thumbv7em with optional module flags and a function @f with
/// optional attributes.
static std::unique_ptr<Module>
policyModule(LLVMContext &Ctx, StringRef Flags = "", StringRef Attrs = "") {
  std::string IR = "target triple = \"thumbv7em-none-eabi\"\n";
  if (Attrs.empty())
    IR += "define void @f() { ret void }\n";
  else
    IR += "define void @f() #0 { ret void }\nattributes #0 = { " + Attrs.str() +
          " }\n";
  if (!Flags.empty())
    IR += "!llvm.module.flags = !{" + Flags.str() + "}\n";
  return parseIR(Ctx, IR);
}

struct PolicyLayers : ::testing::Test {
  SmallString<128> Dir, File;
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("scopealloc-unit", Dir));
    File = Dir;
    sys::path::append(File, "policy.yaml");
    std::error_code EC;
    raw_fd_ostream OS(File, EC);
    ASSERT_FALSE(EC);
    OS << "version: 1\n"
          "pools: [sram]\n"
          "targets:\n"
          "  m4:\n"
          "    triples: [\"thumbv7em-*-eabi*\"]\n"
          "    max-stack-alloca: 128\n"
          "    frame-budget: 4096\n"
          "    pool: sram\n";
  }
  void TearDown() override {
    sys::fs::remove(File);
    sys::fs::remove(Dir);
  }
  StackPolicy policy(StringRef Flags = "", StringRef Attrs = "") {
    LLVMContext Ctx;
    std::unique_ptr<Module> M = policyModule(Ctx, Flags, Attrs);
    EXPECT_TRUE(M);
    if (!M)
      return {};
    std::optional<StackPolicy> P =
        policyForFunction(*M->getFunction("f"), /*ReportErrors=*/false);
    EXPECT_TRUE(P.has_value());
    return P.value_or(StackPolicy());
  }
};

static constexpr const char *LimitFlag =
    R"(!0}
!0 = !{i32 1, !"scope-alloc.max-stack-alloca", i32 64)";
static constexpr const char *LimitAttr =
    R"("scope-alloc-max-stack-alloca"="16")";

// Each layer overrides the one below it, field by field: the default (256
// for bare metal), the policy file, module flags, the command line, the
// function's attributes.
TEST_F(PolicyLayers, DefaultOnly) {
  StackPolicy P = policy();
  EXPECT_EQ(P.MaxStackAlloca, 256u);
  EXPECT_EQ(P.Source,
            "target default for thumbv7em-none-eabi (bare-metal: stacks of a "
            "few KiB)");
  EXPECT_FALSE(P.FrameBudget);
  EXPECT_EQ(P.Pool, "");
}

TEST_F(PolicyLayers, PolicyFileOverDefault) {
  OptionSet PolicyFile("scope-alloc-policy", File);
  StackPolicy P = policy();
  EXPECT_EQ(P.MaxStackAlloca, 128u);
  EXPECT_EQ(P.Source, "policy file " + File.str().str() +
                          ", target 'm4' (matches thumbv7em-none-eabi)");
  EXPECT_EQ(P.FrameBudget, 4096u);
  EXPECT_EQ(P.Pool, "sram");
}

TEST_F(PolicyLayers, ModuleFlagOverPolicyFile) {
  OptionSet PolicyFile("scope-alloc-policy", File);
  StackPolicy P = policy(LimitFlag);
  EXPECT_EQ(P.MaxStackAlloca, 64u);
  EXPECT_EQ(P.Source, "module flags");
  // Fields the flags do not set keep the policy file's values.
  EXPECT_EQ(P.FrameBudget, 4096u);
  EXPECT_EQ(P.Pool, "sram");
}

TEST_F(PolicyLayers, CommandLineOverModuleFlag) {
  OptionSet PolicyFile("scope-alloc-policy", File);
  OptionSet Limit("scope-alloc-max-stack-alloca", "32");
  OptionSet Budget("scope-alloc-frame-budget", "100");
  StackPolicy P = policy(LimitFlag);
  EXPECT_EQ(P.MaxStackAlloca, 32u);
  EXPECT_EQ(P.Source, "-scope-alloc-max-stack-alloca");
  EXPECT_EQ(P.FrameBudget, 100u);
  EXPECT_EQ(P.FrameBudgetSource, "command line");
  EXPECT_EQ(P.Pool, "sram");
}

TEST_F(PolicyLayers, FunctionAttributeOverCommandLine) {
  OptionSet PolicyFile("scope-alloc-policy", File);
  OptionSet Limit("scope-alloc-max-stack-alloca", "32");
  StackPolicy P = policy(LimitFlag, LimitAttr);
  EXPECT_EQ(P.MaxStackAlloca, 16u);
  EXPECT_EQ(P.Source, "function attribute \"scope-alloc-max-stack-alloca\"");
  EXPECT_EQ(P.FrameBudget, 4096u);
}

// The options are reset between tests: nothing leaks into the next one.
TEST_F(PolicyLayers, OptionsResetAfterEachTest) {
  StackPolicy P = policy();
  EXPECT_EQ(P.MaxStackAlloca, 256u);
  EXPECT_FALSE(P.FrameBudget);
}

TEST_F(PolicyLayers, BadFunctionAttributeIsAnError) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M =
      policyModule(Ctx, "", R"("scope-alloc-max-stack-alloca"="lots")");
  ASSERT_TRUE(M);
  EXPECT_FALSE(policyForFunction(*M->getFunction("f"), /*ReportErrors=*/false));
}

} // namespace
