//===- PoolUsage.cpp - What each function takes from the pools ------------===//
#include "facts/PoolUsage.h"
#include "OptionCategory.h"
#include "Scope.h"
#include "support/Diagnostics.h"
#include "transform/AllocaDemotion.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::opt<uint64_t> WarnLimit(
    "scope-alloc-warn-pool-frame-larger-than",
    cl::cat(scopealloc::optionCategory()),
    cl::desc("Warn about functions whose pool frames take more than <bytes> "
             "per call (dynamically sized allocations not counted), like "
             "-Wframe-larger-than for the stack"),
    cl::value_desc("bytes"));

static cl::opt<std::string> UsagePath(
    "scope-alloc-pool-usage", cl::cat(scopealloc::optionCategory()),
    cl::desc("Write the bytes each function takes from each pool per call to "
             "<file>, in -fstack-usage's .su format plus the pool, or to "
             "<dir>/<source stem>.pu"),
    cl::value_desc("file|dir/"));

namespace scopealloc {

static std::string poolName(const std::string &Pool) {
  return Pool.empty() ? DefaultPoolName : Pool;
}

/// "pool frame size in 'a', 'b' and 'c'", and the dynamic allocations the
/// size leaves out: what clang prints before "(<size>) exceeds limit".
static std::string describeFrames(const FunctionDemotion &Demotion) {
  SmallVector<std::string, 2> Names;
  size_t Dynamic = 0;
  for (const PoolFrame &PF : Demotion.Pools) {
    if (PF.Frame)
      Names.push_back("'" + poolName(PF.Pool) + "'");
    Dynamic += PF.Dynamic.size();
  }
  std::string S = "pool frame size in ";
  for (size_t I = 0; I < Names.size(); ++I)
    S += (I == 0 ? "" : I + 1 == Names.size() ? " and " : ", ") + Names[I];
  if (Dynamic)
    S += " (not counting " + std::to_string(Dynamic) + " dynamically sized " +
         (Dynamic == 1 ? "allocation" : "allocations") + ")";
  return S;
}

void PoolUsage::addFunction(const Function &F,
                            const FunctionDemotion &Demotion) {
  // Neither emitted nor in the .su file.
  if (Demotion.empty() || F.hasAvailableExternallyLinkage())
    return;
  uint64_t Bytes = 0;
  for (const PoolFrame &PF : Demotion.Pools)
    if (PF.Frame)
      Bytes += PF.FrameSize;
  // A resource-limit diagnostic, so that clang reports it as it reports
  // -Wframe-larger-than: at the function's declaration, name demangled,
  // a warning that -Werror makes an error.
  if (WarnLimit.getNumOccurrences() && Bytes > WarnLimit) {
    std::string What = describeFrames(Demotion);
    F.getContext().diagnose(
        DiagnosticInfoResourceLimit(F, What.c_str(), Bytes, WarnLimit));
  }
  if (UsagePath.empty())
    return;
  // AsmPrinter::emitStackUsage's format, so that .su readers read it:
  // <file>:<line>:<function> (the module without debug info), the bytes,
  // and static, or dynamic when more comes on top.
  raw_string_ostream OS(Lines);
  for (const PoolFrame &PF : Demotion.Pools) {
    if (const DISubprogram *SP = F.getSubprogram())
      OS << SP->getFilename() << ':' << SP->getLine();
    else
      OS << M.getName();
    OS << ':' << F.getName() << '\t' << (PF.Frame ? PF.FrameSize : 0) << '\t'
       << (PF.Dynamic.empty() ? "static" : "dynamic") << '\t'
       << poolName(PF.Pool) << '\n';
  }
}

/// -scope-alloc-pool-usage itself, or, for <dir>/, the name clang gives the
/// .su without -o: the source's name up to its last dot, with .pu. Empty
/// after a reported error.
static std::string usageFile(const Module &M) {
  StringRef Path = UsagePath;
  if (!sys::path::is_separator(Path.back()))
    return Path.str();
  if (std::error_code EC = sys::fs::create_directories(Path)) {
    reportModuleError(M, "cannot create the pool usage directory '" + Path +
                             "': " + EC.message());
    return "";
  }
  StringRef Source = M.getSourceFileName();
  if (Source.empty())
    Source = M.getModuleIdentifier();
  SmallString<256> File(Path);
  sys::path::append(File, sys::path::stem(Source) + ".pu");
  return File.str().str();
}

void PoolUsage::write() const {
  if (UsagePath.empty())
    return;
  std::string File = usageFile(M);
  if (File.empty())
    return;
  std::error_code EC;
  raw_fd_ostream OS(File, EC, sys::fs::OF_Text);
  if (!EC) {
    OS << Lines;
    OS.close();
    if (OS.has_error()) {
      EC = OS.error();
      OS.clear_error();
    }
  }
  if (EC)
    reportModuleError(M, "cannot write the pool usage file '" + File +
                             "': " + EC.message());
}

} // namespace scopealloc
