//===- PolicyFile.cpp - User-written stack-alloca policies ----------------===//
#include "PolicyFile.h"
#include "Scope.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace llvm;

namespace scopealloc {

const PolicyTarget *PolicyFile::findTarget(StringRef Name) const {
  for (const PolicyTarget &T : Targets)
    if (T.Name == Name)
      return &T;
  return nullptr;
}

const PolicyFields *PolicyTarget::functionFields(StringRef Function) const {
  for (const auto &[Name, Fields] : Functions)
    if (Name == Function)
      return &Fields;
  return nullptr;
}

const PolicyTarget *PolicyFile::matchTriple(StringRef Triple) const {
  for (const PolicyTarget &T : Targets)
    for (const std::string &Pattern : T.TriplePatterns)
      if (Expected<GlobPattern> G = GlobPattern::create(Pattern)) {
        if (G->match(Triple))
          return &T;
      } else {
        consumeError(G.takeError()); // checked when the file was read
      }
  return nullptr;
}

namespace {

/// Walks the YAML document; every problem is printed through the stream,
/// which the SourceMgr handler collects with file, line and column.
class PolicyReader {
public:
  PolicyReader(yaml::Stream &S, const SourceMgr &SM, PolicyFile &Out)
      : S(S), SM(SM), Out(Out) {}
  void read(yaml::Node *Root);
  bool Failed = false;

private:
  void error(yaml::Node *N, const Twine &Msg) {
    S.printError(N, Msg);
    Failed = true;
  }
  std::optional<std::string> scalar(yaml::Node *N, StringRef Key);
  /// False, with an error naming both lines, when \p Key of one mapping
  /// was read before (YAML takes the later value silently); \p Seen maps
  /// the keys read so far to their lines.
  bool firstTime(StringMap<unsigned> &Seen, StringRef Key, yaml::Node *N,
                 const Twine &Where);
  std::optional<uint64_t> bytes(yaml::Node *N, StringRef Key);
  /// One of the keys a target and a function under 'functions' share;
  /// false if \p Key is none of them.
  bool readField(llvm::StringRef Key, yaml::Node *V, PolicyFields &F,
                 SettingLayer Layer, llvm::StringRef Target);
  /// A mapping of names to counts ('entries', 'pool-sizes', 'recursion').
  void readNamedCounts(llvm::StringRef Key, llvm::StringRef Target,
                       yaml::Node *N, llvm::StringRef What,
                       std::vector<std::pair<std::string, uint64_t>> &Out,
                       bool IsPool = false);
  void readAddressSpaceScopes(llvm::StringRef Target, llvm::yaml::Node *N,
                              PolicyFields &F);
  void readInterruptPriorities(llvm::StringRef Target, yaml::Node *N,
                               BoundFields &B);
  void readTasks(llvm::StringRef Target, yaml::Node *N, BoundFields &B);
  void readFunctions(PolicyTarget &T, yaml::Node *N);
  void readTarget(StringRef Name, yaml::Node *N);
  void readAllocators(yaml::Node *N);
  void readPools(yaml::Node *N);

  yaml::Stream &S;
  const SourceMgr &SM;
  PolicyFile &Out;
  std::vector<std::pair<std::string, yaml::Node *>> PoolUses;
};

} // namespace

std::optional<std::string> PolicyReader::scalar(yaml::Node *N, StringRef Key) {
  auto *Scalar = dyn_cast_or_null<yaml::ScalarNode>(N);
  if (!Scalar) {
    error(N, "'" + Key + "' must be a single value");
    return std::nullopt;
  }
  SmallString<32> Storage;
  return Scalar->getValue(Storage).str();
}

bool PolicyReader::firstTime(StringMap<unsigned> &Seen, StringRef Key,
                             yaml::Node *N, const Twine &Where) {
  unsigned Line = SM.getLineAndColumn(N->getSourceRange().Start).first;
  auto [It, New] = Seen.try_emplace(Key, Line);
  if (!New)
    error(N, "'" + Key + "' is given twice " + Where + " (lines " +
                 Twine(It->second) + " and " + Twine(Line) + "); give it once");
  return New;
}

std::optional<uint64_t> PolicyReader::bytes(yaml::Node *N, StringRef Key) {
  std::optional<std::string> Text = scalar(N, Key);
  if (!Text)
    return std::nullopt;
  uint64_t Value;
  switch (readByteCount(*Text, Value)) {
  case ByteCountRead::OK:
    return Value;
  case ByteCountRead::Negative:
    error(N, "'" + Key + "' must not be negative, found " + *Text);
    return std::nullopt;
  case ByteCountRead::NotANumber:
  case ByteCountRead::TooLarge:
    error(N, "'" + Key + "' must be a byte count, found '" + *Text + "'");
    return std::nullopt;
  }
  llvm_unreachable("all ByteCountRead values handled");
}

void PolicyReader::readAllocators(yaml::Node *N) {
  auto *Seq = dyn_cast_or_null<yaml::SequenceNode>(N);
  static constexpr StringRef AllocatorKeys[] = {
      "alloc", "size-arg", "free",       "free-arg",
      "align", "null",     "alloc-slot", "free-slot"};
  if (!Seq)
    return error(N, "'allocators' must be a list of allocators (" +
                        listSettingKeys(AllocatorKeys) + ")");
  for (yaml::Node &Item : *Seq) {
    auto *Map = dyn_cast<yaml::MappingNode>(&Item);
    if (!Map) {
      error(&Item, "an allocator is a mapping with alloc, size-arg, free, "
                   "free-arg and align");
      continue;
    }
    AllocatorSpec A{};
    A.NullIsErrorPath = true;
    std::optional<uint64_t> SizeArg, FreeArg, Alignment;
    bool OK = true;
    StringMap<unsigned> Keys;
    for (yaml::KeyValueNode &KV : *Map) {
      std::optional<std::string> Key = scalar(KV.getKey(), "allocators");
      if (Key && !firstTime(Keys, *Key, KV.getKey(), "in an allocator")) {
        OK = false;
        continue;
      }
      std::optional<std::string> Value =
          Key ? scalar(KV.getValue(), *Key) : std::nullopt;
      if (!Value) {
        OK = false;
        continue;
      }
      if (*Key == "alloc") {
        A.Alloc = *Value;
      } else if (*Key == "free") {
        A.Free = *Value;
      } else if (*Key == "alloc-slot") {
        A.AllocSlot = *Value;
      } else if (*Key == "free-slot") {
        A.FreeSlot = *Value;
      } else if (*Key == "size-arg" || *Key == "free-arg" || *Key == "align") {
        uint64_t N;
        if (readByteCount(*Value, N) != ByteCountRead::OK ||
            (*Key == "align" ? !isPowerOf2_64(N) || N > (1ull << 32)
                             : N > 64)) {
          error(KV.getValue(),
                "'" + *Key + "' must be " +
                    (*Key == "align" ? "a power of two"
                                     : "an argument index (from 0)") +
                    ", found '" + *Value + "'");
          OK = false;
          continue;
        }
        (*Key == "size-arg"   ? SizeArg
         : *Key == "free-arg" ? FreeArg
                              : Alignment) = N;
      } else if (*Key == "null") {
        if (*Value != "error-path" && *Value != "never") {
          error(KV.getValue(), "'null' must be error-path or never, found '" +
                                   *Value + "'" +
                                   didYouMean(*Value, {"error-path", "never"}));
          OK = false;
          continue;
        }
        A.NullIsErrorPath = *Value == "error-path";
      } else {
        error(KV.getKey(), "unknown key '" + *Key +
                               "' in an allocator (expected " +
                               listSettingKeys(AllocatorKeys) + ")" +
                               didYouMean(*Key, AllocatorKeys));
        OK = false;
      }
    }
    if (!OK)
      continue;
    if (A.Alloc.empty() || A.Free.empty() || !SizeArg || !FreeArg ||
        !Alignment) {
      error(&Item, "an allocator needs alloc, size-arg, free, free-arg and "
                   "align");
      continue;
    }
    // The argument counts are those the calls must have at least.
    A.SizeArg = *SizeArg;
    A.AllocArgs = A.SizeArg + 1;
    A.FreeArg = *FreeArg;
    A.FreeArgs = A.FreeArg + 1;
    A.Align = *Alignment;
    A.Origin = "policy file " + Out.Path;
    if (any_of(Out.Allocators,
               [&](const AllocatorSpec &B) { return B.Alloc == A.Alloc; })) {
      error(&Item, "allocator '" + A.Alloc + "' is declared twice");
      continue;
    }
    Out.Allocators.push_back(std::move(A));
  }
}

void PolicyReader::readPools(yaml::Node *N) {
  auto *Seq = dyn_cast_or_null<yaml::SequenceNode>(N);
  if (!Seq)
    return error(N, "'pools' must be a list of pool names");
  for (yaml::Node &Item : *Seq)
    if (std::optional<std::string> Name = scalar(&Item, "pools")) {
      if (std::optional<std::string> Why = poolNameProblem(*Name))
        error(&Item, "pool name '" + *Name + "' " + *Why);
      else {
        Out.Pools.push_back(*Name);
        Out.PoolLines.push_back(
            SM.getLineAndColumn(Item.getSourceRange().Start).first);
      }
    }
}

/// The keys of a target that are not policy fields.
static constexpr StringRef StructureKeys[] = {"triples", "functions"};

/// The keys a target takes: its fields, its bounds and its structure.
static std::vector<StringRef> targetKeys() {
  std::vector<StringRef> Keys = settingKeys(layer::TargetKey);
  Keys.insert(Keys.end(), std::begin(StructureKeys), std::end(StructureKeys));
  return Keys;
}

bool PolicyReader::readField(StringRef Key, yaml::Node *V, PolicyFields &F,
                             SettingLayer Layer, StringRef Target) {
  const SettingInfo *S = findSetting(Layer, Key);
  if (!S || S->Kind != SettingInfo::Field)
    return false;
  switch (S->Value) {
  case SettingValue::Bytes:
    if (std::optional<uint64_t> B = bytes(V, Key))
      cantFail(F.set(S->Id, std::to_string(*B)));
    break;
  case SettingValue::Rule:
  case SettingValue::Conflict:
  case SettingValue::Plan:
    if (std::optional<std::string> Text = scalar(V, Key))
      if (Error E = F.set(S->Id, *Text, '\''))
        error(V, "'" + Key + "' " + toString(std::move(E)));
    break;
  case SettingValue::Pool:
    // Checked against 'pools' once the whole file is read.
    if (std::optional<std::string> Text = scalar(V, Key)) {
      F.Pool = *Text;
      PoolUses.push_back({*Text, V});
    }
    break;
  case SettingValue::SpaceScopes:
    readAddressSpaceScopes(Target, V, F);
    break;
  case SettingValue::Text:
    llvm_unreachable("no text field in a policy file");
  }
  return true;
}

void PolicyReader::readNamedCounts(
    StringRef Key, StringRef Target, yaml::Node *N, StringRef What,
    std::vector<std::pair<std::string, uint64_t>> &Out, bool IsPool) {
  auto *Map = dyn_cast_or_null<yaml::MappingNode>(N);
  if (!Map)
    return error(N,
                 "'" + Key + "' in target '" + Target + "' must map " + What);
  StringSet<> Seen;
  for (yaml::KeyValueNode &KV : *Map) {
    std::optional<std::string> Name = scalar(KV.getKey(), Key);
    if (!Name)
      continue;
    if (!Seen.insert(*Name).second) {
      error(KV.getKey(), "'" + *Name + "' appears twice in '" + Key + "'");
      continue;
    }
    bool Frames = Key == "recursion";
    std::string Setting = ("'" + Key + "' of '" + *Name + "'").str();
    std::optional<std::string> Text =
        scalar(KV.getValue(), (Key + "' of '" + *Name).str());
    if (!Text)
      continue;
    uint64_t Count;
    ByteCountRead Read = readByteCount(*Text, Count);
    if (Read == ByteCountRead::Negative ||
        (Read == ByteCountRead::OK && Frames && Count == 0)) {
      error(KV.getValue(), Setting + " must " +
                               (Frames ? "be at least 1" : "not be negative") +
                               ", found " + *Text);
      continue;
    }
    if (Read != ByteCountRead::OK) {
      error(KV.getValue(),
            Setting + " must be " +
                (Frames ? "a number of frames" : "a byte count") + ", found '" +
                *Text + "'");
      continue;
    }
    if (IsPool)
      PoolUses.push_back({*Name, KV.getKey()});
    Out.push_back({*Name, Count});
  }
}

/// 'interrupt-priorities': handler -> a whole number, negative too (the
/// NVIC's fixed priorities of NMI and HardFault are -2 and -1).
void PolicyReader::readInterruptPriorities(StringRef Target, yaml::Node *N,
                                           BoundFields &B) {
  auto *Map = dyn_cast_or_null<yaml::MappingNode>(N);
  if (!Map)
    return error(N, "'interrupt-priorities' in target '" + Target +
                        "' must map interrupt handlers (function names) to "
                        "their priorities (a lower number preempts a higher "
                        "one)");
  StringSet<> Seen;
  for (yaml::KeyValueNode &KV : *Map) {
    std::optional<std::string> Name =
        scalar(KV.getKey(), "interrupt-priorities");
    if (!Name)
      continue;
    if (!Seen.insert(*Name).second) {
      error(KV.getKey(),
            "'" + *Name + "' appears twice in 'interrupt-priorities'");
      continue;
    }
    std::optional<std::string> Text =
        scalar(KV.getValue(), "interrupt-priorities' of '" + *Name);
    if (!Text)
      continue;
    int64_t Priority;
    if (StringRef(*Text).trim().getAsInteger(10, Priority)) {
      error(KV.getValue(), "'interrupt-priorities' of '" + *Name +
                               "' must be a whole number (a lower one "
                               "preempts a higher one), found '" +
                               *Text + "'");
      continue;
    }
    B.InterruptPriorities.push_back({*Name, Priority});
  }
}

/// The context switches the bound knows. The exception frame (32 bytes, 104
/// with FP state: exceptionFrame in TargetStack.h) comes on top.
ArrayRef<RtosPort> rtosPorts() {
  static const RtosPort Ports[] = {
      {"pendsv", 32, 32, "a bare PendSV switcher that pushes r4-r11 (8 words)"},
      {"freertos-cm3", 32, 32,
       "FreeRTOS portable/GCC/ARM_CM3/port.c xPortPendSVHandler: stmdb "
       "r0!, {r4-r11}"},
      {"freertos-cm4f", 36, 100,
       "FreeRTOS portable/GCC/ARM_CM4F/port.c xPortPendSVHandler: stmdb "
       "r0!, {r4-r11, r14} (9 words), and vstmdb r0!, {s16-s31} (16 more) "
       "when the task has FP state: 17 and 51 words with the exception "
       "frame"},
  };
  return Ports;
}

const RtosPort *findRtosPort(StringRef Name) {
  for (const RtosPort &P : rtosPorts())
    if (P.Name == Name)
      return &P;
  return nullptr;
}

/// 'tasks': name -> {entry: <function>, stack: <bytes or symbol>,
/// switch-context: <bytes>}.
void PolicyReader::readTasks(StringRef Target, yaml::Node *N, BoundFields &B) {
  auto *Map = dyn_cast_or_null<yaml::MappingNode>(N);
  if (!Map)
    return error(N, "'tasks' in target '" + Target +
                        "' must map task names to {entry: <function>, "
                        "stack: <bytes or the stack array's symbol>}");
  StringSet<> Seen;
  for (yaml::KeyValueNode &KV : *Map) {
    std::optional<std::string> Name = scalar(KV.getKey(), "tasks");
    if (!Name)
      continue;
    if (!Seen.insert(*Name).second) {
      error(KV.getKey(), "task '" + *Name + "' appears twice in 'tasks'");
      continue;
    }
    auto *Fields = dyn_cast_or_null<yaml::MappingNode>(KV.getValue());
    if (!Fields) {
      error(KV.getValue(), "task '" + *Name + "' in target '" + Target +
                               "' must be a mapping with 'entry' and "
                               "'stack'");
      continue;
    }
    TaskDecl T;
    T.Name = *Name;
    T.Line = SM.getLineAndColumn(KV.getKey()->getSourceRange().Start).first;
    StringMap<unsigned> Keys;
    bool Bad = false;
    for (yaml::KeyValueNode &F : *Fields) {
      std::optional<std::string> Key = scalar(F.getKey(), "key");
      if (!Key ||
          !firstTime(Keys, *Key, F.getKey(), "for task '" + *Name + "'")) {
        Bad = true;
        continue;
      }
      std::string What = "'" + *Key + "' of task '" + *Name + "'";
      if (*Key == "pools") {
        auto *Shares = dyn_cast_or_null<yaml::MappingNode>(F.getValue());
        if (!Shares) {
          error(F.getValue(), What + " must map named pools to the bytes "
                                     "of the task's partition");
          Bad = true;
          continue;
        }
        for (yaml::KeyValueNode &P : *Shares) {
          std::optional<std::string> Pool = scalar(P.getKey(), What);
          std::optional<std::string> Bytes =
              Pool ? scalar(P.getValue(), What) : std::nullopt;
          uint64_t Value;
          if (!Bytes || readByteCount(*Bytes, Value) != ByteCountRead::OK ||
              !Value) {
            if (Bytes)
              error(P.getValue(), "the partition of pool '" + *Pool +
                                      "' in " + What +
                                      " must be a byte count above 0, "
                                      "found '" +
                                      *Bytes + "'");
            Bad = true;
            continue;
          }
          T.Pools[StringRef(*Pool).trim().str()] = Value;
        }
        continue;
      }
      std::optional<std::string> Text = scalar(F.getValue(), What);
      if (!Text) {
        Bad = true;
        continue;
      }
      if (*Key == "entry") {
        T.Entry = *Text;
      } else if (*Key == "stack") {
        uint64_t Value;
        ByteCountRead Read = readByteCount(*Text, Value);
        if (Read == ByteCountRead::OK && Value) {
          T.StackBytes = Value;
        } else if (Read == ByteCountRead::NotANumber &&
                   !StringRef(*Text).trim().empty() &&
                   !isDigit(StringRef(*Text).trim().front()) &&
                   StringRef(*Text).trim().front() != '-') {
          T.StackSymbol = StringRef(*Text).trim().str();
        } else {
          error(F.getValue(), What +
                                  " must be a byte count above 0 or the "
                                  "symbol of the stack array, found '" +
                                  *Text + "'");
          Bad = true;
        }
      } else if (*Key == "arena") {
        T.Arena = StringRef(*Text).trim().str();
      } else if (*Key == "switch-context") {
        uint64_t Value;
        if (readByteCount(*Text, Value) != ByteCountRead::OK) {
          error(F.getValue(),
                What + " must be a byte count, found '" + *Text + "'");
          Bad = true;
        } else {
          T.SwitchContext = Value;
        }
      } else {
        error(F.getKey(), "unknown key '" + *Key + "' for task '" + *Name +
                              "' (expected entry, stack, switch-context, "
                              "arena or pools)" +
                              didYouMean(*Key, {"entry", "stack",
                                                "switch-context", "arena",
                                                "pools"}));
        Bad = true;
      }
    }
    if (Bad)
      continue;
    if (T.Entry.empty() || (!T.StackBytes && T.StackSymbol.empty())) {
      error(KV.getValue(), "task '" + *Name + "' in target '" + Target +
                               "' needs " +
                               (T.Entry.empty() ? "'entry' (its function)"
                                                : "'stack' (bytes or the "
                                                  "stack array's symbol)"));
      continue;
    }
    B.Tasks.push_back(std::move(T));
  }
}

void PolicyReader::readAddressSpaceScopes(StringRef Target, yaml::Node *N,
                                          PolicyFields &F) {
  auto *Map = dyn_cast_or_null<yaml::MappingNode>(N);
  if (!Map)
    return error(N, "'address-space-scopes' in target '" + Target +
                        "' must map address spaces (numbers) to scopes");
  AddressSpaceScopes Scopes;
  for (yaml::KeyValueNode &KV : *Map) {
    std::optional<std::string> Number =
        scalar(KV.getKey(), "address-space-scopes");
    std::optional<std::string> Spelling =
        scalar(KV.getValue(), "address-space-scopes");
    if (!Number || !Spelling)
      continue;
    unsigned AS;
    if (StringRef(*Number).getAsInteger(10, AS)) {
      error(KV.getKey(), "'address-space-scopes' keys must be address "
                         "spaces (numbers), found '" +
                             *Number + "'");
      continue;
    }
    if (Error E = checkAddressSpaceScope(AS, *Spelling)) {
      error(KV.getValue(), "'address-space-scopes' of " + *Number + ": " +
                               toString(std::move(E)));
      continue;
    }
    if (any_of(Scopes, [&](const auto &E) { return E.first == AS; })) {
      error(KV.getKey(), "address space " + *Number +
                             " appears twice in 'address-space-scopes'");
      continue;
    }
    Scopes.push_back({AS, *Spelling});
  }
  F.AddressSpaceScopes = std::move(Scopes);
}

void PolicyReader::readFunctions(PolicyTarget &T, yaml::Node *N) {
  auto *Map = dyn_cast_or_null<yaml::MappingNode>(N);
  if (!Map)
    return error(N, "'functions' in target '" + T.Name +
                        "' must map function names to their policy keys");
  StringSet<> Seen;
  for (yaml::KeyValueNode &KV : *Map) {
    std::optional<std::string> Name = scalar(KV.getKey(), "functions");
    if (!Name)
      continue;
    if (!Seen.insert(*Name).second) {
      error(KV.getKey(), "function '" + *Name +
                             "' appears twice in "
                             "'functions'");
      continue;
    }
    auto *Fields = dyn_cast_or_null<yaml::MappingNode>(KV.getValue());
    if (!Fields) {
      error(KV.getValue(), "function '" + *Name + "' in target '" + T.Name +
                               "' must be a mapping of policy keys");
      continue;
    }
    PolicyFields F;
    StringMap<unsigned> Keys;
    for (yaml::KeyValueNode &FKV : *Fields) {
      std::optional<std::string> Key = scalar(FKV.getKey(), "key");
      if (Key &&
          !firstTime(Keys, *Key, FKV.getKey(), "for function '" + *Name + "'"))
        continue;
      if (Key &&
          !readField(*Key, FKV.getValue(), F, layer::FunctionKey, T.Name)) {
        std::vector<StringRef> Keys = settingKeys(layer::FunctionKey);
        error(FKV.getKey(), "unknown key '" + *Key + "' for function '" +
                                *Name + "' (expected " + listSettingKeys(Keys) +
                                ")" + didYouMean(*Key, Keys));
      }
    }
    T.Functions.push_back({*Name, F});
    T.FunctionLines.push_back(
        SM.getLineAndColumn(KV.getKey()->getSourceRange().Start).first);
  }
}

void PolicyReader::readTarget(StringRef Name, yaml::Node *N) {
  auto *Map = dyn_cast_or_null<yaml::MappingNode>(N);
  if (!Map)
    return error(N, "target '" + Name + "' must be a mapping of policy keys");
  PolicyTarget T;
  T.Name = Name.str();
  StringMap<unsigned> Keys;
  yaml::Node *TasksNode = nullptr;
  for (yaml::KeyValueNode &KV : *Map) {
    std::optional<std::string> Key = scalar(KV.getKey(), "key");
    if (!Key || !firstTime(Keys, *Key, KV.getKey(), "in target '" + Name + "'"))
      continue;
    yaml::Node *V = KV.getValue();
    if (readField(*Key, V, T.Fields, layer::TargetKey, Name))
      continue;
    if (*Key == "triples") {
      auto *Seq = dyn_cast_or_null<yaml::SequenceNode>(V);
      if (!Seq) {
        error(V, "'triples' must be a list of triple patterns");
        continue;
      }
      for (yaml::Node &Item : *Seq)
        if (std::optional<std::string> Pattern = scalar(&Item, "triples")) {
          if (Expected<GlobPattern> G = GlobPattern::create(*Pattern))
            T.TriplePatterns.push_back(*Pattern);
          else
            error(&Item, "bad triple pattern '" + *Pattern +
                             "': " + toString(G.takeError()));
        }
    } else if (*Key == "stack-bound") {
      T.Bounds.StackBound = bytes(V, *Key);
    } else if (*Key == "entries") {
      readNamedCounts(*Key, Name, V,
                      "entry points (function names) to their stack bounds "
                      "in bytes",
                      T.Bounds.Entries);
    } else if (*Key == "pool-sizes") {
      readNamedCounts(*Key, Name, V, "pool names to their sizes in bytes",
                      T.Bounds.PoolSizes, /*IsPool=*/true);
    } else if (*Key == "recursion") {
      readNamedCounts(*Key, Name, V,
                      "functions to the most frames of their call cycle at "
                      "once",
                      T.Bounds.Recursion);
    } else if (*Key == "interrupt-priorities") {
      readInterruptPriorities(Name, V, T.Bounds);
    } else if (*Key == "tasks") {
      readTasks(Name, V, T.Bounds);
      TasksNode = KV.getKey();
    } else if (*Key == "rtos") {
      if (std::optional<std::string> Rtos = scalar(V, *Key)) {
        if (findRtosPort(*Rtos)) {
          T.Bounds.Rtos = *Rtos;
        } else {
          std::vector<StringRef> Names;
          for (const RtosPort &P : rtosPorts())
            Names.push_back(P.Name);
          error(V, "unknown 'rtos' '" + *Rtos + "' in target '" + Name +
                       "' (expected " + join(Names, ", ") +
                       "; or give each task its 'switch-context' in bytes)" +
                       didYouMean(*Rtos, Names));
        }
      }
    } else if (*Key == "functions") {
      readFunctions(T, V);
    } else {
      std::vector<StringRef> Keys = targetKeys();
      error(KV.getKey(), "unknown key '" + *Key + "' in target '" + Name +
                             "' (expected " + listSettingKeys(Keys) + ")" +
                             didYouMean(*Key, Keys));
    }
  }
  // A task's switch context: its own, else its target's RTOS port's.
  if (TasksNode && T.Bounds.Rtos.empty())
    for (const TaskDecl &Task : T.Bounds.Tasks)
      if (!Task.SwitchContext)
        error(TasksNode, "task '" + Task.Name + "' in target '" + Name +
                             "' has no 'switch-context' and the target no "
                             "'rtos' (the bytes its context switch pushes: "
                             "give 'rtos: pendsv', 'freertos-cm3' or "
                             "'freertos-cm4f', or 'switch-context: <bytes>')");
  Out.Targets.push_back(std::move(T));
}

void PolicyReader::read(yaml::Node *Root) {
  auto *Map = dyn_cast_or_null<yaml::MappingNode>(Root);
  if (!Map)
    return error(Root, "a policy file is a mapping with 'version', 'pools' "
                       "and 'targets'");
  StringSet<> Seen;
  StringMap<unsigned> Keys;
  bool SawVersion = false;
  for (yaml::KeyValueNode &KV : *Map) {
    std::optional<std::string> Key = scalar(KV.getKey(), "key");
    if (!Key || !firstTime(Keys, *Key, KV.getKey(), "at the top level"))
      continue;
    yaml::Node *V = KV.getValue();
    if (*Key == "version") {
      SawVersion = true;
      std::optional<uint64_t> Version = bytes(V, *Key);
      if (Version && *Version != 1)
        error(V, "unsupported policy file version " + Twine(*Version) +
                     " (this ScopeAlloc reads version 1)");
    } else if (*Key == "pools") {
      readPools(V);
    } else if (*Key == "allocators") {
      readAllocators(V);
    } else if (*Key == "targets") {
      auto *Targets = dyn_cast_or_null<yaml::MappingNode>(V);
      if (!Targets) {
        error(V, "'targets' must map target names to their policies");
        continue;
      }
      for (yaml::KeyValueNode &T : *Targets)
        if (std::optional<std::string> Name = scalar(T.getKey(), "target")) {
          if (!Seen.insert(*Name).second)
            error(T.getKey(), "target '" + *Name + "' is defined twice");
          readTarget(*Name, T.getValue());
        }
    } else {
      error(KV.getKey(), "unknown key '" + *Key +
                             "' (expected version, pools, targets or "
                             "allocators)" +
                             didYouMean(*Key, {"version", "pools", "targets",
                                               "allocators"}));
    }
  }
  // Pools are checked last: 'pools' may come after the targets.
  SmallVector<StringRef, 8> PoolNames(Out.Pools.begin(), Out.Pools.end());
  PoolNames.push_back(DefaultPoolName);
  for (auto &[Pool, Node] : PoolUses)
    if (Pool != DefaultPoolName && !is_contained(Out.Pools, Pool))
      error(Node, "unknown pool '" + Pool +
                      "' (declare it under 'pools', "
                      "or use 'workspace')" +
                      didYouMean(Pool, PoolNames));
  if (!SawVersion)
    Out.Warnings.push_back("policy file '" + Out.Path +
                           "' has no 'version'; assuming version 1 (add "
                           "'version: 1' to say so)");
}

static Error fileError(StringRef Path, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           "policy file '" + Path + "' " + Msg);
}

static StringRef describeType(sys::fs::file_type T) {
  switch (T) {
  case sys::fs::file_type::directory_file:
    return "a directory";
  case sys::fs::file_type::fifo_file:
    return "a FIFO";
  case sys::fs::file_type::character_file:
    return "a character device";
  case sys::fs::file_type::block_file:
    return "a block device";
  case sys::fs::file_type::socket_file:
    return "a socket";
  default:
    return "not a regular file";
  }
}

/// Checks what \p Path names before reading it: a FIFO or /dev/zero would
/// block or be read until memory runs out.
static Error checkReadable(StringRef Path, const sys::fs::file_status &St) {
  if (St.type() != sys::fs::file_type::regular_file)
    return fileError(Path, "is not a regular file (it is " +
                               describeType(St.type()) + ")");
  if (St.getSize() > MaxPolicyFileBytes)
    return fileError(Path, "is " + Twine(St.getSize()) +
                               " bytes, more than the limit of " +
                               Twine(MaxPolicyFileBytes) + " bytes (1 MiB)");
  return Error::success();
}

static Expected<std::unique_ptr<MemoryBuffer>> readPolicyFile(StringRef Path) {
  auto CannotRead = [&](std::error_code EC) {
    return createStringError(EC, "cannot read policy file '" + Path +
                                     "': " + EC.message());
  };
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Path, St))
    return CannotRead(EC);
  if (Error E = checkReadable(Path, St)) // before open(): a FIFO blocks
    return std::move(E);
  Expected<sys::fs::file_t> FD = sys::fs::openNativeFileForRead(Path);
  if (!FD)
    return CannotRead(errorToErrorCode(FD.takeError()));
  auto Close = make_scope_exit([&] { sys::fs::closeFile(*FD); });
  // Checked again on what was opened, in case the path changed meanwhile.
  if (std::error_code EC = sys::fs::status(*FD, St))
    return CannotRead(EC);
  if (Error E = checkReadable(Path, St))
    return std::move(E);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getOpenFile(*FD, Path, St.getSize());
  if (!Buffer)
    return CannotRead(Buffer.getError());
  return std::move(*Buffer);
}

/// The longest run of ',' separated only by blanks and comments. llvm::yaml
/// recurses once per empty flow entry, so a long run overflows the stack.
/// Every '#' counts as a comment here, which can only lengthen runs.
static std::pair<size_t, size_t> longestCommaRun(StringRef Text) {
  size_t Best = 0, BestAt = 0, Run = 0;
  for (size_t I = 0, E = Text.size(); I < E; ++I) {
    char C = Text[I];
    if (C == ',') {
      if (++Run > Best)
        Best = Run, BestAt = I;
    } else if (C == '#') {
      I = std::min(Text.find('\n', I), E);
    } else if (C != ' ' && C != '\t' && C != '\r' && C != '\n') {
      Run = 0;
    }
  }
  return {Best, BestAt};
}

namespace {

/// Walks every node of the document with an explicit stack, so that no
/// llvm::yaml call below recurses deeper than MaxPolicyNesting: each child is
/// consumed before its parent advances (advancing skips the child, which is
/// then a no-op) and each key before its value is asked for.
class NestingCheck {
public:
  explicit NestingCheck(yaml::Stream &S) : S(S) {}

  /// False (after printing an error at the node) when the nesting is too deep.
  bool run(yaml::Node *Root) {
    if (!enter(Root))
      return false;
    while (!Stack.empty()) {
      Frame &F = Stack.back();
      yaml::Node *Next = nullptr;
      if (F.Seq) {
        if (F.Started)
          ++F.SeqIt;
        F.Started = true;
        if (F.SeqIt == F.Seq->end()) {
          Stack.pop_back();
          continue;
        }
        Next = &*F.SeqIt;
      } else {
        if (F.Phase == 2) {
          ++F.MapIt;
          F.Phase = 0;
        }
        if (F.MapIt == F.Map->end()) {
          Stack.pop_back();
          continue;
        }
        Next = F.Phase == 0 ? F.MapIt->getKey() : F.MapIt->getValue();
        ++F.Phase;
      }
      if (!enter(Next))
        return false;
    }
    return true;
  }

private:
  struct Frame {
    yaml::SequenceNode *Seq = nullptr;
    yaml::SequenceNode::iterator SeqIt;
    bool Started = false;
    yaml::MappingNode *Map = nullptr;
    yaml::MappingNode::iterator MapIt;
    int Phase = 0; ///< 0: key next, 1: value next, 2: advance
  };

  bool enter(yaml::Node *N) {
    if (!N || (!isa<yaml::SequenceNode>(N) && !isa<yaml::MappingNode>(N)))
      return true;
    if (Stack.size() >= MaxPolicyNesting) {
      S.printError(N, "nesting deeper than " + Twine(MaxPolicyNesting) +
                          " levels (a policy file needs about 5)");
      return false;
    }
    Frame F;
    if (auto *Seq = dyn_cast<yaml::SequenceNode>(N)) {
      F.Seq = Seq;
      F.SeqIt = Seq->begin();
    } else {
      F.Map = cast<yaml::MappingNode>(N);
      F.MapIt = F.Map->begin();
    }
    Stack.push_back(F);
    return true;
  }

  yaml::Stream &S;
  std::vector<Frame> Stack;
};

} // namespace

/// Collects the SourceMgr diagnostics of one parse as "file:line:col: text".
static void collect(const SMDiagnostic &D, void *Context) {
  raw_string_ostream OS(*static_cast<std::string *>(Context));
  D.print(nullptr, OS, /*ShowColors=*/false, /*ShowKindLabel=*/false);
}

static Expected<std::shared_ptr<const PolicyFile>> parse(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buffer = readPolicyFile(Path);
  if (!Buffer)
    return Buffer.takeError();
  StringRef Text = (*Buffer)->getBuffer();
  if (auto [Run, At] = longestCommaRun(Text); Run > MaxPolicyNesting) {
    size_t Line = Text.take_front(At).count('\n') + 1;
    return createStringError(inconvertibleErrorCode(),
                             Path + ":" + Twine(Line) + ": " + Twine(Run) +
                                 " ',' in a row (empty list entries); at "
                                 "most " +
                                 Twine(MaxPolicyNesting) + " are read");
  }

  SourceMgr SM;
  std::string Messages;
  SM.setDiagHandler(collect, &Messages);
  {
    // A first parse only measures the nesting: llvm::yaml recurses once per
    // level when it skips a node, and a deep file would overflow the stack.
    yaml::Stream Stream((*Buffer)->getMemBufferRef(), SM, /*ShowColors=*/false);
    yaml::document_iterator Doc = Stream.begin();
    if (Doc != Stream.end())
      if (!NestingCheck(Stream).run(Doc->getRoot()))
        return createStringError(inconvertibleErrorCode(),
                                 StringRef(Messages).rtrim());
    Messages.clear(); // syntax errors are reported by the second parse
  }

  auto File = std::make_shared<PolicyFile>();
  File->Path = Path.str();
  yaml::Stream Stream((*Buffer)->getMemBufferRef(), SM, /*ShowColors=*/false);
  PolicyReader Reader(Stream, SM, *File);
  yaml::document_iterator Doc = Stream.begin();
  if (Doc != Stream.end())
    if (yaml::Node *Root = Doc->getRoot())
      Reader.read(Root);
  if (Stream.failed() || Reader.Failed)
    return createStringError(inconvertibleErrorCode(),
                             StringRef(Messages).rtrim());
  return std::shared_ptr<const PolicyFile>(std::move(File));
}

Expected<std::shared_ptr<const PolicyFile>> loadPolicyFile(StringRef Path) {
  // clang may run the pass for many modules in one process.
  static std::mutex Lock;
  static StringMap<std::shared_ptr<const PolicyFile>> Cache;
  std::lock_guard<std::mutex> Guard(Lock);
  if (auto It = Cache.find(Path); It != Cache.end())
    return It->second;
  Expected<std::shared_ptr<const PolicyFile>> File = parse(Path);
  if (File)
    Cache[Path] = *File;
  return File;
}

} // namespace scopealloc
