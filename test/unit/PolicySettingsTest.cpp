//===- PolicySettingsTest.cpp - Every layer knows every setting -----------===//
//
// For each setting of analysis/PolicySettings.def, each layer the table
// says it has reads it: the option, the pass parameter, the policy file's
// target and function keys, the module flag and the function attribute; and
// the files outside C++ that spell it (the report schema, the generated
// CMake keywords, <scopealloc/scope.h>, docs/options.md) name it.
//
//===----------------------------------------------------------------------===//
#include "PolicySettings.h"
#include "IRParsing.h"
#include "LLVMCompat.h"
#include "OptionCategory.h"
#include "OptionSet.h"
#include "PolicyFile.h"
#include "policy/PolicyOptions.h"
#include "policy/StackPolicy.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace scopealloc;
using namespace scopealloc::test;

namespace {

/// A value each kind of setting accepts, as text and in YAML.
struct Sample {
  std::string Text, Yaml;
};

Sample sample(const SettingInfo &S) {
  switch (S.Value) {
  case SettingValue::Bytes:
    return {"64", "64"};
  case SettingValue::Rule:
    return {"keep", "keep"};
  case SettingValue::Conflict:
    return {"warn", "warn"};
  case SettingValue::Plan:
    return {"static", "static"};
  case SettingValue::Pool:
    return {"sram", "sram"};
  case SettingValue::SpaceScopes:
    return {"5:global.sram", "{5: global.sram}"};
  case SettingValue::Text:
    break;
  }
  if (S.Kind == SettingInfo::Bound)
    return {"", S.Id == PolicySetting::StackBound  ? "64"
                : S.Id == PolicySetting::PoolSizes ? "{sram: 64}"
                : S.Id == PolicySetting::Recursion ? "{f: 2}"
                : S.Id == PolicySetting::Tasks
                    ? "{t: {entry: f, stack: 64, switch-context: 32}}"
                : S.Id == PolicySetting::Rtos ? "pendsv"
                                              : "{f: 64}"};
  return {"hosted", "hosted"};
}

std::string readSourceFile(StringRef Relative) {
  SmallString<256> Path(SCOPEALLOC_SOURCE_DIR);
  sys::path::append(Path, Relative);
  auto Buf = MemoryBuffer::getFile(Path);
  EXPECT_TRUE(bool(Buf)) << Path.str().str();
  return Buf ? (*Buf)->getBuffer().str() : "";
}

TEST(PolicySettings, TableIsInEnumeratorOrder) {
  for (const SettingInfo &S : policySettings())
    EXPECT_EQ(&settingInfo(S.Id), &S) << S.Key.str();
}

TEST(PolicySettings, OptionsAreRegisteredInTheCategory) {
  auto &Options = cl::getRegisteredOptions();
  for (const SettingInfo &S : policySettings()) {
    if (!S.in(layer::Option))
      continue;
    cl::Option *O = Options.lookup(S.option());
    ASSERT_NE(O, nullptr) << S.option();
    EXPECT_TRUE(is_contained(O->Categories, &optionCategory())) << S.option();
    EXPECT_EQ(O->HelpStr, S.Help);
  }
  // Every other -scope-alloc-* option of the plugin is in the category too.
  for (const auto &Entry : Options) {
    StringRef Name = registeredOptionName(Entry);
    if (Name.starts_with("scope-alloc-"))
      EXPECT_TRUE(is_contained(Entry.second->Categories, &optionCategory()))
          << Name.str();
  }
}

TEST(PolicySettings, OptionsAndParametersRoundTrip) {
  for (const SettingInfo &S : policySettings()) {
    if (!S.in(layer::Parameter))
      continue;
    std::string Text = sample(S).Text;
    Expected<PolicyOptions> P =
        parsePolicyParameters((S.ParameterName + "=" + Text).str(), "p");
    ASSERT_TRUE(bool(P)) << toString(P.takeError());
    std::string Printed;
    raw_string_ostream OS(Printed);
    P->printParameters(OS);
    EXPECT_EQ(Printed, (S.ParameterName + "=" + Text).str());
    if (S.in(layer::Option)) {
      OptionSet Set(S.option(), Text);
      PolicyOptions O = commandLineOptions();
      EXPECT_EQ(O.Error, "");
      std::string FromOption;
      raw_string_ostream OS2(FromOption);
      O.printParameters(OS2);
      EXPECT_EQ(FromOption, Printed) << S.option();
    }
  }
}

TEST(PolicySettings, PolicyFileKeys) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("scopealloc-settings", Dir));
  for (const SettingInfo &S : policySettings())
    for (SettingLayer L : {layer::TargetKey, layer::FunctionKey}) {
      if (!S.in(L))
        continue;
      std::string Line = (S.Key + ": " + sample(S).Yaml).str();
      SmallString<128> File(Dir);
      sys::path::append(File, S.Key + std::to_string(L) + ".yaml");
      {
        std::error_code EC;
        raw_fd_ostream OS(File, EC);
        ASSERT_FALSE(EC);
        OS << "version: 1\npools: [sram]\ntargets:\n  t:\n";
        if (L == layer::TargetKey)
          OS << "    " << Line << "\n";
        else
          OS << "    functions:\n      f: {" << Line << "}\n";
      }
      auto Loaded = loadPolicyFile(File);
      ASSERT_TRUE(bool(Loaded)) << toString(Loaded.takeError());
      const PolicyTarget &T = (*Loaded)->Targets.front();
      if (S.Kind == SettingInfo::Bound) {
        const BoundFields &B = T.Bounds;
        EXPECT_TRUE(B.StackBound || !B.Entries.empty() ||
                    !B.PoolSizes.empty() || !B.Recursion.empty() ||
                    !B.InterruptPriorities.empty() || !B.Tasks.empty() ||
                    !B.Rtos.empty())
            << S.Key.str();
        continue;
      }
      const PolicyFields &F =
          L == layer::TargetKey ? T.Fields : T.Functions.front().second;
      EXPECT_TRUE(F.has(S.Id)) << S.Key.str() << " in layer " << L;
    }
}

/// A module whose function @f carries the setting as module flag or
/// function attribute.
std::unique_ptr<Module> moduleWith(LLVMContext &Ctx, const SettingInfo &S,
                                   SettingLayer L) {
  std::string Value = sample(S).Text;
  std::string IR = "target triple = \"x86_64-unknown-linux-gnu\"\n";
  if (L == layer::FunctionAttribute) {
    IR += "define void @f() #0 { ret void }\nattributes #0 = { \"" +
          S.attribute() + "\"=\"" + Value + "\" }\n";
  } else {
    IR += "define void @f() { ret void }\n";
    std::string Flag =
        S.Value == SettingValue::Bytes ? "i64 " + Value : "!\"" + Value + "\"";
    IR += "!llvm.module.flags = !{!0}\n!0 = !{i32 1, !\"" + S.moduleFlag() +
          "\", " + Flag + "}\n";
  }
  return parseIR(Ctx, IR);
}

TEST(PolicySettings, ModuleFlagsAndFunctionAttributes) {
  for (const SettingInfo &S : policySettings())
    for (SettingLayer L : {layer::ModuleFlag, layer::FunctionAttribute}) {
      if (!S.in(L))
        continue;
      LLVMContext Ctx;
      std::unique_ptr<Module> M = moduleWith(Ctx, S, L);
      ModulePolicy MP = computeModulePolicy(*M, PolicyOptions());
      EXPECT_EQ(MP.Error, "") << S.Key.str();
      EXPECT_TRUE(MP.Warnings.empty()) << S.Key.str();
      std::optional<StackPolicy> P =
          policyForFunction(MP, *M->getFunction("f"), false);
      ASSERT_TRUE(P) << S.Key.str();
      // The setting took effect: its source names the layer.
      std::string Source =
          S.Id == PolicySetting::MaxStackAlloca ? P->Source
          : S.Id == PolicySetting::FrameBudget  ? P->FrameBudgetSource
          : S.Id == PolicySetting::Dynamic      ? P->DynamicSource
          : S.Id == PolicySetting::Pool         ? P->PoolSource
          : S.Id == PolicySetting::Plan         ? P->PlanSource
          : S.Id == PolicySetting::Target
              ? P->Source // the tag's fields are the built-in 'hosted'
              : "";
      ASSERT_NE(Source, "") << "no policy field checked for " << S.Key.str();
      StringRef Expected = L == layer::FunctionAttribute ? "function attribute"
                           : S.Kind == SettingInfo::Selector ? "module flag"
                                                             : "module flags";
      EXPECT_NE(Source.find(Expected.str()), std::string::npos)
          << S.Key.str() << ": " << Source;
    }
}

TEST(PolicySettings, FilesOutsideCppNameEverySetting) {
  std::string Schema = readSourceFile("docs/report-schema.json");
  std::string Header = readSourceFile("runtime/include/scopealloc/scope.h");
  std::string Options = readSourceFile("docs/options.md");
  SmallString<256> CMakePath(SCOPEALLOC_BINARY_DIR);
  sys::path::append(CMakePath, "cmake", "ScopeAllocSettings.cmake");
  auto CMakeText = MemoryBuffer::getFile(CMakePath);
  ASSERT_TRUE(bool(CMakeText));
  StringRef CMake = (*CMakeText)->getBuffer();
  for (const SettingInfo &S : policySettings()) {
    if (S.in(layer::Report))
      EXPECT_NE(Schema.find("\"" + S.reportKey() + "\""), std::string::npos)
          << S.reportKey();
    if (S.in(layer::FunctionAttribute))
      EXPECT_NE(Header.find("\"" + S.attribute() + "=\""), std::string::npos)
          << S.attribute();
    if (S.in(layer::CMake))
      EXPECT_TRUE(CMake.contains("SCOPEALLOC_SETTINGS " + S.CMakeKeyword.str()))
          << S.CMakeKeyword.str();
    if (S.in(layer::Option))
      EXPECT_NE(Options.find("`-" + S.option() + "`"), std::string::npos)
          << S.option();
  }
}

TEST(PolicySettings, OptionsPageListsEveryOption) {
  std::string Page = readSourceFile("docs/options.md");
  for (const auto &Entry : cl::getRegisteredOptions()) {
    StringRef Name = registeredOptionName(Entry);
    if (Name.starts_with("scope-alloc-"))
      EXPECT_NE(Page.find("`-" + Name.str()), std::string::npos)
          << "docs/options.md does not list -" << Name.str();
  }
  // And every option the page names exists.
  StringRef Rest = Page;
  while (true) {
    size_t At = Rest.find("`-scope-alloc-");
    if (At == StringRef::npos)
      break;
    Rest = Rest.drop_front(At + 2);
    StringRef Name =
        Rest.take_while([](char C) { return isAlnum(C) || C == '-'; });
    if (Name.ends_with("-")) // "-scope-alloc-*", the family
      continue;
    EXPECT_TRUE(cl::getRegisteredOptions().count(Name))
        << "docs/options.md names -" << Name.str() << ", which does not exist";
  }
}

} // namespace
