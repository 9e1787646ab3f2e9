//===- Jobs.cpp - what each of clang's jobs gets --------------------------===//
//
// clang's Driver decides what a command line does (preprocess, compile,
// assemble, link, with -save-temps, LTO, response files...). The wrapper
// only edits the jobs it built:
//   - a -cc1 job that runs LLVM loads the plugin (-load for its -mllvm
//     options, -fpass-plugin for the pass) and gets the plugin's options:
//     facts, report (named after the object it describes), pool usage,
//     value names;
//   - every other clang job (preprocessor, integrated assembler, -emit-ast,
//     --analyze, --precompile...) loses the -mllvm -scope-alloc-* options
//     in every spelling llvm::cl reads, each with its value word, which
//     nothing there would parse;
//   - a job writing a depfile (-MD) lists the files of the configuration
//     (Configuration.cpp), so that make, ninja and ccache's depend mode
//     see them change.
//
//===----------------------------------------------------------------------===//

#include "ScopeAllocClang.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Driver/Action.h"
#include "clang/Driver/InputInfo.h"
#include "clang/Driver/Job.h"
#include "clang/Driver/Tool.h"
#include "clang/Driver/ToolChain.h"
#include "clang/Driver/Types.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA1.h"
#include "llvm/Support/raw_ostream.h"
#include <fcntl.h>
#include <map>
#include <set>
#include <unistd.h>

#include "LLVMCompat.h" // llvm/TargetParser/Host.h

using namespace clang;
using namespace clang::driver;
using namespace llvm;
using llvm::opt::ArgStringList;

namespace scopealloc {

namespace {
// Sends stdout and stderr to /dev/null while it lives: a probe's
// Compilation must not print what the real one will (-v, --version).
class Silence {
public:
  Silence() {
    outs().flush();
    errs().flush();
    SavedOut = dup(1);
    SavedErr = dup(2);
    int Null = open("/dev/null", O_WRONLY);
    dup2(Null, 1);
    dup2(Null, 2);
    close(Null);
  }
  ~Silence() {
    outs().flush();
    errs().flush();
    dup2(SavedOut, 1);
    dup2(SavedErr, 2);
    close(SavedOut);
    close(SavedErr);
  }

private:
  int SavedOut, SavedErr;
};
} // namespace

ClangCompilation::ClangCompilation(const Settings &S,
                                   ArrayRef<const char *> Argv, bool Quiet)
    : Quiet(Quiet) {
  // "clang: error: ...", as the wrapped clang says it.
  Diags = std::make_unique<DriverDiagnostics>(
      Argv, Quiet ? "" : sys::path::stem(S.CompilerName));
  TheDriver =
      std::make_unique<Driver>(S.Compiler, sys::getDefaultTargetTriple(),
                               Diags->engine(), "clang LLVM compiler");
  TheDriver->setTargetAndMode(
      ToolChain::getTargetAndModeFromProgramName(S.CompilerName));
  std::optional<Silence> Quieted;
  if (Quiet)
    Quieted.emplace();
  C.reset(TheDriver->BuildCompilation(Argv));
}

ClangCompilation::~ClangCompilation() {
  // The Compilation removes its temporary files; quietly for a probe.
  std::optional<Silence> Quieted;
  if (Quiet)
    Quieted.emplace();
  C.reset();
}

bool runsLLVM(const Command &Job) {
  // Tool "clang" makes the -cc1 jobs; "clang::as" the integrated assembler.
  if (StringRef(Job.getCreator().getName()) != "clang")
    return false;
  const Action &A = Job.getSource();
  switch (A.getKind()) {
  case Action::BackendJobClass:  // -S, -emit-llvm, -flto -c
  case Action::AssembleJobClass: // -c: compile, back end and assembler in one
    return true;
  case Action::CompileJobClass: // -save-temps' bitcode step
    return types::isLLVMIR(A.getType());
  default: // preprocess, -fsyntax-only, -emit-ast, --analyze, --precompile
    return false;
  }
}

static bool hasArgument(const Command &Job, ArrayRef<StringRef> Spellings) {
  for (StringRef Arg : Job.getArguments())
    if (is_contained(Spellings, Arg))
      return true;
  return false;
}

bool isRelocatableLink(const Command &Job) {
  return hasArgument(Job, {"-r", "--relocatable", "-i"});
}

bool isSharedLink(const Command &Job) {
  return hasArgument(Job, {"-shared", "--shared", "-Bshareable"});
}

// The value after Flag in a job's arguments, or "".
static StringRef valueOf(const ArgStringList &Args, StringRef Flag) {
  for (size_t I = 0; I + 1 < Args.size(); ++I)
    if (Flag == Args[I])
      return Args[I + 1];
  return "";
}

JobOptions jobOptions(const Settings &S, Compilation &C) {
  JobOptions O;
  bool LTO = C.getDriver().isUsingLTO();
  // Remarks and reports name variables by their IR names; under LTO the
  // link makes them, from the names the bitcode keeps.
  O.KeepNames = LTO || (!S.ReportDir.empty() && !S.CMakeProbe);
  // The arguments as the Driver expanded them (config files too).
  std::vector<std::string> Words;
  for (const opt::Arg *A : C.getArgs()) {
    opt::ArgStringList Rendered;
    A->render(C.getArgs(), Rendered);
    Words.insert(Words.end(), Rendered.begin(), Rendered.end());
  }
  for (StringRef Arg : Words)
    if (Arg.starts_with("-Rpass=") || Arg.starts_with("-Rpass-missed=") ||
        Arg.starts_with("-Rpass-analysis=") ||
        Arg.starts_with("-fsave-optimization-record") ||
        Arg.starts_with("-foptimization-record-file=") ||
        Arg.contains("-pass-remarks"))
      O.KeepNames = true;
  std::vector<std::string> Options = pluginOptions(C.getArgs());
  if (!optionValues(Options, "report").empty())
    O.KeepNames = true;
  // Under LTO the frames are laid out at the link, which writes no .su.
  O.PoolUsage = !LTO && C.getArgs().hasArg(options::OPT_fstack_usage) &&
                optionValues(Options, "pool-usage").empty();
  return O;
}

// With -fstack-usage each source's pool bytes go to a .pu file beside
// clang's .su: the same name, unless several sources share one .su (a
// compile and link with -o), where each gets <source stem>.pu here.
static std::string
poolUsageFile(const Command &Job,
              const std::map<std::string, std::set<std::string>> &Sources) {
  StringRef StackUsage = valueOf(Job.getArguments(), "-stack-usage-file");
  if (StackUsage.empty())
    return "";
  auto It = Sources.find(StackUsage.str());
  if (It != Sources.end() && It->second.size() > 1)
    return "./";
  SmallString<256> Name(StackUsage);
  sys::path::replace_extension(Name, "pu");
  return Name.str().str();
}

namespace {
struct ReportTarget {
  std::string File;   // the -scope-alloc-report value
  std::string Output; // what the report records as its output; "" for none
};
} // namespace

// A compile's report is named after the object it writes, so that a rebuild
// of the object replaces its report instead of adding one:
// <dir>/<object stem>-<hash of its path>.json. An object that is a
// temporary of a compile and link is named by the image and its source:
// <dir>/<source stem>-<hash of both>.json.
// LTO compile steps and output to stdout keep the directory: the pass
// names their reports.
static ReportTarget reportTarget(StringRef Dir, const Command &Job,
                                 Compilation &C) {
  const ArgStringList &Args = Job.getArguments();
  StringRef Object = valueOf(Args, "-o");
  bool LTO = any_of(Args, [](StringRef Arg) {
    return Arg == "-flto" || Arg.starts_with("-flto=");
  });
  if (LTO || Object.empty() || Object == "-")
    return {Dir.str(), ""};
  StringRef Source = valueOf(Args, "-main-file-name");
  SmallString<256> Output(Object);
  std::string Identity;
  bool Temporary = any_of(C.getTempFiles(),
                          [&](const char *File) { return Object == File; });
  if (Temporary) {
    Output = C.getArgs().getLastArgValue(options::OPT_o, "a.out");
    Identity = "image ";
  }
  sys::fs::make_absolute(Output);
  sys::path::remove_dots(Output, /*remove_dot_dot=*/true);
  Identity += Output.str().str();
  // The image holds several sources: each is a module of its own. An
  // object holds one: built from another source, it replaces the report.
  for (const InputInfo &In : Job.getInputInfos())
    if (Temporary && In.isFilename()) {
      SmallString<256> Input(In.getFilename());
      sys::fs::make_absolute(Input);
      Identity += '\0' + Input.str().str();
    }
  // CMake's objects are main.c.o: the name without either extension.
  std::string Stem = sys::path::stem(Temporary ? Source : Object).str();
  if (!Temporary)
    Stem = sys::path::stem(Stem).str();
  for (char &Ch : Stem)
    if (!isAlnum(Ch) && Ch != '-' && Ch != '_' && Ch != '.')
      Ch = '_';
  if (Stem.empty() || Stem[0] == '-' || Stem[0] == '.')
    Stem.insert(0, "module"); // no option-like or hidden names
  std::string Hash = toHex(SHA1::hash(arrayRefFromStringRef(Identity)),
                           /*LowerCase=*/true)
                         .substr(0, 16);
  return {(Dir + Stem + "-" + Hash + ".json").str(), Output.str().str()};
}

void rewriteJobs(const Settings &S, const JobOptions &O, Compilation &C) {
  const opt::DerivedArgList &Args = C.getArgs();
  bool AnyLLVM = false;
  std::map<std::string, std::set<std::string>> SourcesOfStackUsage;
  for (Command &Job : C.getJobs()) {
    if (!runsLLVM(Job))
      continue;
    AnyLLVM = true;
    StringRef StackUsage = valueOf(Job.getArguments(), "-stack-usage-file");
    if (!StackUsage.empty())
      SourcesOfStackUsage[StackUsage.str()].insert(
          valueOf(Job.getArguments(), "-main-file-name").str());
  }
  std::string Report;
  if (AnyLLVM && !S.ReportDir.empty() && !S.CMakeProbe) {
    sys::fs::create_directories(S.ReportDir);
    Report = S.ReportDir + "/";
  }
  // What a depfile lists besides the sources: every file of the
  // configuration (the plugin, policies, response and config files).
  std::vector<std::string> DepfileEntries = configuration(S, C).Files;

  for (Command &Job : C.getJobs()) {
    if (!StringRef(Job.getCreator().getName()).starts_with("clang"))
      continue; // a linker or an external assembler
    const ArgStringList &Old = Job.getArguments();
    ArgStringList New;
    bool LLVM = runsLLVM(Job);
    auto MLLVM = [&](const Twine &Option) {
      New.push_back("-mllvm");
      New.push_back(Args.MakeArgString(Option));
    };
    New.push_back(Old[0]); // -cc1, -cc1as: stays first
    if (LLVM) {
      // -fpass-plugin runs the pass; before clang 22 only -load makes the
      // plugin's -mllvm options known (clang 22 loads pass plugins first).
      if (!SCOPEALLOC_HAVE_PASS_PLUGIN_OPTIONS) {
        New.push_back("-load");
        New.push_back(Args.MakeArgString(S.Plugin));
      }
      New.push_back(Args.MakeArgString("-fpass-plugin=" + S.Plugin));
      // What scopealloc-bound reads: machine frame sizes and the facts.
      New.push_back("-fstack-size-section");
      MLLVM("-scope-alloc-facts");
      if (!Report.empty()) {
        ReportTarget R = reportTarget(Report, Job, C);
        MLLVM("-scope-alloc-report=" + R.File);
        if (!R.Output.empty())
          MLLVM("-scope-alloc-report-output=" + R.Output);
      }
      if (O.PoolUsage) {
        std::string File = poolUsageFile(Job, SourcesOfStackUsage);
        if (!File.empty())
          MLLVM("-scope-alloc-pool-usage=" + File);
      }
    }
    if (AnyLLVM && !valueOf(Old, "-dependency-file").empty())
      for (const std::string &Entry : DepfileEntries)
        New.push_back(Args.MakeArgString("-fdepfile-entry=" + Entry));
    // The job's -mllvm words, read as llvm::cl reads them (PluginOptions.cpp),
    // and what the job keeps of them.
    std::vector<std::string> Words;
    for (size_t I = 1; I + 1 < Old.size(); ++I)
      if (StringRef(Old[I]) == "-mllvm")
        Words.push_back(Old[++I]);
    std::vector<std::string> Kept;
    for (const LLVMOption &Option : parseLLVMWords(expandLLVMWords(Words))) {
      // Nothing here loads the plugin to parse its options: each goes with
      // the word llvm::cl would take as its value.
      if (!LLVM && !Option.Plugin.empty())
        continue;
      // A report directory of the user's (CMake's REPORT_DIR): named per
      // object as the wrapper's own.
      StringRef Dir = Option.Plugin;
      if (LLVM && Dir.consume_front("-scope-alloc-report=") && !Dir.empty() &&
          (sys::path::is_separator(Dir.back()) || sys::fs::is_directory(Dir))) {
        sys::fs::create_directories(Dir);
        std::string Slashed = Dir.str();
        if (!sys::path::is_separator(Slashed.back()))
          Slashed += '/';
        ReportTarget R = reportTarget(Slashed, Job, C);
        Kept.push_back("-scope-alloc-report=" + R.File);
        if (!R.Output.empty())
          Kept.push_back("-scope-alloc-report-output=" + R.Output);
        continue; // not a file: a file is the user's choice
      }
      Kept.insert(Kept.end(), Option.Words.begin(), Option.Words.end());
    }
    // The user's and SCOPEALLOC_FLAGS' arguments follow ours: theirs win.
    // The -mllvm words kept go where the first was, in their order.
    bool KeptAdded = false;
    for (size_t I = 1; I < Old.size(); ++I) {
      StringRef Arg = Old[I];
      if (LLVM && O.KeepNames && Arg == "-discard-value-names")
        continue;
      if (Arg == "-mllvm" && I + 1 < Old.size()) {
        ++I;
        if (!KeptAdded)
          for (const std::string &Word : Kept)
            MLLVM(Word);
        KeptAdded = true;
        continue;
      }
      New.push_back(Old[I]);
    }
    Job.replaceArguments(New);
  }
}

} // namespace scopealloc
