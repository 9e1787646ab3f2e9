//===- StackPolicy.h - Which allocations may stay on the stack --*- C++ -*-===//
//
// The target stack-alloca policy of a function, built in layers; each later
// layer overrides the fields it sets (README: "Precedence"):
//   1. built-in default for the target triple
//   2. policy file (pass parameter policy=, else -scope-alloc-policy=<file>):
//      the target whose triple patterns match the module's triple
//   3. target tag (pass parameter target=, else -scope-alloc-target=<tag>,
//      else module flag "scope-alloc.target"): a target of the policy file,
//      else a built-in tag
//   4. module flags "scope-alloc.max-stack-alloca", ".frame-budget",
//      ".dynamic", ".pool"
//   5. command line: -scope-alloc-max-stack-alloca, -scope-alloc-frame-budget,
//      -scope-alloc-dynamic, -scope-alloc-pool
//   6. pass parameters: scope-alloc<limit=..;frame-budget=..;dynamic=..;
//      pool=..> (PolicyOptions.h)
//   6b. the policy file's 'functions' entry for the function, of the
//      target in force: the tag's (layer 3) when a tag is selected, else the
//      triple's (layer 2); scopealloc-bound --suggest-policy writes them
//   7. function attributes "scope-alloc-max-stack-alloca",
//      "scope-alloc-frame-budget", "scope-alloc-dynamic", "scope-alloc-pool"
// Layers 1-6 are the same for every function of a module: ModulePolicy holds
// them, computed once per module. Every field remembers which layer set it,
// for the remarks.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_STACKPOLICY_H
#define SCOPEALLOC_STACKPOLICY_H

#include "PolicyFile.h"
#include "policy/PolicyOptions.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Function;
class Module;
class Triple;
} // namespace llvm

namespace scopealloc {

struct StackPolicy {
  /// False for targets the pass leaves alone (GPUs: no workspace runtime).
  bool Enabled = true;
  /// An allocation of at most this many bytes may stay on the stack.
  uint64_t MaxStackAlloca = 1024;
  /// Which layer chose the limit, for remarks ("target default for ...").
  std::string Source;
  /// Most bytes the allocations kept on the stack may add up to.
  std::optional<uint64_t> FrameBudget;
  std::string FrameBudgetSource;
  /// What happens to allocations whose size is only known at run time.
  DynamicRule Dynamic = DynamicRule::Demote;
  std::string DynamicSource;
  /// Pool of unscoped demoted memory; empty = the default workspace pool.
  std::string Pool;
  std::string PoolSource;
  /// Scopes of allocas in other address spaces than 0 (Scope.h); an alloca
  /// in an address space without one cannot leave the stack.
  AddressSpaceScopes AddressSpaceScopes;
  std::string AddressSpaceScopesSource;
  /// The scope the policy gives address space \p AS, or null.
  const std::string *scopeOfAddressSpace(unsigned AS) const {
    for (const auto &[Space, Spelling] : AddressSpaceScopes)
      if (Space == AS)
        return &Spelling;
    return nullptr;
  }
  /// Allocation calls scope-alloc-promote knows beside the built-in ones
  /// (the policy file's 'allocators').
  std::vector<AllocatorSpec> Allocators;
  /// A stack-scoped allocation that alone exceeds the budget.
  ConflictRule StackScopeOverBudget = ConflictRule::Error;
  std::string StackScopeOverBudgetSource;
  /// At a whole-program link: frames at fixed offsets where the call graph
  /// allows (placement/StaticFramePlan.h), else the arena's bump.
  FramePlan Plan = FramePlan::Runtime;
  std::string PlanSource;
};

/// A built-in target tag, for the README and -scope-alloc-target.
struct BuiltinTag {
  const char *Name;
  PolicyFields Fields;
  const char *Why;
};
llvm::ArrayRef<BuiltinTag> builtinTags();

/// The built-in row of the triple table that applies to \p T; for a module
/// without a triple, a hosted CPU with the data layout's \p PointerBits.
StackPolicy targetDefaultPolicy(const llvm::Triple &T,
                                unsigned PointerBits = 0);

/// Layers 1-6 of a module: what every function of it starts from.
struct ModulePolicy {
  StackPolicy Base;
  /// The first problem with the module-wide layers; when set, the module
  /// must not be transformed.
  std::string Error;
  /// Accepted with a warning (unknown module flags, a policy file that does
  /// not apply, ...).
  std::vector<std::string> Warnings;
  /// The policy file's targets in force, in the order they apply: their
  /// 'functions' entries come between layers 6 and 7.
  struct FunctionLayer {
    std::shared_ptr<const PolicyFile> File;
    const PolicyTarget *Target;
    std::string Source;
  };
  std::vector<FunctionLayer> FunctionLayers;

  /// Reports the warnings and the error, once per module; false after an
  /// error.
  bool report(const llvm::Module &M) const;
};

/// Merges layers 1-6 for \p M: the command-line options \p CommandLine and
/// the pass's parameters \p Parameters, which override them.
ModulePolicy computeModulePolicy(const llvm::Module &M,
                                 const PolicyOptions &CommandLine,
                                 const PolicyOptions &Parameters = {});

/// The policy in force for \p F: \p MP with F's attributes on top, or
/// std::nullopt after an error (reported when \p ReportErrors; the errors of
/// \p MP are reported by ModulePolicy::report).
std::optional<StackPolicy> policyForFunction(const ModulePolicy &MP,
                                             const llvm::Function &F,
                                             bool ReportErrors = true);

/// The policy of a function that is no longer there (inlined everywhere),
/// named \p Name in \p M with the function attributes \p Attributes (name,
/// value): layers 6b and 7 on \p MP. std::nullopt with \p Error set on a
/// bad value.
std::optional<StackPolicy> policyForFunctionNamed(
    const ModulePolicy &MP, const llvm::Module &M, llvm::StringRef Name,
    llvm::ArrayRef<std::pair<std::string, std::string>> Attributes,
    std::string &Error);

/// \p F's layer-7 policy attributes (name, value).
std::vector<std::pair<std::string, std::string>>
functionPolicyAttributes(const llvm::Function &F);

/// Whether \p F has settings of its own: layer 6b or 7.
bool hasFunctionSettings(const ModulePolicy &MP, const llvm::Function &F);

/// Shorthands that read the command line (and no pass parameters).
bool checkModulePolicy(const llvm::Module &M);
std::optional<StackPolicy> policyForFunction(const llvm::Function &F,
                                             bool ReportErrors = true);

} // namespace scopealloc

#endif
