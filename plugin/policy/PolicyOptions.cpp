//===- PolicyOptions.cpp - Policy settings given to the pass itself -------===//
#include "policy/PolicyOptions.h"
#include "LLVMCompat.h"
#include "OptionCategory.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"
#include <deque>
#include <memory>

#define DEBUG_TYPE "scope-alloc-options"

using namespace llvm;

namespace scopealloc {

namespace {

/// The -scope-alloc-<key> option of every setting that has one, made from
/// the table when the plugin loads. Strings, so that each value goes
/// through the setting's own parser and its message.
struct SettingOptions {
  /// The options keep their names as StringRefs: the names live here.
  std::deque<std::string> Names;
  std::vector<std::pair<PolicySetting, std::unique_ptr<cl::opt<std::string>>>>
      Options;
  SettingOptions() {
    for (const SettingInfo &S : policySettings())
      if (S.in(layer::Option))
        Options.emplace_back(
            S.Id, std::make_unique<cl::opt<std::string>>(
                      StringRef(Names.emplace_back(S.option())),
                      cl::desc(S.Help), cl::value_desc(S.valueName()),
                      cl::cat(scopealloc::optionCategory())));
  }
};

SettingOptions &settingOptions() {
  static SettingOptions O;
  return O;
}

/// Registers the options when the plugin is loaded, before the command
/// line is parsed.
const SettingOptions &Registered = settingOptions();

} // namespace

bool PolicyOptions::empty() const {
  return !PolicyPath && !Target && Fields.empty();
}

std::string PolicyOptions::settingName(PolicySetting S) const {
  const SettingInfo &I = settingInfo(S);
  if (Origin == CommandLine)
    return "-" + I.option();
  return ("pass parameter '" + I.ParameterName + "'").str();
}

std::string PolicyOptions::limitSource() const {
  return settingName(PolicySetting::MaxStackAlloca);
}

std::string PolicyOptions::fieldsSource() const {
  return Origin == CommandLine ? "command line" : "pass parameters";
}

std::optional<std::string> *PolicyOptions::selector(PolicySetting S) {
  return S == PolicySetting::Target   ? &Target
         : S == PolicySetting::Policy ? &PolicyPath
                                      : nullptr;
}

void PolicyOptions::printParameters(raw_ostream &OS) const {
  ListSeparator LS(";");
  for (const SettingInfo &S : policySettings()) {
    if (!S.in(layer::Parameter))
      continue;
    if (S.Kind == SettingInfo::Field && Fields.has(S.Id)) {
      OS << LS << S.ParameterName << '=';
      Fields.print(OS, S.Id);
    } else if (const std::optional<std::string> *V =
                   const_cast<PolicyOptions *>(this)->selector(S.Id);
               V && *V) {
      OS << LS << S.ParameterName << '=' << **V;
    }
  }
}

Error PolicyOptions::set(PolicySetting S, StringRef Value) {
  if (settingInfo(S).Kind == SettingInfo::Field)
    return Fields.set(S, Value);
  if (Value.empty()) {
    // An empty -scope-alloc-policy= names no file (build systems pass one
    // when no policy is configured); a pass parameter needs a value.
    if (Origin == CommandLine && S == PolicySetting::Policy)
      return Error::success();
    return createStringError("needs a value");
  }
  *selector(S) = Value.str();
  return Error::success();
}

void printPassWithParameters(raw_ostream &OS, StringRef PassName,
                             const PolicyOptions &Params) {
  OS << PassName;
  if (Params.empty())
    return;
  OS << '<';
  Params.printParameters(OS);
  OS << '>';
}

PolicyOptions commandLineOptions() {
  PolicyOptions O;
  O.Origin = PolicyOptions::CommandLine;
  for (const auto &[S, Opt] : settingOptions().Options) {
    if (!Opt->getNumOccurrences())
      continue;
    Error E = O.set(S, *Opt);
    if (E && O.Error.empty()) // the first problem; the others may follow
      O.Error = O.settingName(S) + " " + toString(std::move(E));
    consumeError(std::move(E));
  }
  return O;
}

Expected<PolicyOptions> parsePolicyParameters(StringRef Params,
                                              StringRef PassName) {
  PolicyOptions O;
  O.Origin = PolicyOptions::PassParameters;
  SmallVector<StringRef, 8> Given;
  while (!Params.empty()) {
    StringRef Param;
    std::tie(Param, Params) = Params.split(';');
    auto Invalid = [&](const Twine &Why) {
      return createStringError("invalid parameter '" + Param + "' of pass " +
                               PassName + ": " + Why);
    };
    std::vector<StringRef> Known = settingKeys(layer::Parameter);
    if (!Param.contains('='))
      return Invalid("expected <name>=<value> (" + listSettingKeys(Known) +
                     ")");
    StringRef Key, Value;
    std::tie(Key, Value) = Param.split('=');
    const SettingInfo *S = findSetting(layer::Parameter, Key);
    if (!S) {
      std::vector<StringRef> Spellings = Known;
      for (const SettingInfo &I : policySettings())
        if (I.in(layer::Parameter) && I.Key != I.ParameterName)
          Spellings.push_back(I.Key); // max-stack-alloca for limit
      return Invalid("unknown parameter '" + Key + "' (expected " +
                     listSettingKeys(Known) + ")" + didYouMean(Key, Spellings));
    }
    Key = S->ParameterName;
    if (is_contained(Given, Key))
      return Invalid("'" + Key + "' is given twice");
    Given.push_back(Key);
    if (Error E = O.set(S->Id, Value))
      return Invalid("'" + Key + "' " + toString(std::move(E)));
  }
  LLVM_DEBUG({
    dbgs() << "parameters of " << PassName << ": ";
    O.printParameters(dbgs());
    dbgs() << "\n";
  });
  return O;
}

} // namespace scopealloc
