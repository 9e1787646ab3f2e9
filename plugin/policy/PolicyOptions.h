//===- PolicyOptions.h - Policy settings given to the pass ------*- C++ -*-===//
//
// The stack-policy settings that come with the pass rather than with the
// module: the -scope-alloc-* command-line options, and the parameters of a
// pass in a pipeline:
//
//   opt -passes='scope-alloc<limit=0;frame-budget=4096;dynamic=reject>'
//   opt -passes='scope-alloc-promote<limit=256>,scope-alloc<limit=256>'
//
// Every setting with the Option or Parameter layer in PolicySettings.def
// has both spellings (docs/options.md lists them): the parameter (limit=,
// frame-budget=, ...) and the option -scope-alloc-<key>.
//
// Pass parameters override the command-line options of the same setting;
// StackPolicy.h lists where both stand among the policy's layers.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_POLICYOPTIONS_H
#define SCOPEALLOC_POLICYOPTIONS_H

#include "PolicySettings.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace scopealloc {

struct PolicyOptions {
  enum OriginTy { CommandLine, PassParameters };
  OriginTy Origin = CommandLine;
  /// Policy file (layer 2) and target tag (layer 3) to use.
  std::optional<std::string> PolicyPath;
  std::optional<std::string> Target;
  /// max-stack-alloca, frame-budget, dynamic and pool; unset ones fall
  /// through to the layers below.
  PolicyFields Fields;
  /// The first problem with the command-line options, reported as the
  /// module's error (pass parameters are checked when the pipeline is
  /// parsed instead).
  std::string Error;

  bool empty() const;
  /// Sets \p S from \p Value; the error says what is wrong with the value.
  llvm::Error set(PolicySetting S, llvm::StringRef Value);
  /// Target or PolicyPath for the selector \p S, else null.
  std::optional<std::string> *selector(PolicySetting S);
  /// How messages name \p S: "-scope-alloc-frame-budget" or "pass parameter
  /// 'frame-budget'".
  std::string settingName(PolicySetting S) const;
  /// The source the remarks name for the limit, and for the other fields.
  std::string limitSource() const;
  std::string fieldsSource() const;
  /// Prints "limit=0;pool=sram" (the parameters as they parse back).
  void printParameters(llvm::raw_ostream &OS) const;
};

/// Prints \p PassName with \p Params as the pipeline text that parses back:
/// "scope-alloc<limit=0>", or just the name without parameters.
void printPassWithParameters(llvm::raw_ostream &OS, llvm::StringRef PassName,
                             const PolicyOptions &Params);

/// The -scope-alloc-* options, read when called.
PolicyOptions commandLineOptions();

/// Parses the parameters \p Params ("limit=0;pool=sram", the text between
/// '<' and '>') of the pass \p PassName. The error names the parameter and
/// the pass.
llvm::Expected<PolicyOptions> parsePolicyParameters(llvm::StringRef Params,
                                                    llvm::StringRef PassName);

} // namespace scopealloc

#endif
