//===- Scope.h - The `scope` metadata vocabulary ----------------*- C++ -*-===//
//
// A scope constrains which memories an allocation may come from:
//   none, "global"               -> anywhere the CPU reaches (policy decides)
//   "local", "global.stack"      -> the machine stack
//   "global.workspace"           -> the default workspace pool
//   "global.<pool>"              -> the named pool <pool>
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_SCOPE_H
#define SCOPEALLOC_SCOPE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class Instruction;
}

namespace scopealloc {

/// Name of the metadata kind that carries a scope.
inline constexpr const char *ScopeMetadataName = "scope";

/// Name the runtime and the remarks use for the default workspace pool.
inline constexpr const char *DefaultPoolName = "workspace";

struct Scope {
  enum KindTy { Unspecified, Global, Stack, Workspace, NamedPool };
  KindTy Kind = Unspecified;
  std::string Spelling; ///< as written in the metadata, for messages
  std::string Pool;     ///< pool name when Kind == NamedPool

  bool requiresStack() const { return Kind == Stack; }
  bool requiresPool() const { return Kind == Workspace || Kind == NamedPool; }
  /// The pool a demoted allocation of this scope goes to.
  llvm::StringRef poolName() const {
    return Kind == NamedPool ? llvm::StringRef(Pool) : DefaultPoolName;
  }
  std::string describe() const {
    return Kind == Unspecified ? "none" : "'" + Spelling + "'";
  }
};

/// What is wrong with \p Name as a pool name, as a phrase ("is not a C
/// identifier ..."), or std::nullopt when it names a pool. The one check of
/// pool names: scopes, policy files, options, module flags and attributes.
std::optional<std::string> poolNameProblem(llvm::StringRef Name);
inline bool isValidPoolName(llvm::StringRef Name) {
  return !poolNameProblem(Name);
}

/// The symbol of named pool \p Pool (__scopealloc_pool_<name>, from the
/// runtime's ABI constants).
std::string poolSymbolName(llvm::StringRef Pool);
/// Whether the symbol of pool \p Pool would be a runtime function's
/// (__scopealloc_pool_mark, ...), so the pool cannot be named so.
bool isReservedPoolName(llvm::StringRef Pool);

/// Parses the value of a pool setting (-scope-alloc-pool, pass parameter
/// pool=, module flag "scope-alloc.pool", attribute "scope-alloc-pool"):
/// 'workspace' or a pool name. The error says "must be 'workspace' or a pool
/// name (a C identifier), found \"<Text>\""; the caller names the setting.
llvm::Expected<std::string> parsePoolSetting(llvm::StringRef Text);

/// Scopes of allocas in other address spaces than 0 (MLIR turns a memref
/// memory space into `alloca ... addrspace(N)`): address space -> scope
/// spelling, in the order given. The policy setting address-space-scopes.
using AddressSpaceScopes = std::vector<std::pair<unsigned, std::string>>;

/// Parses "5:global.npu_sram,6:local" (the option and pass parameter
/// spelling). The error says what is wrong; the caller names the setting.
llvm::Expected<AddressSpaceScopes>
parseAddressSpaceScopes(llvm::StringRef Text);
/// Checks one entry (policy files give them one by one): a non-zero address
/// space and a scope spelling.
llvm::Error checkAddressSpaceScope(uint64_t AddressSpace,
                                   llvm::StringRef Spelling);
/// "5:global.npu_sram,6:local".
std::string printAddressSpaceScopes(const AddressSpaceScopes &Map);

/// Parses a scope spelling ("global", "global.npu_sram", ...). The error
/// message says what is wrong with the spelling, without location.
llvm::Expected<Scope> parseScopeSpelling(llvm::StringRef Spelling);

/// Reads the `!scope` metadata of \p I. The error message says what is
/// malformed; the caller adds the function and value.
llvm::Expected<Scope> readScope(const llvm::Instruction &I);

} // namespace scopealloc

#endif
