//===- PolicySettings.h - The table of policy settings ----------*- C++ -*-===//
//
// PolicySettings.def describes each setting once; this header gives the
// table to code: the spellings of a setting in every layer, PolicyFields (a
// member per setting), and reading, printing and merging a setting by its
// enumerator, so that no layer lists the settings by hand.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_POLICYSETTINGS_H
#define SCOPEALLOC_POLICYSETTINGS_H

#include "PolicyValues.h"
#include "Scope.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace scopealloc {

/// Where a setting can be written (PolicySettings.def combines them).
namespace layer {
enum SettingLayer : unsigned {
  Option = 1 << 0,            ///< -scope-alloc-<key>
  Parameter = 1 << 1,         ///< scope-alloc<parameter=...>
  TargetKey = 1 << 2,         ///< a policy-file target's <key>
  FunctionKey = 1 << 3,       ///< <key> of a function under 'functions'
  ModuleFlag = 1 << 4,        ///< !{i32 1, !"scope-alloc.<key>", ...}
  FunctionAttribute = 1 << 5, ///< "scope-alloc-<key>"="..." (and the source
                              ///< annotation "scope-alloc-<key>=...")
  Report = 1 << 6,            ///< "<key with _>" in the report's policy
  CMake = 1 << 7, ///< scopealloc_enable(... <KEYWORD> value): the settings
                  ///< with a CMake keyword
};
} // namespace layer
using layer::SettingLayer;

/// How a setting's text reads.
enum class SettingValue {
  Bytes,       ///< a decimal byte count
  Rule,        ///< keep | demote | reject
  Conflict,    ///< error | warn
  Plan,        ///< runtime | static
  Pool,        ///< workspace or a pool name
  SpaceScopes, ///< 5:global.npu_sram,6:local
  Text,        ///< any non-empty text (a path, a tag)
};

enum class PolicySetting {
#define SCOPEALLOC_FIELD(Id, ...) Id,
#define SCOPEALLOC_SELECTOR(Id, ...) Id,
#define SCOPEALLOC_BOUND(Id, ...) Id,
#include "PolicySettings.def"
};

struct SettingInfo {
  enum KindTy { Field, Selector, Bound };
  PolicySetting Id;
  KindTy Kind;
  llvm::StringRef Key;
  llvm::StringRef ParameterName;
  llvm::StringRef CMakeKeyword;
  SettingValue Value;
  unsigned Layers;
  llvm::StringRef Help;

  bool in(SettingLayer L) const {
    return L == layer::CMake ? !CMakeKeyword.empty() : (Layers & L) != 0;
  }
  std::string option() const { return ("scope-alloc-" + Key).str(); }
  std::string moduleFlag() const { return ("scope-alloc." + Key).str(); }
  std::string attribute() const { return ("scope-alloc-" + Key).str(); }
  std::string reportKey() const;
  /// What the option's help calls its value: "bytes", "rule", ...
  llvm::StringRef valueName() const;
  /// What its text must be, in words: "keep, demote or reject".
  llvm::StringRef valueWords() const;
};

/// The environment variable in which scopealloc-clang gives an LTO link
/// (lld, with the plugin loaded) the link line's -scope-alloc-* options, as
/// pass parameters ("limit=0;policy=/abs/p.yaml"); LTODeferral.h.
inline constexpr const char *LinkOptionsVariable = "SCOPEALLOC_LINK_OPTIONS";
/// ... and, with SCOPEALLOC_REPORT_DIR, the directory where the plugin in
/// lld writes the reports of that bitcode (rustc's), which no compile step
/// recorded one for ("/abs/reports/").
inline constexpr const char *LinkReportVariable = "SCOPEALLOC_LINK_REPORT";

/// The function attribute in which a -flto compile step records its
/// policy options for the link ("limit=0;policy=/abs/p.yaml");
/// LTODeferral.h. scopealloc-clang reads it to key lld's ThinLTO cache.
inline constexpr const char *CompileOptionsAttribute =
    "scope-alloc-compile-options";

/// Every setting, in the order of PolicySettings.def.
llvm::ArrayRef<SettingInfo> policySettings();
const SettingInfo &settingInfo(PolicySetting S);
/// The setting spelled \p Name in layer \p L (its key; for Parameter its
/// parameter name, or its key as an alias; for Option, ModuleFlag and
/// FunctionAttribute the full spelling), or null.
const SettingInfo *findSetting(SettingLayer L, llvm::StringRef Name);
/// The spellings of the settings of layer \p L, for "expected ..." and
/// "did you mean" messages.
std::vector<llvm::StringRef> settingKeys(SettingLayer L);
/// "a, b, c or d".
std::string listSettingKeys(llvm::ArrayRef<llvm::StringRef> Keys);

/// The fields one layer of the policy sets; unset ones fall through.
struct PolicyFields {
#define SCOPEALLOC_FIELD(Id, Key, Parameter, CMake, Type, ...)                 \
  std::optional<Type> Id;
#include "PolicySettings.def"

  bool empty() const;
  bool has(PolicySetting S) const;
  /// The value of \p S when it is a byte count that is set.
  std::optional<uint64_t> bytes(PolicySetting S) const;
  /// Sets \p S from its text. The error says what is wrong with the value
  /// ("must be a byte count, found ..."), quoting words with \p Quote;
  /// the caller names the setting.
  llvm::Error set(PolicySetting S, llvm::StringRef Text, char Quote = '"');
  /// Prints the value of \p S as set() reads it back.
  void print(llvm::raw_ostream &OS, PolicySetting S) const;
  /// Sets the fields \p Over has.
  void overrideWith(const PolicyFields &Over);
};

} // namespace scopealloc

#endif
