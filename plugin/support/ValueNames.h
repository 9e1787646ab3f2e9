//===- ValueNames.h - What messages call a value ----------------*- C++ -*-===//
//
// Remarks, errors and reports name a buffer by its IR name. clang drops
// names in release builds (-fno-discard-value-names keeps them), and a
// full-LTO link sees the optimised module of each compile step, so the
// compile step records the name it saw in !scope-alloc.name.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_SUPPORT_VALUENAMES_H
#define SCOPEALLOC_SUPPORT_VALUENAMES_H

#include "llvm/ADT/StringRef.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm {
class Value;
} // namespace llvm

namespace scopealloc {

/// The metadata kind holding a buffer's name as its compile step saw it.
inline constexpr const char *NameMetadata = "scope-alloc.name";

/// \p V's IR name, else the one its compile step recorded, else "".
llvm::StringRef irName(const llvm::Value &V);

/// A function's name as people read it (and scopealloc-bound prints it):
/// C++ and Rust names demangled (SymbolNames.h).
std::string readableName(llvm::StringRef Symbol);

} // namespace scopealloc

#endif
