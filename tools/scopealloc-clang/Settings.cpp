//===- Settings.cpp - the environment and the command line ----------------===//
//
// Reads what the wrapper is asked for: the install prefix (from this
// program's own path), SCOPEALLOC_* variables, the wrapper's own flags, and
// the argv clang's Driver gets: the user's, with response files expanded.
//
//   SCOPEALLOC_COMPILER       the wrapped clang (default: LLVM's clang{,++})
//   SCOPEALLOC_FLAGS_FILE     a file of extra flags (# starts a comment line)
//   SCOPEALLOC_FLAGS          more extra flags; both split as a response file
//   SCOPEALLOC_REPORT_DIR, --scopealloc-report-dir=<dir>   JSON reports
//   SCOPEALLOC_RUNTIME        static, shared or none
//   --scopealloc-print-runtime  prints the runtime a link would get
//
//===----------------------------------------------------------------------===//

#include "ScopeAllocClang.h"
#include "clang/Driver/Driver.h"
#include "clang/Driver/ToolChain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <unistd.h>

// After clang/Driver/Driver.h: only then does LLVMCompat.h add the driver's
// expandResponseFiles for LLVM 15 and 16 (a block of its own, so that
// clang-format keeps the order).
#include "LLVMCompat.h"

using namespace llvm;

namespace scopealloc {

void fail(const Twine &Message) {
  errs() << "scopealloc-clang: " << Message << "\n";
  errs().flush();
  std::exit(1);
}

std::string parentProgram() {
  SmallString<256> Exe;
  std::string Link = "/proc/" + std::to_string(getppid()) + "/exe";
  if (sys::fs::real_path(Link, Exe))
    return "";
  return Exe.str().str();
}

// A quote left open: the GNU tokenizer would silently take the rest of the
// text as one word, a response file's author would rather hear of it.
static bool hasUnbalancedQuote(StringRef Text) {
  char Quote = 0;
  for (size_t I = 0; I < Text.size(); ++I) {
    char Ch = Text[I];
    if (Ch == '\\')
      ++I;
    else if (Quote && Ch == Quote)
      Quote = 0;
    else if (!Quote && (Ch == '"' || Ch == '\''))
      Quote = Ch;
  }
  return Quote != 0;
}

// Splits Text as clang splits a response file (llvm::cl's GNU rules).
static void splitWords(Settings &S, StringRef Text, const Twine &Origin) {
  if (hasUnbalancedQuote(Text))
    fail(Origin + " has an unbalanced quote");
  SmallVector<const char *, 16> Words;
  cl::TokenizeGNUCommandLine(Text, S.Saver, Words);
  for (const char *W : Words)
    S.Extra.push_back(W);
}

static void readExtraFlags(Settings &S) {
  if (const char *File = std::getenv("SCOPEALLOC_FLAGS_FILE"); File && *File) {
    S.FlagsFile = File;
    auto Buffer = MemoryBuffer::getFile(File, /*IsText=*/true);
    if (!Buffer || !sys::fs::is_regular_file(File))
      fail(Twine("SCOPEALLOC_FLAGS_FILE: cannot read '") + File + "'");
    std::string Text;
    SmallVector<StringRef, 16> Lines;
    (*Buffer)->getBuffer().split(Lines, '\n');
    for (StringRef Line : Lines)
      if (!Line.ltrim().starts_with("#"))
        Text += Line.str() + "\n";
    splitWords(S, Text, Twine("SCOPEALLOC_FLAGS_FILE '") + File + "'");
  }
  if (const char *Flags = std::getenv("SCOPEALLOC_FLAGS"); Flags && *Flags)
    splitWords(S, Flags, Twine("SCOPEALLOC_FLAGS='") + Flags + "'");
}

// CMake's own probes (compiler identification, ABI detection, try_compile
// projects) are not the project's code: they write no report.
static bool isCMakeProbe(ArrayRef<const char *> Argv) {
  auto InProbeDir = [](StringRef Path) {
    return Path.contains("/CMakeFiles/CMakeScratch/") ||
           Path.contains("/CMakeFiles/CMakeTmp/");
  };
  SmallString<256> Cwd;
  if (!sys::fs::current_path(Cwd) && InProbeDir((Cwd + "/").str()))
    return true;
  for (StringRef Arg : Argv.drop_front()) {
    if (Arg.starts_with("-"))
      continue;
    StringRef Name = sys::path::filename(Arg);
    if ((Name.starts_with("CMake") &&
         (Name.contains("CompilerId.") || Name.contains("CompilerABI."))) ||
        InProbeDir(Arg))
      return true;
  }
  return false;
}

// The response files a command line names, nested ones too (named
// relative to the file that names them, as clang reads them).
void collectResponseFiles(ArrayRef<const char *> Words,
                          std::vector<std::string> &Files, StringRef Dir,
                          unsigned Depth) {
  for (StringRef Word : Words) {
    if (!Word.consume_front("@") || Depth > 20)
      continue;
    SmallString<256> Path(Word);
    if (!Dir.empty() && !sys::path::is_absolute(Path) && !sys::fs::exists(Path))
      Path = (Dir + "/" + Word).str();
    auto Buffer = MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!Buffer || is_contained(Files, Path.str()))
      continue;
    Files.push_back(Path.str().str());
    BumpPtrAllocator Alloc;
    StringSaver Saver(Alloc);
    SmallVector<const char *, 16> Nested;
    cl::TokenizeGNUCommandLine((*Buffer)->getBuffer(), Saver, Nested);
    collectResponseFiles(Nested, Files, sys::path::parent_path(Path),
                         Depth + 1);
  }
}

void readSettings(Settings &S, int Argc, const char **Argv,
                  StringRef DefaultCompiler) {
  // <prefix>/bin/scopealloc-clang: the plugin and runtimes are in <prefix>/lib.
  std::string Self =
      sys::fs::getMainExecutable(Argv[0], reinterpret_cast<void *>(&fail));
  S.Prefix = sys::path::parent_path(sys::path::parent_path(Self)).str();
  S.Plugin = S.Prefix + "/lib/ScopeAlloc.so";
  if (!sys::fs::exists(S.Plugin))
    fail("missing " + S.Plugin + " (is ScopeAlloc installed under " + S.Prefix +
         "?)");

  const char *Compiler = std::getenv("SCOPEALLOC_COMPILER");
  S.CompilerName = Compiler && *Compiler ? Compiler : DefaultCompiler.str();
  std::string Found = S.CompilerName;
  if (!StringRef(Found).contains('/')) {
    auto Path = sys::findProgramByName(Found);
    if (!Path)
      fail("cannot find the compiler '" + Found + "'");
    Found = *Path;
  }
  // clang finds its resource directory and tools beside its real path.
  SmallString<256> Real;
  if (sys::fs::real_path(Found, Real))
    fail("cannot find the compiler '" + Found + "'");
  S.Compiler = Real.str().str();

  if (const char *Runtime = std::getenv("SCOPEALLOC_RUNTIME"))
    S.Runtime = Runtime;
  if (S.Runtime != "" && S.Runtime != "static" && S.Runtime != "shared" &&
      S.Runtime != "none")
    fail("SCOPEALLOC_RUNTIME must be static, shared or none, not '" +
         S.Runtime + "'");
  readExtraFlags(S);

  // The argv clang's main would hand its Driver: the mode its name implies
  // (clang++: --driver-mode=g++) first, then what the wrapper adds, then the
  // user's arguments; response files expanded, as clang does.
  SmallVector<const char *, 64> Args;
  Args.push_back(S.Saver.save(S.Compiler).data());
  auto Name =
      clang::driver::ToolChain::getTargetAndModeFromProgramName(S.CompilerName);
  if (Name.TargetIsValid) {
    Args.push_back("-target");
    Args.push_back(S.Saver.save(Name.TargetPrefix).data());
  }
  if (Name.DriverMode)
    Args.push_back(Name.DriverMode);
  Args.push_back(S.Saver.save("-I" + S.Prefix + "/include").data());
  // Objects name the installed headers' directory without the install
  // prefix: two prefixes of one version make identical objects (a shared
  // cache serves both). Only that directory, with its slash: clang compares
  // prefixes as strings, and <P>=... would rewrite a sibling <P>-app/ too,
  // or, with a prefix like /usr/local, other projects' files. clang splits
  // a map at its first '=': a prefix with one gets no map. A map of the
  // user's for that directory wins.
  SmallString<256> Headers(S.Prefix);
  sys::path::append(Headers, "include", "scopealloc");
  if (!Headers.str().contains('='))
    Args.push_back(S.Saver
                       .save("-ffile-prefix-map=" + Headers +
                             "/=/scopealloc/include/scopealloc/")
                       .data());
  // The user's -c with -L, or a link with -D, is no reason for a warning.
  Args.push_back("-Wno-unused-command-line-argument");
  for (const std::string &W : S.Extra)
    Args.push_back(W.c_str());
  // Expanded in two parts, to know which words the user gave.
  collectResponseFiles(Args, S.ExtraResponseFiles);
  auto Expand = [&](SmallVectorImpl<const char *> &Words) {
    if (Error E = clang::driver::expandResponseFiles(
            Words, /*ClangCLMode=*/false, S.Alloc)) {
      errs() << toString(std::move(E)) << "\n";
      std::exit(1);
    }
  };
  Expand(Args);
  size_t UserBegin = Args.size();
  SmallVector<const char *, 64> User(Argv + 1, Argv + Argc);
  S.ResponseFiles = S.ExtraResponseFiles;
  collectResponseFiles(User, S.ResponseFiles);
  Expand(User);
  Args.append(User.begin(), User.end());

  // The wrapper's own flags, from anywhere (a response file too).
  if (const char *Dir = std::getenv("SCOPEALLOC_REPORT_DIR"))
    S.ReportDir = Dir;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef Arg(Args[I]);
    if (I == UserBegin)
      S.UserArgsBegin = S.Argv.size();
    if (Arg.consume_front("--scopealloc-report-dir="))
      S.ReportDir = Arg.str();
    else if (Arg == "--scopealloc-print-runtime")
      S.PrintRuntime = true;
    else if (Arg == "--scopealloc-cache-key")
      S.Print = Settings::PrintCacheKey;
    else if (Arg == "--scopealloc-print-inputs")
      S.Print = Settings::PrintInputs;
    else
      S.Argv.push_back(Args[I]);
  }
  if (UserBegin == Args.size())
    S.UserArgsBegin = S.Argv.size();
  S.CMakeProbe = isCMakeProbe(S.Argv);
  // Absolute, so that every step of a recursive make writes to one place.
  if (!S.ReportDir.empty()) {
    SmallString<256> Dir(S.ReportDir);
    sys::fs::make_absolute(Dir);
    sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
    S.ReportDir = Dir.str().str();
  }
}

} // namespace scopealloc
