//===- LinkErrors.cpp - a failed link, explained --------------------------===//
//
// The linker names ScopeAlloc's symbols, not the mistake behind them. The
// link job's stderr goes to a file; after the link the wrapper prints it
// unchanged and, when the link failed, explains the undefined __scopealloc_*
// symbols it names:
//   __scopealloc_pool_<name>  a pool used but never defined: the functions
//                             (and source lines) that use it, from the
//                             inputs' .scopealloc_facts; how to define it;
//                             "did you mean" among the pools the inputs
//                             define or use and the policy declares
//   __scopealloc_abi_v<N>     this ScopeAlloc's N: no runtime is linked;
//                             another N: objects of another ScopeAlloc
//   __scopealloc_frame_slow   alone: the runtime was built by a compiler
//                             without a trustworthy preserve_most (GCC,
//                             clang < 17), which leaves it out: compile
//                             with -scope-alloc-slow-path=standard
//   __scopealloc_lto_link_without_pass_plugin  LTO bitcode compiled to an
//                             object by a step without the pass
//   other __scopealloc_*      no runtime is linked
//
//===----------------------------------------------------------------------===//

#include "FactsFormat.h"
#include "PolicyFile.h"
#include "PolicyValues.h"
#include "Scope.h"
#include "ScopeAllocClang.h"
#include "scopealloc/abi_constants.h"

#include "clang/Driver/Compilation.h"
#include "clang/Driver/Job.h"
#include "clang/Driver/Tool.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/DataExtractor.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <set>

#include "LLVMCompat.h"

using namespace clang::driver;
using namespace llvm;
using namespace llvm::object;

namespace scopealloc {

namespace {

/// What the link's inputs say about pools.
struct PoolUses {
  std::set<std::string> Defined;
  /// pool -> "function (file:line)" of each use, in input order.
  std::map<std::string, std::vector<std::string>> Users;
};

/// The records of one .scopealloc_facts section (FactsFormat.h): which
/// function uses which pool, and where.
void readFacts(StringRef Data, bool LittleEndian, PoolUses &U) {
  uint64_t Off = 0;
  while (Off + facts::HeaderSize <= Data.size()) {
    if (Data[Off] == 0) { // padding between input sections
      ++Off;
      continue;
    }
    if (!Data.substr(Off).starts_with(StringRef(facts::Magic, 4)))
      return;
    unsigned AddrSize = uint8_t(Data[Off + 5]);
    DataExtractor DE(Data, LittleEndian, AddrSize);
    uint64_t At = Off + 8;
    uint64_t End = Off + facts::HeaderSize + DE.getU32(&At);
    if (End > Data.size() || Data[Off + 4] != facts::Version ||
        (AddrSize != 4 && AddrSize != 8))
      return;
    At = Off + facts::HeaderSize + AddrSize;
    std::string Name, File;
    uint64_t Line = 0;
    std::vector<std::pair<std::string, uint64_t>> Pools; // pool, line
    Error Err = Error::success();
    auto Str = [&](uint64_t &P) {
      uint64_t N = DE.getULEB128(&P, &Err);
      return DE.getBytes(&P, N, &Err).str();
    };
    while (At < End && !Err) {
      uint64_t Tag = DE.getULEB128(&At, &Err);
      uint64_t Size = DE.getULEB128(&At, &Err);
      uint64_t P = At;
      At += Size;
      if (Err || At > End)
        break;
      if (Tag == facts::TagName) {
        Name = Data.substr(P, Size).str();
      } else if (Tag == facts::TagSource) {
        File = Str(P);
        Line = DE.getULEB128(&P, &Err);
      } else if (Tag == facts::TagPool) {
        Pools.push_back({Str(P), 0});
      } else if (Tag == facts::TagDynamic &&
                 DE.getULEB128(&P, &Err) == facts::PlacePool) {
        std::string Pool = Str(P);
        for (int I = 0; I < 3; ++I) // bytes, align, flags
          DE.getULEB128(&P, &Err);
        Str(P); // the allocation's name
        Pools.push_back({Pool, DE.getULEB128(&P, &Err)});
      }
    }
    consumeError(std::move(Err));
    for (const auto &[Pool, AllocLine] : Pools) {
      std::string Where = File.empty() ? "" : sys::path::filename(File).str();
      if (uint64_t L = AllocLine ? AllocLine : Line; L && !Where.empty())
        Where += ":" + std::to_string(L);
      std::string Use =
          "'" + Name + "'" + (Where.empty() ? "" : " (" + Where + ")");
      std::vector<std::string> &List =
          U.Users[Pool.empty() ? "workspace" : Pool];
      if (!is_contained(List, Use))
        List.push_back(Use);
    }
    Off = End;
  }
}

void readObject(const ObjectFile &Obj, PoolUses &U) {
  for (const SymbolRef &Sym : Obj.symbols()) {
    Expected<StringRef> Name = Sym.getName();
    Expected<uint32_t> Flags = Sym.getFlags();
    if (!Name || !Flags) {
      consumeError(Name.takeError());
      consumeError(Flags.takeError());
      continue;
    }
    if (!(*Flags & SymbolRef::SF_Undefined) &&
        Name->starts_with(SCOPEALLOC_POOL_SYMBOL_PREFIX))
      U.Defined.insert(
          Name->drop_front(strlen(SCOPEALLOC_POOL_SYMBOL_PREFIX)).str());
  }
  for (const SectionRef &Sec : Obj.sections()) {
    Expected<StringRef> Name = Sec.getName();
    if (!Name || *Name != facts::SectionName) {
      consumeError(Name.takeError());
      continue;
    }
    if (Expected<StringRef> Data = Sec.getContents())
      readFacts(*Data, Obj.isLittleEndian(), U);
    else
      consumeError(Data.takeError());
  }
}

void readInput(StringRef Path, PoolUses &U) {
  auto Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return;
  Expected<std::unique_ptr<Binary>> Bin = createBinary(**Buffer);
  if (!Bin)
    return consumeError(Bin.takeError());
  if (auto *Obj = dyn_cast<ObjectFile>(Bin->get()))
    return readObject(*Obj, U);
  auto *Ar = dyn_cast<Archive>(Bin->get());
  if (!Ar)
    return;
  Error Err = Error::success();
  for (const Archive::Child &C : Ar->children(Err)) {
    Expected<std::unique_ptr<Binary>> Member = C.getAsBinary();
    if (!Member) {
      consumeError(Member.takeError());
      continue;
    }
    if (auto *Obj = dyn_cast<ObjectFile>(Member->get()))
      readObject(*Obj, U);
  }
  consumeError(std::move(Err));
}

} // namespace

/// Prints the notes for the undefined __scopealloc_* symbols that the
/// linker's \p Output names.
static void explain(const Settings &S, ArrayRef<std::string> Policies,
                    const Command &Link, StringRef Output) {
  // GNU ld: undefined reference to `sym'; lld: undefined symbol: sym.
  Regex Undefined(
      "undefined (reference to [`']|symbol: )(__scopealloc_[A-Za-z0-9_]+)");
  std::set<std::string> Symbols;
  for (StringRef Rest = Output; !Rest.empty();) {
    SmallVector<StringRef, 3> M;
    StringRef Line;
    std::tie(Line, Rest) = Rest.split('\n');
    if (Undefined.match(Line, &M))
      Symbols.insert(M[2].str());
  }
  if (Symbols.empty())
    return;

  std::string ABISymbol =
      "__scopealloc_abi_v" + std::to_string(SCOPEALLOC_ABI_VERSION);
  std::vector<std::string> Missing; // pool names
  std::vector<std::string> Runtime; // the runtime's own symbols
  bool OurABI = false;
  for (const std::string &Sym : Symbols) {
    StringRef Name(Sym);
    if (Name.consume_front(SCOPEALLOC_POOL_SYMBOL_PREFIX) &&
        !isReservedPoolName(Name))
      Missing.push_back(Name.str());
    else if (Sym == ABISymbol)
      OurABI = true;
    else if (Sym == SCOPEALLOC_SYM_LTO_LINK_MARKER)
      WithColor::note(errs(), "scopealloc-clang")
          << "undefined " << Sym << ": an object was compiled from "
          << "ScopeAlloc's LTO bitcode (-flto) by a step that ran no "
          << "ScopeAlloc pass, so its buffers were never placed: a "
          << "-fthinlto-index= backend or a -x ir compile by plain clang "
          << "(before clang 23, -fpass-plugin does nothing with "
          << "-fthinlto-index=); run those steps through scopealloc-clang, "
          << "which runs the pass there\n";
    else if (StringRef(Sym).starts_with("__scopealloc_abi_v"))
      WithColor::note(errs(), "scopealloc-clang")
          << "undefined " << Sym << ": an object was compiled by a "
          << "ScopeAlloc of another runtime ABI than this one (" << ABISymbol
          << "): rebuild it with this scopealloc-clang\n";
    else
      Runtime.push_back(Sym);
  }
  // Every runtime defines its ABI symbol: missing with the rest, there is
  // no runtime; missing alone, the runtime is another version's (one that
  // may predate the frameless slow path's thunks, too). The slow path
  // missing alone: a runtime whose compiler could not define it.
  if (OurABI && Runtime.size() == 1 &&
      (Runtime[0] == SCOPEALLOC_SYM_FRAME_THUNK ||
       Runtime[0] == SCOPEALLOC_SYM_FRAME_THUNK_REGS))
    Runtime.clear();
  if (Runtime.size() == 1 && Runtime[0] == SCOPEALLOC_SYM_FRAME_SLOW && !OurABI)
    WithColor::note(errs(), "scopealloc-clang")
        << "undefined " << SCOPEALLOC_SYM_FRAME_SLOW
        << ": the runtime linked was built by a compiler that cannot define "
        << "the preserve_most slow path (GCC, or clang before 17), which "
        << "these objects call; compile them with -mllvm "
        << "-scope-alloc-slow-path=standard, or link a runtime built by "
        << "clang 17 or newer\n";
  else if (!Runtime.empty())
    WithColor::note(errs(), "scopealloc-clang")
        << "undefined " << join(Runtime, ", ")
        << (OurABI ? ", " + ABISymbol : "")
        << ": no ScopeAlloc runtime is linked (not an ABI mismatch)"
        << (S.Runtime == "none" ? ", as SCOPEALLOC_RUNTIME=none asks" : "")
        << "; link through scopealloc-clang without SCOPEALLOC_RUNTIME=none, "
        << "or add -L" << S.Prefix << "/lib -lscopealloc_rt\n";
  else if (OurABI)
    WithColor::note(errs(), "scopealloc-clang")
        << "undefined " << ABISymbol << ": the runtime linked is of another "
        << "ABI version than this ScopeAlloc's (" << SCOPEALLOC_ABI_VERSION
        << "): link " << S.Prefix << "/lib's libscopealloc_rt, or rebuild "
        << "the objects with the ScopeAlloc of that runtime\n";
  if (Missing.empty())
    return;

  // The link's inputs: its objects (also those the command compiled) and
  // archives, for the uses of the pools and the pools they define.
  PoolUses U;
  for (const InputInfo &In : Link.getInputInfos())
    if (In.isFilename())
      readInput(In.getFilename(), U);
  std::vector<std::string> KnownNames(U.Defined.begin(), U.Defined.end());
  KnownNames.push_back("workspace");
  for (const std::string &Policy : Policies)
    if (auto File = loadPolicyFile(Policy))
      append_range(KnownNames, (*File)->Pools);
    else
      consumeError(File.takeError());
  for (const auto &[Pool, Users] : U.Users)
    KnownNames.push_back(Pool);
  for (const std::string &Pool : Missing) {
    std::vector<StringRef> Choices;
    for (const std::string &K : KnownNames)
      if (K != Pool && !is_contained(Missing, K) && !is_contained(Choices, K))
        Choices.push_back(K);
    raw_ostream &OS = WithColor::note(errs(), "scopealloc-clang");
    OS << "pool '" << Pool << "' is used but never defined"
       << didYouMean(Pool, Choices);
    if (auto It = U.Users.find(Pool); It != U.Users.end())
      OS << "; used by " << join(It->second, ", ");
    OS << "; define it once in the program: SCOPEALLOC_DEFINE_POOL(" << Pool
       << ", <bytes>); (<scopealloc/scopealloc.h>)\n";
  }
}

namespace {
/// The link job, its stderr sent to a file that it prints once the linker
/// exits, followed by the notes: before clang's "linker command failed".
class ExplainedLink : public Command {
public:
  ExplainedLink(const Command &Link, const Settings &S,
                std::vector<std::string> Policies)
      : Command(Link), S(S), Policies(std::move(Policies)) {}

  int Execute(ArrayRef<CommandRedirect> Redirects, std::string *ErrMsg,
              bool *ExecutionFailed) const override {
    SmallString<128> File;
    std::vector<CommandRedirect> R(Redirects.begin(), Redirects.end());
    R.resize(3);
    if (R[2] || sys::fs::createTemporaryFile("scopealloc-link", "err", File))
      return Command::Execute(Redirects, ErrMsg, ExecutionFailed);
    R[2] = File.str();
    int Status = Command::Execute(R, ErrMsg, ExecutionFailed);
    if (auto Text = MemoryBuffer::getFile(File)) {
      errs() << (*Text)->getBuffer();
      if (Status)
        explain(S, Policies, *this, (*Text)->getBuffer());
    }
    sys::fs::remove(File);
    return Status;
  }

private:
  const Settings &S;
  std::vector<std::string> Policies;
};
} // namespace

void explainLinkErrors(const Settings &S, Compilation &C) {
  // JobList lends its commands only as const: the list itself is ours.
  auto &Jobs = const_cast<JobList::list_type &>(C.getJobs().getJobs());
  for (std::unique_ptr<Command> &Job : Jobs)
    if (Job->getCreator().isLinkJob())
      Job = std::make_unique<ExplainedLink>(
          *Job, S, optionValues(pluginOptions(C.getArgs()), "policy"));
}

} // namespace scopealloc
