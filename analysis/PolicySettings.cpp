//===- PolicySettings.cpp - The table of policy settings ------------------===//
#include "PolicySettings.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"
#include <type_traits>

using namespace llvm;

namespace scopealloc {

ArrayRef<SettingInfo> policySettings() {
  using namespace layer;
  static constexpr SettingInfo Table[] = {
#define SCOPEALLOC_FIELD(Id, Key, Parameter, CMakeName, Type, Value, Layers,   \
                         Help)                                                 \
  {PolicySetting::Id, SettingInfo::Field,  Key,    Parameter,                  \
   CMakeName,         SettingValue::Value, Layers, Help},
#define SCOPEALLOC_SELECTOR(Id, Key, Parameter, CMakeName, Value, Layers,      \
                            Help)                                              \
  {PolicySetting::Id, SettingInfo::Selector, Key,    Parameter,                \
   CMakeName,         SettingValue::Value,   Layers, Help},
#define SCOPEALLOC_BOUND(Id, Key, Layers, Help)                                \
  {PolicySetting::Id,                                                          \
   SettingInfo::Bound,                                                         \
   Key,                                                                        \
   "",                                                                         \
   "",                                                                         \
   SettingValue::Text,                                                         \
   Layers,                                                                     \
   Help},
#include "PolicySettings.def"
  };
  return Table;
}

const SettingInfo &settingInfo(PolicySetting S) {
  // The table is in enumerator order (both come from the .def).
  return policySettings()[static_cast<size_t>(S)];
}

std::string SettingInfo::reportKey() const {
  std::string K = Key.str();
  std::replace(K.begin(), K.end(), '-', '_');
  return K;
}

StringRef SettingInfo::valueName() const {
  switch (Value) {
  case SettingValue::Bytes:
    return "bytes";
  case SettingValue::Rule:
    return "keep|demote|reject";
  case SettingValue::Conflict:
    return "error|warn";
  case SettingValue::Plan:
    return "runtime|static";
  case SettingValue::Pool:
    return "pool";
  case SettingValue::SpaceScopes:
    return "as:scope,...";
  case SettingValue::Text:
    return Id == PolicySetting::Policy ? "file" : "tag";
  }
  llvm_unreachable("all values handled");
}

StringRef SettingInfo::valueWords() const {
  switch (Value) {
  case SettingValue::Bytes:
    return "a byte count";
  case SettingValue::Rule:
    return "keep, demote or reject";
  case SettingValue::Conflict:
    return "error or warn";
  case SettingValue::Plan:
    return "runtime or static";
  case SettingValue::Pool:
    return "a pool name";
  case SettingValue::SpaceScopes:
    return "address spaces and scopes";
  case SettingValue::Text:
    return Id == PolicySetting::Policy ? "a file" : "a target tag";
  }
  llvm_unreachable("all values handled");
}

const SettingInfo *findSetting(SettingLayer L, StringRef Name) {
  for (const SettingInfo &S : policySettings()) {
    if (!S.in(L))
      continue;
    switch (L) {
    case layer::Option:
      if (Name == S.option())
        return &S;
      break;
    case layer::Parameter:
      if (Name == S.ParameterName || Name == S.Key)
        return &S;
      break;
    case layer::ModuleFlag:
      if (Name == S.moduleFlag())
        return &S;
      break;
    case layer::FunctionAttribute:
      if (Name == S.attribute())
        return &S;
      break;
    case layer::Report:
      if (Name == S.reportKey())
        return &S;
      break;
    case layer::CMake:
      if (Name == S.CMakeKeyword)
        return &S;
      break;
    default:
      if (Name == S.Key)
        return &S;
      break;
    }
  }
  return nullptr;
}

std::vector<StringRef> settingKeys(SettingLayer L) {
  std::vector<StringRef> Keys;
  for (const SettingInfo &S : policySettings())
    if (S.in(L))
      Keys.push_back(L == layer::Parameter ? S.ParameterName
                     : L == layer::CMake   ? S.CMakeKeyword
                                           : S.Key);
  return Keys;
}

std::string listSettingKeys(ArrayRef<StringRef> Keys) {
  std::string S;
  for (size_t I = 0; I < Keys.size(); ++I)
    S += (I == 0 ? "" : I + 1 == Keys.size() ? " or " : ", ") + Keys[I].str();
  return S;
}

// Reading and printing a value, by its C++ type and its kind of text.
static Expected<uint64_t> readValue(StringRef Text, char, uint64_t *) {
  return parseByteCount(Text);
}
static Expected<DynamicRule> readValue(StringRef Text, char Quote,
                                       DynamicRule *) {
  return parseDynamicRule(Text, Quote);
}
static Expected<ConflictRule> readValue(StringRef Text, char Quote,
                                        ConflictRule *) {
  return parseConflictRule(Text, Quote);
}
static Expected<FramePlan> readValue(StringRef Text, char Quote, FramePlan *) {
  return parseFramePlan(Text, Quote);
}
static Expected<std::string> readValue(StringRef Text, char, std::string *) {
  return parsePoolSetting(Text); // the only text field: a pool
}
static Expected<AddressSpaceScopes> readValue(StringRef Text, char,
                                              AddressSpaceScopes *) {
  return parseAddressSpaceScopes(Text);
}

static void printValue(raw_ostream &OS, uint64_t V) { OS << V; }
static void printValue(raw_ostream &OS, DynamicRule V) { OS << spell(V); }
static void printValue(raw_ostream &OS, ConflictRule V) { OS << spell(V); }
static void printValue(raw_ostream &OS, FramePlan V) { OS << spell(V); }
static void printValue(raw_ostream &OS, const std::string &V) { OS << V; }
static void printValue(raw_ostream &OS, const AddressSpaceScopes &V) {
  OS << printAddressSpaceScopes(V);
}

bool PolicyFields::empty() const {
  return none_of(policySettings(), [&](const SettingInfo &S) {
    return S.Kind == SettingInfo::Field && has(S.Id);
  });
}

bool PolicyFields::has(PolicySetting S) const {
  switch (S) {
#define SCOPEALLOC_FIELD(Id, ...)                                              \
  case PolicySetting::Id:                                                      \
    return Id.has_value();
#include "PolicySettings.def"
  default:
    return false;
  }
}

template <typename T>
static std::optional<uint64_t> asBytes(const std::optional<T> &V) {
  if constexpr (std::is_same_v<T, uint64_t>)
    return V;
  else
    return std::nullopt;
}

std::optional<uint64_t> PolicyFields::bytes(PolicySetting S) const {
  switch (S) {
#define SCOPEALLOC_FIELD(Id, ...)                                              \
  case PolicySetting::Id:                                                      \
    return asBytes(Id);
#include "PolicySettings.def"
  default:
    return std::nullopt;
  }
}

Error PolicyFields::set(PolicySetting S, StringRef Text, char Quote) {
  switch (S) {
#define SCOPEALLOC_FIELD(Id, ...)                                              \
  case PolicySetting::Id: {                                                    \
    auto V = readValue(Text, Quote, static_cast<decltype(&*Id)>(nullptr));     \
    if (!V)                                                                    \
      return V.takeError();                                                    \
    Id = std::move(*V);                                                        \
    return Error::success();                                                   \
  }
#include "PolicySettings.def"
  default:
    llvm_unreachable("not a field of PolicyFields");
  }
}

void PolicyFields::print(raw_ostream &OS, PolicySetting S) const {
  switch (S) {
#define SCOPEALLOC_FIELD(Id, ...)                                              \
  case PolicySetting::Id:                                                      \
    if (Id)                                                                    \
      printValue(OS, *Id);                                                     \
    return;
#include "PolicySettings.def"
  default:
    return;
  }
}

void PolicyFields::overrideWith(const PolicyFields &Over) {
#define SCOPEALLOC_FIELD(Id, ...)                                              \
  if (Over.Id)                                                                 \
    Id = Over.Id;
#include "PolicySettings.def"
}

} // namespace scopealloc
