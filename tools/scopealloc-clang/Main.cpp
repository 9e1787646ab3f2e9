//===- Main.cpp - scopealloc-clang, scopealloc-clang++ --------------------===//
//
// A drop-in clang that runs ScopeAlloc. clang's own Driver builds the jobs
// of the command line; the wrapper loads the plugin into the jobs that run
// LLVM, adds the runtime and LTO flags to the link, runs them as clang
// would, then checks the link's bounds. See docs/driver.md.
//
//===----------------------------------------------------------------------===//

#include "ScopeAllocClang.h"
#include "clang/Driver/Job.h"
#include "clang/Driver/Tool.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

#include "LLVMCompat.h"

using namespace clang::driver;
using namespace llvm;
using namespace scopealloc;

static int run(ArrayRef<std::string> Command) {
  std::vector<StringRef> Argv(Command.begin(), Command.end());
  std::string Error;
  int Status = sys::ExecuteAndWait(Argv.front(), Argv, {}, {}, 0, 0, &Error);
  if (Status < 0)
    errs() << "scopealloc-clang: " << Argv.front() << ": " << Error << "\n";
  return Status;
}

// A line appended to the preprocessor's output: to the -o file, or stdout.
static void appendLine(Compilation &C, StringRef Line) {
  StringRef Output = C.getArgs().getLastArgValue(options::OPT_o);
  if (Output.empty() || Output == "-") {
    outs() << Line << "\n";
    outs().flush();
    return;
  }
  std::error_code EC;
  raw_fd_ostream OS(Output, EC, sys::fs::OF_Append | sys::fs::OF_Text);
  if (EC)
    fail("cannot append to " + Output + ": " + EC.message());
  OS << Line << "\n";
}

int main(int Argc, const char **Argv) {
  InitLLVM X(Argc, Argv);
  InitializeAllTargetInfos(); // -print-targets, target-prefixed names
  Settings S;
  readSettings(S, Argc, Argv, SCOPEALLOC_WRAPPED_COMPILER);

  // clang -cc1/-cc1as: not a driver command line; the compiler's own.
  if (Argc > 1 && StringRef(Argv[1]).starts_with("-cc1")) {
    std::vector<std::string> Command{S.Compiler};
    Command.insert(Command.end(), Argv + 1, Argv + Argc);
    return run(Command);
  }

  refuseLauncherInFront();
  if (S.Print == Settings::PrintCacheKey) {
    // ccache's compiler_check: what the environment adds to every compile.
    outs() << "scopealloc-config " << environmentConfiguration(S).Key << "\n";
    return 0;
  }
  if (S.Print == Settings::PrintInputs) {
    ClangCompilation Probe(S, S.Argv, /*Quiet=*/false);
    if (!Probe.ok())
      return 1;
    for (const std::string &File : configuration(S, *Probe.get()).Files) {
      SmallString<256> Abs(File);
      sys::fs::make_absolute(Abs);
      outs() << Abs << "\n";
    }
    return 0;
  }

  if (S.PrintRuntime) {
    ClangCompilation Probe(S, S.Argv, /*Quiet=*/true);
    if (!Probe.get())
      return 1;
    std::string Path = runtimePath(S, chooseRuntime(S, Probe.get()->getArgs()));
    if (!Path.empty())
      outs() << Path << "\n";
    return 0;
  }

  // A silent first build says whether the command line links, for which
  // target, with LTO or not; the real build gets the flags its links need.
  std::vector<std::string> LinkFlags;
  {
    ClangCompilation Probe(S, S.Argv, /*Quiet=*/true);
    if (Probe.ok())
      LinkFlags = linkFlags(S, *Probe.get());
  }
  std::vector<const char *> Args = S.Argv;
  for (const std::string &F : LinkFlags)
    Args.push_back(F.c_str());
  ClangCompilation Build(S, Args, /*Quiet=*/false);
  if (!Build.ok())
    return 1;
  Compilation &C = *Build.get();
  JobOptions O = jobOptions(S, C);
  checkCacheKey(S, C);
  std::vector<std::string> Launched = launcherCommand(S, O, C);
  if (!Launched.empty())
    return run(Launched);
  rewriteJobs(S, O, C);
  splitThinBackends(S, C);
  std::string LinkOptions = passLinkOptions(S, C);
  keyThinLTOCache(S, C, LinkOptions);

  bool PrintOnly = C.getArgs().hasArg(options::OPT__HASH_HASH_HASH);
  if (!PrintOnly)
    explainLinkErrors(S, C);
  std::vector<BoundCheck> Checks;
  for (const Command &Job : C.getJobs())
    if (Job.getCreator().isLinkJob())
      if (auto Check = boundCommand(S, C, Job))
        Checks.push_back(*Check);
  std::string Marker = cacheMarker(S, O, C);

  SmallVector<std::pair<int, const Command *>, 4> Failing;
  int Result = Build.driver().ExecuteCompilation(C, Failing);
  for (const auto &[Status, Job] : Failing)
    if (!Result)
      Result = Status;
  if (Result)
    return Result;
  // -###: the checks are jobs too, printed as clang prints its own.
  if (PrintOnly) {
    for (const BoundCheck &Check : Checks)
      printBoundCheck(Check, errs());
    return 0;
  }

  // --version: clang's text first (build systems read its first line).
  if (C.getArgs().hasArg(options::OPT__version))
    outs() << "ScopeAlloc " SCOPEALLOC_VERSION " (runtime ABI "
           << SCOPEALLOC_ABI_VERSION << ", LLVM " << SCOPEALLOC_LLVM_MAJOR
           << " pass plugin " << S.Plugin << ")\n";
  if (!Marker.empty())
    appendLine(C, Marker);
  bool Verbose = C.getArgs().hasArg(options::OPT_v);
  for (const BoundCheck &Check : Checks)
    if (!Check.OnlyIfPools || needsBufferCheck(Check.Image))
      if (int Status = runBoundCheck(Check, Verbose))
        return Status;
  return 0;
}
