//===- PolicyValues.h - How policy values are written -----------*- C++ -*-===//
//
// The values of the policy settings (PolicySettings.def) and the one parser
// of each: byte counts, keep|demote|reject, error|warn. Every layer that
// writes a setting (options, pass parameters, policy files, module flags,
// function attributes, source annotations) reads its text here; the caller
// names the setting in the message.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_POLICYVALUES_H
#define SCOPEALLOC_POLICYVALUES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>

namespace scopealloc {

enum class DynamicRule { Keep, Demote, Reject };
enum class ConflictRule { Error, Warn };
/// Where a whole-program link puts demoted frames (plan: runtime|static).
enum class FramePlan { Runtime, Static };

/// How a decimal byte count reads; each caller words the error for its
/// layer (parseByteCount words it for text settings).
enum class ByteCountRead { OK, Negative, NotANumber, TooLarge };
ByteCountRead readByteCount(llvm::StringRef Text, uint64_t &Value);

/// Parses a decimal byte count. The error says "must be a byte count,
/// found \"<Text>\"" (or "must not be negative, ...").
llvm::Expected<uint64_t> parseByteCount(llvm::StringRef Text);

/// Parses keep|demote|reject. The error says "must be keep, demote or
/// reject, found <Text>" (quoted with \p Quote, as the setting's source
/// quotes: policy files with ') and hints at a likely typo.
llvm::Expected<DynamicRule> parseDynamicRule(llvm::StringRef Text,
                                             char Quote = '"');
llvm::StringRef spell(DynamicRule R);

/// Parses error|warn, with the same kind of message.
llvm::Expected<ConflictRule> parseConflictRule(llvm::StringRef Text,
                                               char Quote = '"');
llvm::StringRef spell(ConflictRule R);

/// "runtime" or "static"; an error naming \p Text otherwise.
llvm::Expected<FramePlan> parseFramePlan(llvm::StringRef Text,
                                         char Quote = '\'');
llvm::StringRef spell(FramePlan P);

/// " (did you mean 'X'?)" for the choice nearest to \p Got when it is a
/// likely typo of it, else "".
std::string didYouMean(llvm::StringRef Got,
                       llvm::ArrayRef<llvm::StringRef> Choices);

} // namespace scopealloc

#endif
