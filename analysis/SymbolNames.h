//===- SymbolNames.h - Function names as people read them -------*- C++ -*-===//
//
// One spelling of a symbol for remarks, reports and scopealloc-bound, and
// the way back from it: C++ and Rust v0 names through LLVM's demangler;
// Rust's legacy mangling (an Itanium-shaped _ZN...17h<hash>E whose
// identifiers carry $LT$, $C$, $u20$, .. escapes), which LLVM's demangler
// leaves half done (core::result::Result$LT$T$C$E$GT$::ok), decoded as
// rustc-demangle does: core::result::Result<T,E>::ok::h0123456789abcdef.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_ANALYSIS_SYMBOLNAMES_H
#define SCOPEALLOC_ANALYSIS_SYMBOLNAMES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace scopealloc {

/// \p Symbol demangled (C++, Rust legacy and v0, D); itself when it is no
/// mangled name. A suffix the compiler added (.llvm.123, .cold) follows in
/// parentheses, as LLVM's demangler writes it.
std::string readableSymbol(llvm::StringRef Symbol);

/// \p Readable without a Rust legacy hash: "pool::work::h1d55...e1" ->
/// "pool::work"; anything else as it is.
llvm::StringRef withoutRustHash(llvm::StringRef Readable);

/// The symbols among \p Symbols that \p Name names: the symbol itself;
/// else those it is the readable name of (what scopealloc-bound prints);
/// else those whose readable name without the Rust hash, or, for C++,
/// without the parameter list, it is. Several when the name is ambiguous.
std::vector<std::string> symbolsNamed(llvm::StringRef Name,
                                      llvm::ArrayRef<std::string> Symbols);

} // namespace scopealloc

#endif
