//===- PolicyOptions.cpp - Policy settings given to the pass itself -------===//
#include "PolicyOptions.h"
#include "Scope.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "scope-alloc-options"

using namespace llvm;

static cl::opt<std::string>
    PolicyFileOpt("scope-alloc-policy",
                  cl::desc("Policy file (YAML or JSON) with named targets"),
                  cl::value_desc("file"));
static cl::opt<std::string> TargetOpt(
    "scope-alloc-target",
    cl::desc("Target tag: a target of the policy file or a built-in tag"),
    cl::value_desc("tag"));
static cl::opt<uint64_t> MaxStackAllocaOpt(
    "scope-alloc-max-stack-alloca",
    cl::desc("Largest allocation (bytes) that may stay on the stack; "
             "overrides the target default (0 = none)"),
    cl::value_desc("bytes"));
static cl::opt<uint64_t> FrameBudgetOpt(
    "scope-alloc-frame-budget",
    cl::desc("Most bytes of allocations a frame may keep on the stack"),
    cl::value_desc("bytes"));
static cl::opt<std::string>
    DynamicOpt("scope-alloc-dynamic",
               cl::desc("Dynamically sized allocations: keep, demote or "
                        "reject"),
               cl::value_desc("rule"));
static cl::opt<std::string>
    PoolOpt("scope-alloc-pool",
            cl::desc("Pool for demoted allocations without a scope "
                     "(default: workspace)"),
            cl::value_desc("pool"));

static cl::opt<std::string> AddressSpaceScopesOpt(
    "scope-alloc-address-space-scopes",
    cl::desc("Scopes of allocas in other address spaces, e.g. "
             "5:global.npu_sram,6:local (the pools' memory is cast to them)"),
    cl::value_desc("as:scope,..."));

namespace scopealloc {

namespace {

struct SettingNames {
  PolicySetting Setting;
  StringRef Parameter;
  StringRef Option;
};

constexpr SettingNames Names[] = {
    {PolicySetting::Limit, "limit", "-scope-alloc-max-stack-alloca"},
    {PolicySetting::FrameBudget, "frame-budget", "-scope-alloc-frame-budget"},
    {PolicySetting::Dynamic, "dynamic", "-scope-alloc-dynamic"},
    {PolicySetting::Pool, "pool", "-scope-alloc-pool"},
    {PolicySetting::Target, "target", "-scope-alloc-target"},
    {PolicySetting::Policy, "policy", "-scope-alloc-policy"},
    {PolicySetting::AddressSpaceScopes, "address-space-scopes",
     "-scope-alloc-address-space-scopes"},
};

const SettingNames &names(PolicySetting S) {
  return *find_if(Names, [&](const SettingNames &N) { return N.Setting == S; });
}

} // namespace

bool PolicyOptions::empty() const {
  return !PolicyPath && !Target && !Fields.MaxStackAlloca &&
         !Fields.FrameBudget && !Fields.Dynamic && !Fields.Pool &&
         !Fields.AddressSpaceScopes;
}

std::string PolicyOptions::settingName(PolicySetting S) const {
  if (Origin == CommandLine)
    return names(S).Option.str();
  return ("pass parameter '" + names(S).Parameter + "'").str();
}

std::string PolicyOptions::limitSource() const {
  return settingName(PolicySetting::Limit);
}

std::string PolicyOptions::fieldsSource() const {
  return Origin == CommandLine ? "command line" : "pass parameters";
}

void PolicyOptions::printParameters(raw_ostream &OS) const {
  ListSeparator LS(";");
  if (Fields.MaxStackAlloca)
    OS << LS << "limit=" << *Fields.MaxStackAlloca;
  if (Fields.FrameBudget)
    OS << LS << "frame-budget=" << *Fields.FrameBudget;
  if (Fields.Dynamic)
    OS << LS << "dynamic=" << spell(*Fields.Dynamic);
  if (Fields.Pool)
    OS << LS << "pool=" << *Fields.Pool;
  if (Fields.AddressSpaceScopes)
    OS << LS << "address-space-scopes="
       << printAddressSpaceScopes(*Fields.AddressSpaceScopes);
  if (Target)
    OS << LS << "target=" << *Target;
  if (PolicyPath)
    OS << LS << "policy=" << *PolicyPath;
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

Expected<uint64_t> parseByteCount(StringRef Text) {
  uint64_t V;
  switch (readByteCount(Text, V)) {
  case ByteCountRead::OK:
    return V;
  case ByteCountRead::Negative:
    return createStringError("must not be negative, found \"" + Text + "\"");
  case ByteCountRead::NotANumber:
    return createStringError("must be a byte count, found \"" + Text + "\"");
  case ByteCountRead::TooLarge:
    return createStringError("must be a byte count, found \"" + Text +
                             "\", more than the largest, 18446744073709551615");
  }
  llvm_unreachable("all ByteCountRead values handled");
}

PolicyOptions commandLineOptions() {
  PolicyOptions O;
  O.Origin = PolicyOptions::CommandLine;
  auto Fail = [&](PolicySetting S, Error E) {
    std::string Msg = O.settingName(S) + " " + toString(std::move(E));
    if (O.Error.empty()) // the first problem; the others may follow from it
      O.Error = Msg;
  };
  if (!PolicyFileOpt.empty())
    O.PolicyPath = PolicyFileOpt;
  if (TargetOpt.getNumOccurrences())
    O.Target = TargetOpt;
  if (MaxStackAllocaOpt.getNumOccurrences())
    O.Fields.MaxStackAlloca = MaxStackAllocaOpt;
  if (FrameBudgetOpt.getNumOccurrences())
    O.Fields.FrameBudget = FrameBudgetOpt;
  if (DynamicOpt.getNumOccurrences()) {
    if (Expected<DynamicRule> R = parseDynamicRule(DynamicOpt))
      O.Fields.Dynamic = *R;
    else
      Fail(PolicySetting::Dynamic, R.takeError());
  }
  if (PoolOpt.getNumOccurrences()) {
    if (Expected<std::string> Pool = parsePoolSetting(PoolOpt))
      O.Fields.Pool = *Pool;
    else
      Fail(PolicySetting::Pool, Pool.takeError());
  }
  if (AddressSpaceScopesOpt.getNumOccurrences()) {
    if (auto Map = parseAddressSpaceScopes(AddressSpaceScopesOpt))
      O.Fields.AddressSpaceScopes = std::move(*Map);
    else
      Fail(PolicySetting::AddressSpaceScopes, Map.takeError());
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
    if (!Param.contains('='))
      return Invalid("expected <name>=<value> (limit, frame-budget, dynamic, "
                     "pool, target, policy or address-space-scopes)");
    StringRef Key, Value;
    std::tie(Key, Value) = Param.split('=');
    if (Key == "max-stack-alloca")
      Key = "limit";
    auto *It = find_if(
        Names, [&](const SettingNames &N) { return N.Parameter == Key; });
    if (It == std::end(Names)) {
      SmallVector<StringRef, 8> Known{"max-stack-alloca"};
      for (const SettingNames &N : Names)
        Known.push_back(N.Parameter);
      return Invalid("unknown parameter '" + Key +
                     "' (expected limit, frame-budget, dynamic, pool, target, "
                     "policy or address-space-scopes)" +
                     didYouMean(Key, Known));
    }
    if (is_contained(Given, Key))
      return Invalid("'" + Key + "' is given twice");
    Given.push_back(Key);
    auto Bad = [&](Error E) {
      return Invalid("'" + Key + "' " + toString(std::move(E)));
    };
    switch (It->Setting) {
    case PolicySetting::Limit:
    case PolicySetting::FrameBudget: {
      Expected<uint64_t> Bytes = parseByteCount(Value);
      if (!Bytes)
        return Bad(Bytes.takeError());
      (It->Setting == PolicySetting::Limit ? O.Fields.MaxStackAlloca
                                           : O.Fields.FrameBudget) = *Bytes;
      break;
    }
    case PolicySetting::Dynamic: {
      Expected<DynamicRule> R = parseDynamicRule(Value);
      if (!R)
        return Bad(R.takeError());
      O.Fields.Dynamic = *R;
      break;
    }
    case PolicySetting::Pool: {
      Expected<std::string> Pool = parsePoolSetting(Value);
      if (!Pool)
        return Bad(Pool.takeError());
      O.Fields.Pool = *Pool;
      break;
    }
    case PolicySetting::AddressSpaceScopes: {
      auto Map = parseAddressSpaceScopes(Value);
      if (!Map)
        return Bad(Map.takeError());
      O.Fields.AddressSpaceScopes = std::move(*Map);
      break;
    }
    case PolicySetting::Target:
    case PolicySetting::Policy:
      if (Value.empty())
        return Invalid("'" + Key + "' needs a value");
      (It->Setting == PolicySetting::Target ? O.Target : O.PolicyPath) =
          Value.str();
      break;
    }
  }
  LLVM_DEBUG({
    dbgs() << "parameters of " << PassName << ": ";
    O.printParameters(dbgs());
    dbgs() << "\n";
  });
  return O;
}

} // namespace scopealloc
