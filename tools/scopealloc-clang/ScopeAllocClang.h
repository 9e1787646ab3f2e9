//===- ScopeAllocClang.h - scopealloc-clang's pieces ------------*- C++ -*-===//
//
// scopealloc-clang{,++}: clang, as clang's own Driver builds its jobs, with
// the ScopeAlloc plugin loaded into the jobs that run LLVM and the runtime
// added to the link. docs/driver.md says what goes to which job.
//
//   Settings.cpp   the environment, the wrapper's own flags, the argv
//   PluginOptions.cpp  the plugin's -mllvm options, as llvm::cl reads them
//   Configuration.cpp  what a compile depends on: options, files, the key
//   Jobs.cpp       building a Compilation, and what each job gets
//   Runtime.cpp    the runtime and LTO flags a link gets
//   LinkCheck.cpp  scopealloc-bound --check after a link
//   CompilerCaches.cpp  ccache and sccache: the key they hash, their limits
//   Launcher.cpp   SCOPEALLOC_LAUNCHER (icecc, distcc): one clang command
//   ThinBackend.cpp  a distributed ThinLTO backend compile, with the pass
//   LTOCache.cpp   lld's ThinLTO cache, one directory per configuration
//   LinkErrors.cpp a failed link's undefined __scopealloc_* symbols, explained
//
//===----------------------------------------------------------------------===//

#ifndef SCOPEALLOC_CLANG_H
#define SCOPEALLOC_CLANG_H

#include "clang/Basic/Diagnostic.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace scopealloc {

/// Prints "scopealloc-clang: <Message>" and exits with 1.
[[noreturn]] void fail(const llvm::Twine &Message);

/// What the environment and the command line ask for (Settings.cpp).
struct Settings {
  std::string Prefix;        // the install prefix, from this program's path
  std::string Plugin;        // <prefix>/lib/ScopeAlloc.so
  std::string CompilerName;  // the wrapped clang as named (its mode: clang++)
  std::string Compiler;      // ... and its real path (resources, cc1 jobs)
  std::string Runtime;       // SCOPEALLOC_RUNTIME: "", static, shared, none
  std::string ReportDir;     // absolute; empty without a report
  bool PrintRuntime = false; // --scopealloc-print-runtime
  bool CMakeProbe = false;   // a CMake probe: no report
  /// --scopealloc-cache-key, --scopealloc-print-inputs
  enum { Build, PrintCacheKey, PrintInputs } Print = Build;
  std::vector<std::string> Extra; // SCOPEALLOC_FLAGS_FILE, SCOPEALLOC_FLAGS
  std::string FlagsFile;          // SCOPEALLOC_FLAGS_FILE
  /// The response files read: those Extra names, and all.
  std::vector<std::string> ExtraResponseFiles, ResponseFiles;
  /// The driver's argv: the compiler, its mode, -I<prefix>/include, the
  /// extra words, then the user's, response files expanded and the
  /// wrapper's own flags taken out.
  std::vector<const char *> Argv;
  size_t UserArgsBegin = 0; // the first of Argv that is the user's
  llvm::BumpPtrAllocator Alloc;
  llvm::StringSaver Saver{Alloc};
};
void readSettings(Settings &S, int Argc, const char **Argv,
                  llvm::StringRef DefaultCompiler);

/// The program that started this one ("" when unknown).
std::string parentProgram();

/// The response files a command line names (@file), nested ones too.
void collectResponseFiles(llvm::ArrayRef<const char *> Words,
                          std::vector<std::string> &Files,
                          llvm::StringRef Dir = "", unsigned Depth = 0);

/// Whether an -mllvm word is one of the plugin's options as llvm::cl reads
/// it: -scope-alloc-<name>[=<value>], with one dash or two
/// (PluginOptions.cpp).
bool isPluginOption(llvm::StringRef Arg);

/// One option of an -mllvm command line: its words (the option, and its
/// value when llvm::cl takes the next word as one) and, for the plugin's,
/// its one spelling -scope-alloc-<name>[=<value>].
struct LLVMOption {
  std::vector<std::string> Words;
  std::string Plugin; // empty: not the plugin's
};
std::vector<LLVMOption> parseLLVMWords(llvm::ArrayRef<std::string> Words);
/// \p Words with their response files (@file) expanded, as llvm::cl does.
std::vector<std::string> expandLLVMWords(llvm::ArrayRef<std::string> Words);
/// The plugin's options among -mllvm words, as -scope-alloc-<name>[=<value>].
std::vector<std::string> pluginOptionsIn(llvm::ArrayRef<std::string> Words);

/// The plugin's options of a command line as clang's Driver expanded it
/// (response files, SCOPEALLOC_FLAGS*, config files): those of the -mllvm
/// words cc1 gets (from -mllvm, -mllvm= and -Xclang -mllvm), in one
/// spelling each. \p Files gets the response files that only llvm::cl
/// reads (-mllvm=@file).
std::vector<std::string>
pluginOptions(const llvm::opt::ArgList &Args,
              std::vector<std::string> *Files = nullptr);
/// The values of every -scope-alloc-<Name>= option, in order.
std::vector<std::string> optionValues(llvm::ArrayRef<std::string> Options,
                                      llvm::StringRef Name);

/// A Compilation built by clang's Driver, as clang builds it (Jobs.cpp).
/// A quiet one prints nothing: a probe, whose messages are the real
/// build's to print.
class DriverDiagnostics; // LLVMCompat.h
class ClangCompilation {
public:
  ClangCompilation(const Settings &S, llvm::ArrayRef<const char *> Argv,
                   bool Quiet);
  ~ClangCompilation();
  clang::driver::Driver &driver() { return *TheDriver; }
  clang::driver::Compilation *get() { return C.get(); }
  bool ok() const { return C && !C->containsError(); }

private:
  std::unique_ptr<DriverDiagnostics> Diags;
  std::unique_ptr<clang::driver::Driver> TheDriver;
  std::unique_ptr<clang::driver::Compilation> C;
  bool Quiet;
};

/// Whether the job is a -cc1 job that runs LLVM (compile to object,
/// assembly, bitcode or IR): the jobs that load the plugin.
bool runsLLVM(const clang::driver::Command &Job);
/// Whether the link job makes a relocatable object or a shared library.
bool isRelocatableLink(const clang::driver::Command &Job);
bool isSharedLink(const clang::driver::Command &Job);

/// What a compile job writes besides its object.
struct JobOptions {
  bool KeepNames = false; // -fno-discard-value-names
  bool PoolUsage = false; // -fstack-usage: a .pu beside the .su
};
JobOptions jobOptions(const Settings &S, clang::driver::Compilation &C);
/// Adds the plugin and its options to the jobs that run LLVM, and takes the
/// plugin's options out of the other clang jobs.
void rewriteJobs(const Settings &S, const JobOptions &O,
                 clang::driver::Compilation &C);

/// The target a link is for, as a compile with the same target flags sees
/// it (Runtime.cpp).
struct TargetInfo {
  std::string Triple;                // empty: unknown (the probe failed)
  std::string ABI;                   // -target-abi
  std::vector<std::string> Features; // -target-feature
};
TargetInfo probeTarget(const Settings &S, const llvm::opt::ArgList &Args);

/// The runtime a link gets.
struct RuntimeChoice {
  enum Kind { None, HostShared, HostStatic, BareMetal } K = None;
  std::string Archive; // BareMetal: the freestanding archive
};
RuntimeChoice chooseRuntime(const Settings &S, const llvm::opt::ArgList &Args);
/// The path --scopealloc-print-runtime prints (empty for none).
std::string runtimePath(const Settings &S, const RuntimeChoice &R);
/// The driver flags a compilation's links need: the runtime, and for LTO
/// lld with the plugin.
std::vector<std::string> linkFlags(const Settings &S,
                                   clang::driver::Compilation &Probe);

/// Gives each LTO link job the link's -scope-alloc-* policy options as pass
/// parameters in SCOPEALLOC_LINK_OPTIONS: the plugin in lld places with them
/// the bitcode no ScopeAlloc compile step prepared (rustc's
/// -Clinker-plugin-lto objects), which carries no options of its own.
/// Returns that text.
std::string passLinkOptions(const Settings &S, clang::driver::Compilation &C);

/// What a compile depends on besides its sources (Configuration.cpp): one
/// definition for the caches' key, the depfile, the link check and the
/// launchers.
struct Configuration {
  std::vector<std::string> Options;     // pluginOptions()
  std::vector<std::string> Files;       // the plugin first, then as named
  std::vector<std::string> ConfigFiles; // clang's config files among them
  std::string Key; // SHA1 of identities, options and contents, not paths
};
Configuration configuration(const Settings &S, clang::driver::Compilation &C);
/// The configuration the environment alone gives (SCOPEALLOC_FLAGS*,
/// default config files, the install): --scopealloc-cache-key.
Configuration environmentConfiguration(const Settings &S);

/// An LTO link with lld's ThinLTO cache (--thinlto-cache-dir=<dir>) gets
/// <dir>/scopealloc-<key>: lld's key misses the plugin and the policy files'
/// contents (LTOCache.cpp). \p LinkOptions: what passLinkOptions gave.
void keyThinLTOCache(const Settings &S, clang::driver::Compilation &C,
                     llvm::StringRef LinkOptions);

/// scopealloc-bound --check for one link job (LinkCheck.cpp): against the
/// policy the flags name, else only when the image defines a pool (its
/// buffer against its worst case).
struct BoundCheck {
  std::vector<std::string> Command;
  std::string Image;
  bool OnlyIfPools = false;
  bool WarnOnly = false; // SCOPEALLOC_BOUND_CHECK=warn
};
std::optional<BoundCheck> boundCommand(const Settings &S,
                                       clang::driver::Compilation &C,
                                       const clang::driver::Command &Link);
/// Whether the linked \p Image defines a pool (SCOPEALLOC_DEFINE_POOL...)
/// or an RTOS's task creation call (facts::TaskCreators): what a link
/// with no policy is checked for.
bool needsBufferCheck(llvm::StringRef Image);
/// Validates SCOPEALLOC_BOUND_CHECK (on, warn, off).
std::string boundCheckMode();
/// Prints the check as -### prints clang's jobs; a check that depends on
/// the image's pools is preceded by a line saying so.
void printBoundCheck(const BoundCheck &Check, llvm::raw_ostream &OS);
/// Runs the check; \p Verbose (-v) prints it first and its result after.
/// Returns its exit status (negative when it could not run).
int runBoundCheck(const BoundCheck &Check, bool Verbose);

/// Makes the link jobs print, after the linker's own messages, what an
/// undefined __scopealloc_* symbol means and how to fix it (LinkErrors.cpp).
void explainLinkErrors(const Settings &S, clang::driver::Compilation &C);

/// The compiler cache that runs this process (CompilerCaches.cpp).
enum class CompilerCache { None, Ccache, Sccache };
CompilerCache runningCache();
/// Under a compiler cache, the line that ends the preprocessor output of a
/// C-family source: it names the configuration, so that another one is a
/// miss. Empty when there is nothing to mark.
std::string cacheMarker(const Settings &S, const JobOptions &O,
                        clang::driver::Compilation &C);
/// Under ccache, a compile whose key ccache made without the marker (a
/// preprocessed input, depend mode): an error unless ccache's
/// configuration hashes what the compile depends on.
void checkCacheKey(const Settings &S, clang::driver::Compilation &C);

/// An error when a distributed compiler runs the wrapper (icecc or distcc in
/// front): it would compile on another machine without the configuration.
void refuseLauncherInFront();

/// SCOPEALLOC_LAUNCHER (Launcher.cpp): the command that runs a compile-only
/// command line through it, as one clang command with the plugin's flags;
/// empty when the command line is not one it can take.
std::vector<std::string> launcherCommand(const Settings &S, const JobOptions &O,
                                         clang::driver::Compilation &C);

/// A -fthinlto-index= backend compile (ThinBackend.cpp), which clang before
/// 23 runs without pass plugins: its jobs become the backend's optimisation
/// to bitcode, the pass (LLVM's opt with the plugin), then code generation.
/// False when \p C has no such job.
bool splitThinBackends(const Settings &S, clang::driver::Compilation &C);

} // namespace scopealloc

#endif
