//===- SymbolNames.cpp - Function names as people read them ---------------===//
#include "SymbolNames.h"
#include "LLVMCompat.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"

using namespace llvm;

namespace scopealloc {

/// A Rust legacy hash component: h and 16 lower-case hex digits.
static bool isRustHash(StringRef Word) {
  return Word.size() == 17 && Word[0] == 'h' &&
         all_of(Word.drop_front(), [](char C) {
           return isDigit(C) || (C >= 'a' && C <= 'f');
         });
}

/// One identifier of a legacy Rust path, unescaped (rustc-demangle's
/// legacy.rs): $LT$ <, $GT$ >, $C$ ",", $RF$ &, $BP$ *, $SP$ @, $LP$ (,
/// $RP$ ), $u<hex>$ that character; ".." "::"; a leading "_$" drops its "_".
/// std::nullopt when it is not one.
static std::optional<std::string> unescapeRustIdentifier(StringRef Id) {
  if (Id.starts_with("_$"))
    Id = Id.drop_front();
  std::string Out;
  while (!Id.empty()) {
    if (Id.consume_front("..")) {
      Out += "::";
      continue;
    }
    if (Id[0] != '$') {
      Out += Id[0];
      Id = Id.drop_front();
      continue;
    }
    size_t End = Id.find('$', 1);
    if (End == StringRef::npos)
      return std::nullopt;
    StringRef Escape = Id.slice(1, End);
    Id = Id.drop_front(End + 1);
    static const std::pair<const char *, const char *> Named[] = {
        {"LT", "<"}, {"GT", ">"}, {"C", ","},  {"RF", "&"},
        {"BP", "*"}, {"SP", "@"}, {"LP", "("}, {"RP", ")"}};
    if (const auto *It = find_if(
            Named, [&](const auto &P) { return Escape == P.first; });
        It != std::end(Named)) {
      Out += It->second;
      continue;
    }
    unsigned Code;
    if (!Escape.consume_front("u") || Escape.empty() ||
        any_of(Escape, [](char C) { return C >= 'A' && C <= 'Z'; }) ||
        Escape.getAsInteger(16, Code) || Code < 0x20 || Code > 0x7e)
      return std::nullopt; // (only ASCII is escaped this way in symbols)
    Out += static_cast<char>(Code);
  }
  return Out;
}

/// \p Symbol as a legacy Rust name: _ZN, length-prefixed identifiers, the
/// hash last, E; then an optional .suffix. std::nullopt for anything else
/// (a C++ name has no hash identifier).
static std::optional<std::string> demangleRustLegacy(StringRef Symbol) {
  StringRef Rest = Symbol;
  if (!Rest.consume_front("_ZN") && !Rest.consume_front("__ZN"))
    return std::nullopt;
  std::vector<StringRef> Ids;
  while (!Rest.empty() && isDigit(Rest[0])) {
    size_t Digits = Rest.find_if_not(isDigit);
    unsigned Length;
    if (Rest.substr(0, Digits).getAsInteger(10, Length) || Length == 0 ||
        Digits + Length > Rest.size())
      return std::nullopt;
    Ids.push_back(Rest.substr(Digits, Length));
    Rest = Rest.drop_front(Digits + Length);
  }
  if (Ids.size() < 2 || !isRustHash(Ids.back()) || !Rest.consume_front("E"))
    return std::nullopt;
  if (!Rest.empty() && Rest[0] != '.')
    return std::nullopt;
  std::string Out;
  for (StringRef Id : Ids) {
    std::optional<std::string> Plain = unescapeRustIdentifier(Id);
    if (!Plain)
      return std::nullopt;
    Out += (Out.empty() ? "" : "::") + *Plain;
  }
  if (!Rest.empty())
    Out += " (" + Rest.str() + ")";
  return Out;
}

std::string readableSymbol(StringRef Symbol) {
  if (std::optional<std::string> Rust = demangleRustLegacy(Symbol))
    return *Rust;
  // (LLVM 16 and older take a std::string.)
  return demangle(Symbol.str());
}

StringRef withoutRustHash(StringRef Readable) {
  size_t Sep = Readable.rfind("::");
  if (Sep != StringRef::npos && isRustHash(Readable.substr(Sep + 2)))
    return Readable.take_front(Sep);
  return Readable;
}

/// A C++ name without its parameter list and qualifiers: "ns::f(int) const"
/// -> "ns::f"; itself when it has none.
static StringRef withoutParameters(StringRef Readable) {
  if (!Readable.ends_with(")") && !Readable.ends_with(" const"))
    return Readable;
  // The parameter list is the last top-level "(...)" (templates may nest).
  int Depth = 0;
  for (size_t I = Readable.size(); I-- > 0;) {
    char C = Readable[I];
    if (C == ')')
      ++Depth;
    else if (C == '(' && --Depth == 0)
      return I ? Readable.take_front(I) : Readable;
  }
  return Readable;
}

std::vector<std::string> symbolsNamed(StringRef Name,
                                      ArrayRef<std::string> Symbols) {
  std::vector<std::string> Found;
  if (is_contained(Symbols, Name))
    return {Name.str()};
  std::vector<std::string> Readable;
  Readable.reserve(Symbols.size());
  for (const std::string &S : Symbols)
    Readable.push_back(readableSymbol(S));
  auto Collect = [&](auto Matches) {
    for (size_t I = 0; I < Symbols.size(); ++I)
      if (Matches(StringRef(Readable[I])))
        Found.push_back(Symbols[I]);
    return !Found.empty();
  };
  if (Collect([&](StringRef R) { return R == Name; }))
    return Found;
  if (Collect([&](StringRef R) { return withoutRustHash(R) == Name; }))
    return Found;
  Collect([&](StringRef R) { return withoutParameters(R) == Name; });
  return Found;
}

} // namespace scopealloc
