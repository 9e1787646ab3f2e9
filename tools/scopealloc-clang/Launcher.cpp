//===- Launcher.cpp - SCOPEALLOC_LAUNCHER: icecc, distcc ------------------===//
//
// A distributed compiler takes a clang command line, preprocesses it here
// and compiles it on another machine with the clang of its environment.
// Put in front of scopealloc-clang it would compile there without the
// plugin (it sees neither the jobs the wrapper edits nor SCOPEALLOC_FLAGS*),
// a silently different object. So the wrapper goes in front:
//   SCOPEALLOC_LAUNCHER=icecc scopealloc-clang -c a.c -o a.o
// runs `icecc <clang> <the whole command line>`, where the command line is
// what the wrapper would compile, spelled for clang's driver: the words
// SCOPEALLOC_FLAGS* add, the user's, response files expanded, policy and
// --config files absolute (a default config file is the other clang's), and the
// plugin's flags (-fpass-plugin and -fplugin, which loads it before -mllvm
// options are parsed; facts, frame sizes, value names, depfile entries). The
// files it names must exist where the compile runs: --scopealloc-print-inputs
// lists them, for `icecc-create-env --addfile` (docs/build-systems.md). Only
// compile-only command lines go to the launcher; links, preprocessing, reports
// and .pu files stay here.
//
//===----------------------------------------------------------------------===//

#include "ScopeAllocClang.h"
#include "clang/Driver/Job.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include <cstdlib>

#include "LLVMCompat.h"

using namespace clang::driver;
using namespace llvm;

namespace scopealloc {

static std::string absolute(StringRef Path) {
  SmallString<256> Abs(Path);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return Abs.str().str();
}

void refuseLauncherInFront() {
  std::string Parent = sys::path::filename(parentProgram()).str();
  std::string Launcher =
      StringRef(Parent).starts_with("icecc") ? "icecc" : "distcc";
  if (Parent == "icecc" || Parent == "iceccd" || Parent == "distcc" ||
      Parent == "distccd")
    fail("runs under " + Parent +
         ", which compiles on another machine with a clang that has none of "
         "the wrapper's configuration (the plugin, SCOPEALLOC_FLAGS*, policy "
         "files): put the wrapper in front, SCOPEALLOC_LAUNCHER=" +
         Launcher + " scopealloc-clang ... (docs/build-systems.md)");
}

std::vector<std::string> launcherCommand(const Settings &S, const JobOptions &O,
                                         Compilation &C) {
  const char *Launcher = std::getenv("SCOPEALLOC_LAUNCHER");
  if (!Launcher || !*Launcher)
    return {};
  // Compile-only: every job a compile to an object, nothing else written.
  bool Any = false;
  for (const Command &Job : C.getJobs()) {
    if (!runsLLVM(Job) ||
        !is_contained(Job.getArguments(), StringRef("-emit-obj")))
      return {};
    Any = true;
  }
  std::vector<std::string> Options = pluginOptions(C.getArgs());
  if (!Any || (!S.ReportDir.empty() && !S.CMakeProbe) || O.PoolUsage ||
      !optionValues(Options, "report").empty() ||
      !optionValues(Options, "pool-usage").empty() ||
      C.getArgs().hasArg(options::OPT_save_temps_EQ, options::OPT_save_temps,
                         options::OPT__HASH_HASH_HASH))
    return {};

  std::string LauncherPath = Launcher;
  if (!StringRef(LauncherPath).contains('/')) {
    auto Found = sys::findProgramByName(LauncherPath);
    if (!Found)
      fail("SCOPEALLOC_LAUNCHER: cannot find '" + LauncherPath + "'");
    LauncherPath = *Found;
  }
  // The clang the launcher names: clang++ for the C++ driver, by its name
  // beside the real one (a distributed compiler tells C++ by the name).
  std::string Compiler = S.Compiler;
  SmallString<256> Named(sys::path::parent_path(S.Compiler));
  sys::path::append(Named, sys::path::filename(S.CompilerName));
  if (sys::fs::can_execute(Named))
    Compiler = Named.str().str();
  std::vector<std::string> Command{LauncherPath, Compiler};

  Configuration Config = configuration(S, C);
  bool Depfile = C.getArgs().hasArg(options::OPT_MD, options::OPT_MMD,
                                    options::OPT_M, options::OPT_MM);
  for (size_t I = 1; I < S.Argv.size(); ++I) {
    StringRef Arg = S.Argv[I];
    // Files by absolute paths: the compile runs in another directory.
    if (Arg.consume_front("--config="))
      Command.push_back("--config=" + absolute(Arg));
    else if (Arg == "--config" && I + 1 < S.Argv.size())
      Command.insert(Command.end(), {"--config", absolute(S.Argv[++I])});
    else
      Command.push_back(Arg.str());
  }
  Command.insert(Command.end(),
                 {"-fpass-plugin=" + S.Plugin, "-fplugin=" + S.Plugin,
                  "-fstack-size-section", "-mllvm", "-scope-alloc-facts"});
  // The policy (of the command line or a config file, the last one wins)
  // by its absolute path, after any relative spelling.
  std::vector<std::string> Policies = optionValues(Config.Options, "policy");
  if (!Policies.empty())
    Command.insert(Command.end(), {"-mllvm", "-scope-alloc-policy=" +
                                                 absolute(Policies.back())});
  if (O.KeepNames)
    Command.push_back("-fno-discard-value-names");
  if (Depfile)
    for (const std::string &File : Config.Files)
      Command.insert(Command.end(),
                     {"-Xclang", "-fdepfile-entry=" + absolute(File)});
  return Command;
}

} // namespace scopealloc
