//===- CompilerCaches.cpp - ccache and sccache ----------------------------===//
//
// A compiler cache hashes the command line it is given and the preprocessor
// output (or, in ccache's direct and depend modes, the files a compile
// reads), never what the wrapper adds: the plugin, SCOPEALLOC_FLAGS*, the
// contents of a policy or config file. So:
//   - the preprocessor output of a C-family source ends with
//     # 1 "/dev/null/scopealloc-config-<key>", the configuration's key
//     (Configuration.cpp). A path that cannot exist: it changes the hash
//     (preprocessor mode, sccache), and ccache cannot look the compile up
//     without preprocessing it (direct mode is off for it). A compile that
//     writes a report or .pu file hashes a unique value: always compiled.
//   - ccache compiles a preprocessed input (.i, -x cpp-output), and a
//     source in depend mode, without a preprocessing step to mark: such a
//     compile is an error unless ccache's compiler_check runs
//     `%compiler% --scopealloc-cache-key` (the environment's part) and, for
//     a preprocessed input, extra_files_to_hash names the policy and config
//     files of the command line (depend mode reads them from the depfile).
//   - sccache does not cache preprocessed inputs ("unknown source
//     language"): nothing to check.
//
//===----------------------------------------------------------------------===//

#include "ScopeAllocClang.h"
#include "clang/Driver/Job.h"
#include "clang/Driver/Types.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA1.h"
#include <chrono>
#include <cstdlib>
#include <map>
#include <unistd.h>

#include "LLVMCompat.h"

using namespace clang::driver;
using namespace llvm;

namespace scopealloc {

CompilerCache runningCache() {
  // ccache sets UNCACHED_ERR_FD for the compilers it runs; sccache's
  // server runs them itself.
  if (std::getenv("UNCACHED_ERR_FD"))
    return CompilerCache::Ccache;
  if (sys::path::filename(parentProgram()) == "sccache")
    return CompilerCache::Sccache;
  return CompilerCache::None;
}

static bool isPreprocessed(types::ID T) {
  switch (T) {
  case types::TY_PP_C:
  case types::TY_PP_CXX:
  case types::TY_PP_ObjC:
  case types::TY_PP_ObjC_Alias:
  case types::TY_PP_ObjCXX:
  case types::TY_PP_ObjCXX_Alias:
  case types::TY_PP_CUDA:
  case types::TY_PP_HIP:
    return true;
  default:
    return false;
  }
}

static bool preprocessesSource(Compilation &C) {
  if (!C.getArgs().hasArg(options::OPT_E))
    return false;
  for (const Command &Job : C.getJobs())
    for (const InputInfo &In : Job.getInputInfos())
      if (In.getType() != types::TY_Asm && In.getType() != types::TY_PP_Asm &&
          types::getPreprocessedType(In.getType()) != types::TY_INVALID)
        return true;
  return false;
}

std::string cacheMarker(const Settings &S, const JobOptions &O,
                        Compilation &C) {
  if (runningCache() == CompilerCache::None || !preprocessesSource(C))
    return "";
  std::string Key = configuration(S, C).Key;
  // A cache hit would write neither a report nor a .pu file: such a step
  // is always compiled.
  std::vector<std::string> Options = pluginOptions(C.getArgs());
  bool Writes = (!S.ReportDir.empty() && !S.CMakeProbe) || O.PoolUsage ||
                !optionValues(Options, "report").empty() ||
                !optionValues(Options, "pool-usage").empty();
  if (Writes)
    Key = toHex(
        SHA1::hash(arrayRefFromStringRef(
            formatv("{0} written file {1} {2} {3}", Key,
                    sys::Process::getProcessId(),
                    sys::Process::GetRandomNumber(),
                    std::chrono::steady_clock::now().time_since_epoch().count())
                .str())),
        /*LowerCase=*/true);
  return "# 1 \"/dev/null/scopealloc-config-" + Key + "\"";
}

// ccache's settings, as `ccache --show-config` prints them:
// "(<origin>) <key> = <value>".
static std::map<std::string, std::string> ccacheSettings() {
  std::string Ccache = parentProgram();
  if (sys::path::filename(Ccache) != "ccache") {
    auto Found = sys::findProgramByName("ccache");
    Ccache = Found ? *Found : "";
  }
  std::map<std::string, std::string> Settings;
  SmallString<128> Out;
  if (Ccache.empty() ||
      sys::fs::createTemporaryFile("scopealloc-ccache", "txt", Out))
    return Settings;
  CommandRedirect Redirects[] = {CommandRedirect(), StringRef(Out),
                                 CommandRedirect()};
  StringRef Argv[] = {Ccache, "--show-config"};
  if (sys::ExecuteAndWait(Ccache, Argv, {}, Redirects) == 0)
    if (auto Text = MemoryBuffer::getFile(Out)) {
      SmallVector<StringRef, 64> Lines;
      (*Text)->getBuffer().split(Lines, '\n');
      for (StringRef Line : Lines) {
        Line = Line.split(") ").second;
        auto [Key, Value] = Line.split(" = ");
        if (!Key.empty())
          Settings[Key.trim().str()] = Value.trim().str();
      }
    }
  sys::fs::remove(Out);
  return Settings;
}

static std::string realPath(StringRef Path) {
  SmallString<256> Real;
  return sys::fs::real_path(Path, Real) ? Path.str() : Real.str().str();
}

void checkCacheKey(const Settings &S, Compilation &C) {
  if (runningCache() != CompilerCache::Ccache ||
      C.getArgs().hasArg(options::OPT_E))
    return;
  std::string Preprocessed;
  bool Depfile = false;
  for (const Command &Job : C.getJobs()) {
    if (!runsLLVM(Job))
      continue;
    for (const InputInfo &In : Job.getInputInfos())
      if (In.isFilename() && isPreprocessed(In.getType()))
        Preprocessed = In.getFilename();
    Depfile |= is_contained(Job.getArguments(), StringRef("-dependency-file"));
  }
  if (Preprocessed.empty() && !Depfile)
    return; // the preprocessing step marked its output
  std::map<std::string, std::string> Ccache = ccacheSettings();
  bool Depend = Depfile && Ccache["depend_mode"] == "true";
  if (Preprocessed.empty() && !Depend)
    return;

  std::string Why =
      Depend ? "in depend mode ccache hashes the depfile's files but "
               "neither SCOPEALLOC_FLAGS* nor the plugin"
             : "ccache compiles the preprocessed input '" + Preprocessed +
                   "' without running the preprocessor, so it does not see "
                   "ScopeAlloc's configuration";
  std::vector<std::string> Needed;
  if (!StringRef(Ccache["compiler_check"]).contains("--scopealloc-cache-key"))
    Needed.push_back("set compiler_check to '%compiler% "
                     "--scopealloc-cache-key' (CCACHE_COMPILERCHECK)");
  if (!Depend) {
    // The files named on the command line: the environment's are in the
    // key compiler_check prints; response files ccache reads itself.
    std::vector<std::string> Hashed;
    SmallVector<StringRef, 8> Extra;
    StringRef(Ccache["extra_files_to_hash"]).split(Extra, ':', -1, false);
    for (StringRef File : Extra)
      Hashed.push_back(realPath(File));
    for (const std::string &File : environmentConfiguration(S).Files)
      Hashed.push_back(realPath(File));
    std::vector<std::string> Missing;
    for (const std::string &File : configuration(S, C).Files)
      if (!is_contained(S.ResponseFiles, File) &&
          !is_contained(Hashed, realPath(File)))
        Missing.push_back(File);
    if (!Missing.empty())
      Needed.push_back("add " + join(Missing, ":") +
                       " to extra_files_to_hash (CCACHE_EXTRAFILES)");
  }
  if (Needed.empty())
    return;
  fail(Why + ": " + join(Needed, ", and ") +
       " (docs/build-systems.md#ccache), or compile it without ccache");
}

} // namespace scopealloc
