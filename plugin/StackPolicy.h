//===- StackPolicy.h - Which allocations may stay on the stack --*- C++ -*-===//
//
// First cut of the target stack-alloca policy: the largest single allocation
// allowed on the stack. Sources, lowest precedence first:
//   1. the target-triple table (targetDefaultPolicy),
//   2. -scope-alloc-max-stack-alloca=<bytes>,
//   3. the function attribute "scope-alloc-max-stack-alloca"="<bytes>".
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_STACKPOLICY_H
#define SCOPEALLOC_STACKPOLICY_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class Function;
class Triple;
} // namespace llvm

namespace scopealloc {

/// String function attribute that overrides the limit for one function.
inline constexpr const char *MaxStackAllocaAttr =
    "scope-alloc-max-stack-alloca";

struct StackPolicy {
  /// False for targets the pass leaves alone (GPUs: no workspace runtime).
  bool Enabled = true;
  /// An allocation of at most this many bytes may stay on the stack.
  uint64_t MaxStackAlloca = 1024;
  /// Which rule chose the limit, for remarks ("target default for ...").
  std::string Source;
};

/// The built-in row of the triple table that applies to \p T.
StackPolicy targetDefaultPolicy(const llvm::Triple &T);

/// The policy in force for \p F. Reports an error and returns std::nullopt
/// when the function attribute is malformed.
std::optional<StackPolicy> policyForFunction(const llvm::Function &F);

} // namespace scopealloc

#endif
