//===- Scope.cpp - The `scope` metadata vocabulary ------------------------===//
#include "Scope.h"
#include "scopealloc/abi_constants.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace scopealloc {

std::string poolSymbolName(StringRef Pool) {
  return (SCOPEALLOC_POOL_SYMBOL_PREFIX + Pool).str();
}

bool isReservedPoolName(StringRef Pool) {
  // The runtime's __scopealloc_pool_{mark,alloc,release} functions.
  std::string Symbol = poolSymbolName(Pool);
  return Symbol == SCOPEALLOC_SYM_POOL_MARK ||
         Symbol == SCOPEALLOC_SYM_POOL_ALLOC ||
         Symbol == SCOPEALLOC_SYM_POOL_RELEASE;
}

static Error malformed(const Twine &Why) {
  return createStringError(inconvertibleErrorCode(), Why);
}

static bool isCIdentifier(StringRef Name) {
  return !Name.empty() && !isDigit(Name.front()) &&
         all_of(Name, [](char C) { return isAlnum(C) || C == '_'; });
}

// Pool names become parts of C symbols (__scopealloc_pool_<name>). "stack"
// would be one, but scope 'global.stack' means the machine stack, so no
// scope could name that pool.
std::optional<std::string> poolNameProblem(StringRef Name) {
  if (!isCIdentifier(Name))
    return std::string("is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)");
  if (Name == "stack")
    return std::string("is reserved: scope 'global.stack' means the machine "
                       "stack, not a pool");
  return std::nullopt;
}

Expected<std::string> parsePoolSetting(StringRef Text) {
  std::optional<std::string> Why = poolNameProblem(Text);
  if (!Why)
    return Text.str();
  if (!isCIdentifier(Text))
    return malformed("must be 'workspace' or a pool name (a C identifier), "
                     "found \"" +
                     Text + "\"");
  return malformed("must be 'workspace' or a pool name, found \"" + Text +
                   "\", which " + *Why);
}

Expected<Scope> parseScopeSpelling(StringRef Spelling) {
  Scope S;
  S.Spelling = Spelling.str();
  if (Spelling.empty())
    return malformed("the scope string is empty");
  if (Spelling == "global") {
    S.Kind = Scope::Global;
    return S;
  }
  if (Spelling == "local" || Spelling == "global.stack") {
    S.Kind = Scope::Stack;
    return S;
  }
  if (Spelling == "global.workspace") {
    S.Kind = Scope::Workspace;
    return S;
  }
  StringRef Pool = Spelling;
  if (Pool.consume_front("global.")) {
    if (std::optional<std::string> Why = poolNameProblem(Pool))
      return malformed(
          formatv("pool name '{0}' in scope '{1}' {2}", Pool, Spelling, *Why));
    S.Kind = Scope::NamedPool;
    S.Pool = Pool.str();
    return S;
  }
  return malformed(formatv("unknown scope '{0}' (expected 'global', 'local', "
                           "'global.stack', 'global.workspace' or "
                           "'global.<pool>')",
                           Spelling));
}

Error checkAddressSpaceScope(uint64_t AddressSpace, StringRef Spelling) {
  if (AddressSpace == 0)
    return malformed("address space 0 is the stack's own: give its allocas "
                     "!scope metadata or a limit instead");
  if (AddressSpace > 0xffffff)
    return malformed(formatv("address space {0} is larger than LLVM's "
                             "largest, 16777215",
                             AddressSpace));
  if (Expected<Scope> S = parseScopeSpelling(Spelling); !S)
    return S.takeError();
  return Error::success();
}

Expected<AddressSpaceScopes> parseAddressSpaceScopes(StringRef Text) {
  AddressSpaceScopes Map;
  SmallVector<StringRef, 4> Items;
  Text.split(Items, ',', -1, /*KeepEmpty=*/false);
  if (Items.empty())
    return malformed("must be <address space>:<scope>[,...], found \"" + Text +
                     "\"");
  for (StringRef Item : Items) {
    auto [Number, Spelling] = Item.trim().split(':');
    unsigned AS;
    if (Number.trim().getAsInteger(10, AS) || Spelling.empty())
      return malformed("must be <address space>:<scope>[,...], found \"" +
                       Item + "\"");
    if (Error E = checkAddressSpaceScope(AS, Spelling.trim()))
      return malformed("\"" + Item + "\": " + toString(std::move(E)));
    if (any_of(Map, [&](const auto &E) { return E.first == AS; }))
      return malformed(formatv("address space {0} is given twice", AS));
    Map.push_back({AS, Spelling.trim().str()});
  }
  return Map;
}

std::string printAddressSpaceScopes(const AddressSpaceScopes &Map) {
  std::string Text;
  for (const auto &[AS, Spelling] : Map)
    Text += (Text.empty() ? "" : ",") + std::to_string(AS) + ":" + Spelling;
  return Text;
}

Expected<Scope> readScope(const Instruction &I) {
  MDNode *MD = I.getMetadata(ScopeMetadataName);
  if (!MD)
    return Scope();
  if (MD->getNumOperands() != 1)
    return malformed(formatv("!scope metadata must hold exactly one string, "
                             "found {0} operands",
                             MD->getNumOperands()));
  auto *Str = dyn_cast_or_null<MDString>(MD->getOperand(0).get());
  if (!Str)
    return malformed("!scope metadata must hold a string, found another kind "
                     "of operand");
  return parseScopeSpelling(Str->getString());
}

} // namespace scopealloc
