//===- LinkCheck.cpp - bounds at the link ---------------------------------===//
//
// A link whose flags name a policy file (-scope-alloc-policy=<file>) is
// checked against the bounds the policy declares for the link's target
// ('stack-bound', 'entries', 'pool-sizes' of -scope-alloc-target=<tag>'s
// target, else of the one whose triples match), and every link whose image
// defines a pool against the pool's buffer: scopealloc-bound --check runs
// on the link's output and, when a bound does not hold, prints the chain
// and deletes the image. -shared and -r links are not checked: their
// callers own the stack. A check that passes is quiet; -v prints it as a
// job, with its result, and -### prints it without running it.
//   SCOPEALLOC_BOUND_CHECK=warn  report the violations, keep the image
//   SCOPEALLOC_BOUND_CHECK=off   no check
//
//===----------------------------------------------------------------------===//

#include "ScopeAllocClang.h"
#include "FactsFormat.h"
#include "scopealloc/abi_constants.h"
#include "clang/Driver/Job.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA1.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <cstdlib>

#include "LLVMCompat.h"

using namespace clang::driver;
using namespace llvm;
using namespace llvm::object;

namespace scopealloc {

std::string boundCheckMode() {
  const char *Env = std::getenv("SCOPEALLOC_BOUND_CHECK");
  std::string Mode = Env ? Env : "on";
  if (Mode != "on" && Mode != "warn" && Mode != "off")
    fail("SCOPEALLOC_BOUND_CHECK must be on, warn or off, not '" + Mode + "'");
  return Mode;
}

std::optional<BoundCheck> boundCommand(const Settings &S, Compilation &C,
                                       const Command &Link) {
  std::string Mode = boundCheckMode();
  // A distributed ThinLTO index link (--thinlto-index-only) writes no
  // image: its native link is checked.
  bool IndexOnly = any_of(Link.getArguments(), [](StringRef Arg) {
    return Arg.starts_with("--thinlto-index-only");
  });
  if (Mode == "off" || isSharedLink(Link) || isRelocatableLink(Link) ||
      IndexOnly)
    return std::nullopt;
  BoundCheck Check;
  std::vector<std::string> &Cmd = Check.Command;
  Cmd = {S.Prefix + "/bin/scopealloc-bound", "--check"};
  // The options clang's Driver sees: config files and response files too.
  std::vector<std::string> Options = pluginOptions(C.getArgs());
  std::vector<std::string> Policies = optionValues(Options, "policy");
  // A policy the link cannot read here was the compile steps' to report.
  if (!Policies.empty() && sys::fs::is_regular_file(Policies.back()))
    Cmd.push_back("--policy=" + Policies.back());
  else
    Check.OnlyIfPools = true;
  std::vector<std::string> Tags = optionValues(Options, "target");
  if (!Tags.empty() && !Check.OnlyIfPools)
    Cmd.push_back("--target=" + Tags.back());
  // The triple the pass saw, to pick the target whose triples match.
  if (!Check.OnlyIfPools)
    if (TargetInfo T = probeTarget(S, C.getArgs()); !T.Triple.empty())
      Cmd.push_back("--triple=" + T.Triple);
  Check.WarnOnly = Mode == "warn";
  Cmd.push_back(Check.WarnOnly ? "--warn-only" : "--delete-on-failure");
  const std::vector<std::string> &Outputs = Link.getOutputFilenames();
  Check.Image = Outputs.empty() ? "a.out" : Outputs.front();
  Cmd.push_back(Check.Image);
  return Check;
}

// As clang's Command::Print: the program always quoted, the arguments when
// Quote (-###) or when they need it (-v).
static void printCommand(ArrayRef<std::string> Command, raw_ostream &OS,
                         bool Quote) {
  for (size_t I = 0; I < Command.size(); ++I) {
    OS << ' ';
    sys::printArg(OS, Command[I], /*Quote=*/Quote || I == 0);
  }
  OS << '\n';
}

void printBoundCheck(const BoundCheck &Check, raw_ostream &OS) {
  // Nothing is linked yet: whether the image defines a pool is unknown.
  if (Check.OnlyIfPools)
    OS << " (only if " << Check.Image
       << " defines a pool or creates an RTOS's tasks)\n";
  printCommand(Check.Command, OS, /*Quote=*/true);
}

int runBoundCheck(const BoundCheck &Check, bool Verbose) {
  // -v shows every job clang runs; the check is one, so it shows too.
  if (Verbose) {
    printCommand(Check.Command, errs(), /*Quote=*/false);
    errs().flush();
  }
  std::vector<StringRef> Argv(Check.Command.begin(), Check.Command.end());
  std::string Error;
  int Status = sys::ExecuteAndWait(Argv.front(), Argv, {}, {}, 0, 0, &Error);
  if (Status < 0)
    errs() << "scopealloc-clang: " << Argv.front() << ": " << Error << "\n";
  else if (Verbose && Status == 0)
    errs() << "scopealloc-clang: bound check of " << Check.Image
           << (Check.WarnOnly ? " done (SCOPEALLOC_BOUND_CHECK=warn: a bound "
                                "that does not hold is a warning above)\n"
                              : " passed: the bounds hold\n");
  else if (Verbose)
    errs() << "scopealloc-clang: bound check of " << Check.Image
           << " failed (exit status " << Status << ")\n";
  return Status;
}

bool needsBufferCheck(StringRef Image) {
  Expected<OwningBinary<ObjectFile>> Obj = ObjectFile::createObjectFile(Image);
  if (!Obj) {
    consumeError(Obj.takeError());
    return false;
  }
  for (const SymbolRef &Sym : Obj->getBinary()->symbols()) {
    Expected<StringRef> Name = Sym.getName();
    Expected<uint32_t> Flags = Sym.getFlags();
    Expected<SymbolRef::Type> Type = Sym.getType();
    if (!Name || !Flags || !Type) {
      consumeError(Name.takeError());
      consumeError(Flags.takeError());
      consumeError(Type.takeError());
      continue;
    }
    // The runtime's __scopealloc_pool_mark... are functions, not pools.
    if (!(*Flags & SymbolRef::SF_Undefined) &&
        *Type != SymbolRef::ST_Function &&
        (Name->starts_with(SCOPEALLOC_POOL_SYMBOL_PREFIX) ||
         Name->starts_with(SCOPEALLOC_POOL_BUFFER_PREFIX)))
      return true;
    // An RTOS's creation call linked in: the image's tasks (those created
    // with constant arguments) have stacks to check.
    if (!(*Flags & SymbolRef::SF_Undefined) &&
        *Type == SymbolRef::ST_Function &&
        any_of(facts::TaskCreators, [&](const facts::TaskCreator &TC) {
          return *Name == TC.Name;
        }))
      return true;
  }
  return false;
}

} // namespace scopealloc
