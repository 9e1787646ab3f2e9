//===- BoundSettings.cpp - What the user tells scopealloc-bound -----------===//
#include "BoundSettings.h"
#include "BuiltinAssumptions.h"
#include "PolicyFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace scopealloc {
namespace bound {

namespace {
Error parseNumber(StringRef Text, uint64_t &Value, const Twine &Where) {
  if (Text.getAsInteger(10, Value))
    return createStringError(inconvertibleErrorCode(),
                             Where + ": '" + Text +
                                 "' is not a decimal number");
  return Error::success();
}
} // namespace

Error checkDepth(StringRef Function, uint64_t Depth, const Twine &Where) {
  // As in a policy file: a cycle holds at least one frame.
  if (Depth == 0)
    return createStringError(inconvertibleErrorCode(),
                             Where + ": 'recursion' of '" + Function +
                                 "' must be at least 1, found 0");
  return Error::success();
}

/// Parses settings text (--config format); \p Name says where it came from
/// in messages and in the "assumed" marks.
static Error readSettingsText(StringRef Text, StringRef Name, bool Builtin,
                              Settings &S);

void addBuiltinAssumptions(Settings &S) {
  // The table is analysis/assumptions.conf, compiled in.
  cantFail(readSettingsText(BuiltinAssumptionsText, "built-in",
                            /*Builtin=*/true, S));
}

Error readPolicy(StringRef Path, StringRef Tag, StringRef Triple, Settings &S) {
  Expected<std::shared_ptr<const PolicyFile>> File = loadPolicyFile(Path);
  if (!File)
    return File.takeError();
  S.Policy = *File;
  std::vector<const PolicyTarget *> Apply;
  const PolicyTarget *ByTriple =
      Triple.empty() ? nullptr : (*File)->matchTriple(Triple);
  if (ByTriple)
    Apply.push_back(ByTriple);
  const PolicyTarget *ByTag = Tag.empty() ? nullptr : (*File)->findTarget(Tag);
  if (ByTag && ByTag != ByTriple)
    Apply.push_back(ByTag);
  S.SuggestTarget = ByTag ? ByTag : ByTriple;
  if (!S.SuggestTarget) {
    S.SuggestTargetWhy =
        Tag.empty() && Triple.empty()
            ? "no target selected (give --target=<tag> or --triple=<triple>)"
        : !Tag.empty()
            ? "target '" + Tag.str() + "' is not in " + Path.str() +
                  (Triple.empty()
                       ? ""
                       : " and no target's triples match " + Triple.str())
            : "no target's triples match " + Triple.str();
  }
  for (const PolicyTarget *T : Apply)
    addTargetBounds(*T, Path, S);
  return Error::success();
}

void addTargetBounds(const PolicyTarget &T, StringRef Path, Settings &S) {
  std::string In = "of target '" + T.Name + "' in " + Path.str();
  const BoundFields &B = T.Bounds;
  if (B.StackBound)
    S.StackBound = Limit{*B.StackBound, "'stack-bound' " + In};
  for (const auto &[Entry, Bytes] : B.Entries) {
    S.EntryBounds[Entry] = Limit{Bytes, "'entries' " + In};
    S.Entries.push_back(Entry);
    S.PolicyEntries.insert(Entry);
  }
  for (const auto &[Pool, Bytes] : B.PoolSizes)
    S.PoolSizes[Pool] = Limit{Bytes, "'pool-sizes' " + In};
  for (const auto &[Function, Depth] : B.Recursion) {
    S.RecursionDepth[Function] = Depth;
    S.RecursionFrom[Function] = "'recursion' " + In;
  }
  for (const auto &[Handler, Level] : B.InterruptPriorities)
    S.InterruptPriorities[Handler] = {Level, "'interrupt-priorities' " + In};
  if (!B.Rtos.empty())
    S.Rtos = B.Rtos;
  for (const TaskDecl &D : B.Tasks) {
    Settings::Task T{
        D.Name,
        D.Entry,
        D.StackBytes.value_or(0),
        D.StackSymbol,
        D.SwitchContext,
        B.Rtos,
        "'tasks' " + In +
            (D.Line ? ":" + std::to_string(D.Line) : std::string()),
        D.Arena,
        D.Pools};
    llvm::erase_if(
        S.Tasks, [&](const Settings::Task &Old) { return Old.Name == T.Name; });
    if (!llvm::is_contained(S.Entries, T.Entry))
      S.Entries.push_back(T.Entry);
    S.Tasks.push_back(std::move(T));
  }
}

bool declaresBound(const Settings &S) {
  return S.StackBound || !S.EntryBounds.empty() || !S.PoolSizes.empty() ||
         !S.Tasks.empty();
}

Error readConfig(StringRef Path, Settings &S) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(Buf.getError(),
                             "cannot read config file '" + Path +
                                 "': " + Buf.getError().message());
  return readSettingsText((*Buf)->getBuffer(), Path, /*Builtin=*/false, S);
}

static Error readSettingsText(StringRef Text, StringRef Name, bool Builtin,
                              Settings &S) {
  SmallVector<StringRef, 64> Lines;
  Text.split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    std::string Where = (Name + ":" + Twine(I + 1)).str();
    StringRef Line = Lines[I].split('#').first.trim();
    if (Line.empty())
      continue;
    SmallVector<StringRef, 4> Words;
    SplitString(Line, Words);
    auto Bad = [&](const Twine &Why) {
      return createStringError(inconvertibleErrorCode(),
                               Where + ": " + Why +
                                   " (expected 'entry <f>', "
                                   "'recursion <f> <depth>', "
                                   "'assume <f> <bytes>' "
                                   "or 'priority <handler> <number>')");
    };
    if (Words[0] == "entry") {
      if (Words.size() != 2)
        return Bad("'entry' takes one function");
      S.Entries.push_back(Words[1].str());
    } else if (Words[0] == "recursion" || Words[0] == "assume") {
      if (Words.size() != 3)
        return Bad("'" + Words[0] + "' takes a function and a number");
      uint64_t N;
      if (Error E = parseNumber(Words[2], N, Where))
        return E;
      if (Words[0] == "recursion") {
        if (Error E = checkDepth(Words[1], N, Where))
          return E;
        S.RecursionDepth[Words[1]] = N;
        S.RecursionFrom[Words[1]] = Where;
      } else {
        S.Assumed[Words[1]] = N;
        S.AssumedFrom[Words[1]] = Builtin ? "built-in" : Where;
      }
    } else if (Words[0] == "priority") {
      int64_t Level;
      if (Words.size() != 3 || Words[2].getAsInteger(10, Level))
        return Bad("'priority' takes a function and a whole number");
      S.InterruptPriorities[Words[1].str()] = {Level, Where};
    } else {
      return Bad("unknown setting '" + Words[0] + "'");
    }
  }
  return Error::success();
}

Error parsePriority(StringRef Text, Settings &S) {
  auto [Name, Number] = Text.rsplit('=');
  int64_t Level;
  if (Name.empty() || Number.empty() || Number.getAsInteger(10, Level))
    return createStringError(inconvertibleErrorCode(),
                             "--interrupt-priority=" + Text +
                                 ": expected <handler>=<whole number>");
  S.InterruptPriorities[Name.str()] = {Level, "--interrupt-priority"};
  return Error::success();
}

Error parseAssignment(StringRef Text, StringRef Option,
                      StringMap<uint64_t> &Into) {
  auto [Name, Number] = Text.rsplit('=');
  uint64_t N;
  if (Name.empty() || Number.empty() || Number.getAsInteger(10, N))
    return createStringError(inconvertibleErrorCode(),
                             "--" + Option + "=" + Text +
                                 ": expected <function>=<decimal number>");
  Into[Name] = N;
  return Error::success();
}

} // namespace bound
} // namespace scopealloc
