//===- PolicyOptionsTest.cpp - Options, pass parameters, setting values ---===//
#include "policy/PolicyOptions.h"
#include "IRParsing.h"
#include "OptionSet.h"
#include "Scope.h"
#include "policy/StackPolicy.h"

using namespace llvm;
using namespace scopealloc;
using namespace scopealloc::test;

namespace {

/// The message of \p E, which must be an error.
template <typename T> std::string message(Expected<T> E) {
  EXPECT_FALSE(static_cast<bool>(E));
  return E ? std::string() : toString(E.takeError());
}

TEST(SettingValues, ByteCountIsReadOnceForEveryLayer) {
  uint64_t V = 7;
  EXPECT_EQ(readByteCount("0", V), ByteCountRead::OK);
  EXPECT_EQ(V, 0u);
  EXPECT_EQ(readByteCount("18446744073709551615", V), ByteCountRead::OK);
  EXPECT_EQ(V, UINT64_MAX);
  EXPECT_EQ(readByteCount("18446744073709551616", V), ByteCountRead::TooLarge);
  EXPECT_EQ(readByteCount("-5", V), ByteCountRead::Negative);
  EXPECT_EQ(readByteCount("-", V), ByteCountRead::NotANumber);
  EXPECT_EQ(readByteCount("-abc", V), ByteCountRead::NotANumber);
  EXPECT_EQ(readByteCount("", V), ByteCountRead::NotANumber);
  EXPECT_EQ(readByteCount("+5", V), ByteCountRead::NotANumber);
  EXPECT_EQ(readByteCount("0x10", V), ByteCountRead::NotANumber);
  EXPECT_EQ(readByteCount("1k", V), ByteCountRead::NotANumber);
}

TEST(SettingValues, DynamicRule) {
  EXPECT_EQ(*parseDynamicRule("keep"), DynamicRule::Keep);
  EXPECT_EQ(*parseDynamicRule("demote"), DynamicRule::Demote);
  EXPECT_EQ(*parseDynamicRule("reject"), DynamicRule::Reject);
  EXPECT_EQ(message(parseDynamicRule("sometimes")),
            "must be keep, demote or reject, found \"sometimes\"");
  // Policy files quote with ' ; a likely typo gets a hint.
  EXPECT_EQ(message(parseDynamicRule("demot", '\'')),
            "must be keep, demote or reject, found 'demot' (did you mean "
            "'demote'?)");
}

TEST(SettingValues, PoolNames) {
  EXPECT_TRUE(isValidPoolName("npu_sram"));
  EXPECT_TRUE(isValidPoolName("_p0"));
  EXPECT_TRUE(isValidPoolName("workspace"));
  EXPECT_FALSE(isValidPoolName(""));
  EXPECT_FALSE(isValidPoolName("9lives"));
  EXPECT_FALSE(isValidPoolName("npu-sram"));
  EXPECT_EQ(poolNameProblem("npu.sram"),
            "is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)");
  // Scope 'global.stack' is the stack: no scope could name such a pool.
  EXPECT_FALSE(isValidPoolName("stack"));

  EXPECT_EQ(*parsePoolSetting("workspace"), "workspace");
  EXPECT_EQ(*parsePoolSetting("sram"), "sram");
  EXPECT_EQ(message(parsePoolSetting("a b")),
            "must be 'workspace' or a pool name (a C identifier), found \"a "
            "b\"");
  EXPECT_EQ(message(parsePoolSetting("stack")),
            "must be 'workspace' or a pool name, found \"stack\", which is "
            "reserved: scope 'global.stack' means the machine stack, not a "
            "pool");
  // The scope spelling uses the same check.
  EXPECT_EQ(message(parseScopeSpelling("global.9")),
            "pool name '9' in scope 'global.9' is not a C identifier "
            "([A-Za-z_][A-Za-z0-9_]*)");
}

TEST(SettingValues, ByteCount) {
  EXPECT_EQ(*parseByteCount("0"), 0u);
  EXPECT_EQ(*parseByteCount("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(message(parseByteCount("lots")),
            "must be a byte count, found \"lots\"");
  EXPECT_EQ(message(parseByteCount("")), "must be a byte count, found \"\"");
  EXPECT_EQ(message(parseByteCount("-1")),
            "must not be negative, found \"-1\"");
  EXPECT_EQ(message(parseByteCount("18446744073709551616")),
            "must be a byte count, found \"18446744073709551616\", more than "
            "the largest, 18446744073709551615");
}

TEST(PassParameters, EverySetting) {
  Expected<PolicyOptions> O = parsePolicyParameters(
      "limit=0;frame-budget=4096;dynamic=reject;pool=sram;target=m4;"
      "policy=/p.yaml",
      "scope-alloc");
  ASSERT_TRUE(static_cast<bool>(O)) << toString(O.takeError());
  EXPECT_EQ(O->Origin, PolicyOptions::PassParameters);
  EXPECT_EQ(O->Fields.MaxStackAlloca, 0u);
  EXPECT_EQ(O->Fields.FrameBudget, 4096u);
  EXPECT_EQ(O->Fields.Dynamic, DynamicRule::Reject);
  EXPECT_EQ(O->Fields.Pool, "sram");
  EXPECT_EQ(O->Target, "m4");
  EXPECT_EQ(O->PolicyPath, "/p.yaml");
  EXPECT_EQ(O->limitSource(), "pass parameter 'limit'");
  EXPECT_EQ(O->fieldsSource(), "pass parameters");
  std::string Printed;
  raw_string_ostream OS(Printed);
  O->printParameters(OS);
  EXPECT_EQ(Printed, "limit=0;frame-budget=4096;dynamic=reject;pool=sram;"
                     "target=m4;policy=/p.yaml");
}

TEST(PassParameters, EmptyAndAlias) {
  Expected<PolicyOptions> O = parsePolicyParameters("", "scope-alloc");
  ASSERT_TRUE(static_cast<bool>(O));
  EXPECT_TRUE(O->empty());
  O = parsePolicyParameters("max-stack-alloca=12", "scope-alloc");
  ASSERT_TRUE(static_cast<bool>(O));
  EXPECT_EQ(O->Fields.MaxStackAlloca, 12u);
  EXPECT_FALSE(O->empty());
}

TEST(PassParameters, ErrorsNameParameterAndPass) {
  EXPECT_EQ(message(parsePolicyParameters("limt=0", "scope-alloc")),
            "invalid parameter 'limt=0' of pass scope-alloc: unknown "
            "parameter 'limt' (expected limit, frame-budget, dynamic, pool, "
            "stack-scope-over-budget, address-space-scopes, plan, target or "
            "policy) (did you mean 'limit'?)");
  EXPECT_EQ(message(parsePolicyParameters("limit=0;budget", "scope-alloc")),
            "invalid parameter 'budget' of pass scope-alloc: expected "
            "<name>=<value> (limit, frame-budget, dynamic, pool, "
            "stack-scope-over-budget, address-space-scopes, plan, target or "
            "policy)");
  EXPECT_EQ(
      message(parsePolicyParameters("frame-budget=x", "scope-alloc-promote")),
      "invalid parameter 'frame-budget=x' of pass scope-alloc-promote: "
      "'frame-budget' must be a byte count, found \"x\"");
  EXPECT_EQ(message(parsePolicyParameters("dynamic=kep", "scope-alloc")),
            "invalid parameter 'dynamic=kep' of pass scope-alloc: 'dynamic' "
            "must be keep, demote or reject, found \"kep\" (did you mean "
            "'keep'?)");
  EXPECT_EQ(message(parsePolicyParameters("pool=1x", "scope-alloc")),
            "invalid parameter 'pool=1x' of pass scope-alloc: 'pool' must be "
            "'workspace' or a pool name (a C identifier), found \"1x\"");
  EXPECT_EQ(message(parsePolicyParameters("limit=1;max-stack-alloca=2",
                                          "scope-alloc")),
            "invalid parameter 'max-stack-alloca=2' of pass scope-alloc: "
            "'limit' is given twice");
  EXPECT_EQ(message(parsePolicyParameters("target=", "scope-alloc")),
            "invalid parameter 'target=' of pass scope-alloc: 'target' needs "
            "a value");
}

TEST(CommandLine, ReadOnceIntoTheOptions) {
  PolicyOptions None = commandLineOptions();
  EXPECT_TRUE(None.empty());
  EXPECT_TRUE(None.Error.empty());

  OptionSet Limit("scope-alloc-max-stack-alloca", "32");
  OptionSet Dynamic("scope-alloc-dynamic", "keep");
  PolicyOptions O = commandLineOptions();
  EXPECT_EQ(O.Origin, PolicyOptions::CommandLine);
  EXPECT_EQ(O.Fields.MaxStackAlloca, 32u);
  EXPECT_EQ(O.Fields.Dynamic, DynamicRule::Keep);
  EXPECT_EQ(O.limitSource(), "-scope-alloc-max-stack-alloca");
  EXPECT_EQ(O.fieldsSource(), "command line");
  EXPECT_TRUE(O.Error.empty());
}

TEST(CommandLine, BadValueIsTheOptionsError) {
  OptionSet Pool("scope-alloc-pool", "npu-sram");
  EXPECT_EQ(commandLineOptions().Error,
            "-scope-alloc-pool must be 'workspace' or a pool name (a C "
            "identifier), found \"npu-sram\"");
}

static constexpr const char *IR = R"IR(
target triple = "x86_64-unknown-linux-gnu"
define void @f() { ret void }
define void @g() "scope-alloc-max-stack-alloca"="7" { ret void }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"scope-alloc.frame-budget", i32 900}
)IR";

// Module flags < command line < pass parameters < function attributes.
TEST(ModulePolicyLayers, PassParametersOverCommandLine) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, IR);
  ASSERT_TRUE(M);
  PolicyOptions CommandLine;
  CommandLine.Fields.MaxStackAlloca = 100;
  CommandLine.Fields.Pool = "sram";
  Expected<PolicyOptions> Params =
      parsePolicyParameters("limit=4", "scope-alloc");
  ASSERT_TRUE(static_cast<bool>(Params));

  ModulePolicy MP = computeModulePolicy(*M, CommandLine, *Params);
  EXPECT_TRUE(MP.Error.empty()) << MP.Error;
  EXPECT_EQ(MP.Base.MaxStackAlloca, 4u);
  EXPECT_EQ(MP.Base.Source, "pass parameter 'limit'");
  EXPECT_EQ(MP.Base.Pool, "sram");
  EXPECT_EQ(MP.Base.PoolSource, "command line");
  EXPECT_EQ(MP.Base.FrameBudget, 900u);
  EXPECT_EQ(MP.Base.FrameBudgetSource, "module flags");

  // Computed once, used for every function; attributes still win.
  std::optional<StackPolicy> F = policyForFunction(MP, *M->getFunction("f"));
  ASSERT_TRUE(F);
  EXPECT_EQ(F->MaxStackAlloca, 4u);
  std::optional<StackPolicy> G = policyForFunction(MP, *M->getFunction("g"));
  ASSERT_TRUE(G);
  EXPECT_EQ(G->MaxStackAlloca, 7u);
  EXPECT_EQ(G->Source, "function attribute \"scope-alloc-max-stack-alloca\"");
}

TEST(ModulePolicyLayers, OptionErrorsStopTheModule) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, IR);
  ASSERT_TRUE(M);
  PolicyOptions CommandLine;
  CommandLine.Error = "-scope-alloc-dynamic must be keep, demote or reject";
  ModulePolicy MP = computeModulePolicy(*M, CommandLine);
  EXPECT_EQ(MP.Error, CommandLine.Error);
  EXPECT_FALSE(policyForFunction(MP, *M->getFunction("f"),
                                 /*ReportErrors=*/false));
}

} // namespace
