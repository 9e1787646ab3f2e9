//===- Settings.h - What the user tells scopealloc-bound --------*- C++ -*-===//
//
// Entry points, recursion depths and assumed stack sizes, from options and
// from a --config file, over a built-in table of assumed sizes for common
// libc, compiler-rt and ScopeAlloc runtime functions (code that carries no
// facts). A config file has one setting per line, '#' starts a comment:
//
//   entry <function>              an entry point
//   recursion <function> <depth>  the cycle through <function> holds at most
//                                 <depth> frames of its functions at once
//   assume <function> <bytes>     worst-case stack of <function>, callees
//                                 included (it uses no pool)
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_BOUND_SETTINGS_H
#define SCOPEALLOC_BOUND_SETTINGS_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace scopealloc {
namespace bound {

struct Settings {
  std::vector<std::string> Entries;
  llvm::StringMap<uint64_t> RecursionDepth;
  llvm::StringMap<uint64_t> Assumed;
  /// Where each assumption came from ("built-in", a file:line, "option").
  llvm::StringMap<std::string> AssumedFrom;
  /// Bytes a call adds beyond the callee's frame (the return address that
  /// x86 pushes), and what a leaf may use below the stack pointer.
  uint64_t CallOverhead = 0, RedZone = 0;
  /// Bytes the hardware pushes when it enters an interrupt handler.
  uint64_t ExceptionFrame = 0;
};

/// The built-in table of assumed sizes.
void addBuiltinAssumptions(Settings &S);

/// Reads a config file into \p S (later settings override earlier ones).
llvm::Error readConfig(llvm::StringRef Path, Settings &S);

/// "<function>=<number>", as --assume and --recursion-bound take it.
llvm::Error parseAssignment(llvm::StringRef Text, llvm::StringRef Option,
                            llvm::StringMap<uint64_t> &Into);

} // namespace bound
} // namespace scopealloc

#endif
