//===- Runtime.cpp - the runtime and LTO flags a link gets ----------------===//
//
// The runtimes in <prefix>/lib are built for the host. A link for the host
// gets the shared runtime (one runtime, hence one arena per thread, however
// many shared objects use it), or the static archive with -static,
// -static-pie or SCOPEALLOC_RUNTIME=static. A link for a bare-metal target
// (OS none, or an unknown OS with an elf/eabi environment) gets the best
// installed <prefix>/lib/baremetal/<triple>[/<isa>/<abi>]/libscopealloc_rt.a
// its code can run; any other target is an error naming the triple and the
// installed runtimes, rather than a link that fails on __scopealloc_*
// symbols or picks up a runtime of the wrong machine. A relocatable link
// (-r) gets no runtime: its output's final link does.
//
// An LTO link runs the pass in the linker: it must be lld, with the plugin
// loaded, and write the frame sizes scopealloc-bound reads.
//
//===----------------------------------------------------------------------===//

#include "PolicySettings.h"
#include "ScopeAllocClang.h"
#include "clang/Driver/Job.h"
#include "clang/Driver/Tool.h"
#include "clang/Driver/ToolChain.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Object/Archive.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <unistd.h> // environ

// After clang/Driver/Driver.h: only then does LLVMCompat.h add the
// driver's option table (options::OPT_*).
#include "LLVMCompat.h"

using namespace clang::driver;
using namespace llvm;

namespace scopealloc {

/// The pipeline an O0 LTO link of ThinLTO bitcode runs (runPassInThinBackendsAtO0).
static constexpr const char *O0LinkPipelineFlag = "--lto-newpm-passes=";
static constexpr const char *O0LinkPipeline = "thinlto<O0>,scope-alloc-link";

// The flags that choose the target, its ISA and ABI.
static bool isTargetFlag(const opt::Arg &A) {
  const opt::Option &O = A.getOption();
  for (unsigned ID :
       {options::OPT_target, options::OPT_m16, options::OPT_m32,
        options::OPT_mx32, options::OPT_m64, options::OPT_march_EQ,
        options::OPT_mcpu_EQ, options::OPT_mfpu_EQ, options::OPT_mfloat_abi_EQ,
        options::OPT_mabi_EQ, options::OPT_mthumb, options::OPT_marm,
        options::OPT_mbig_endian, options::OPT_mlittle_endian,
        options::OPT_mhard_float, options::OPT_msoft_float})
    if (O.matches(ID))
      return true;
  return false;
}

TargetInfo probeTarget(const Settings &S, const opt::ArgList &Args) {
  // What clang's -cc1 gets for a C compile with the same target flags.
  std::vector<std::string> Words{S.Compiler};
  auto Name = ToolChain::getTargetAndModeFromProgramName(S.CompilerName);
  if (Name.TargetIsValid)
    Words.insert(Words.end(), {"-target", Name.TargetPrefix});
  for (const opt::Arg *A : Args) {
    if (!isTargetFlag(*A))
      continue;
    opt::ArgStringList Rendered;
    A->render(Args, Rendered);
    Words.insert(Words.end(), Rendered.begin(), Rendered.end());
  }
  Words.insert(Words.end(), {"-c", "-x", "c", "/dev/null", "-o", "/dev/null"});
  std::vector<const char *> Argv;
  for (const std::string &W : Words)
    Argv.push_back(W.c_str());
  TargetInfo T;
  ClangCompilation Probe(S, Argv, /*Quiet=*/true);
  if (!Probe.ok())
    return T; // a bad -mcpu...: the real command reports it
  for (const Command &Job : Probe.get()->getJobs()) {
    const auto &A = Job.getArguments();
    if (A.empty() || StringRef(A[0]) != "-cc1")
      continue;
    for (size_t I = 0; I + 1 < A.size(); ++I) {
      StringRef Flag = A[I];
      if (Flag == "-triple")
        T.Triple = A[I + 1];
      else if (Flag == "-target-abi")
        T.ABI = A[I + 1];
      else if (Flag == "-target-feature")
        T.Features.push_back(A[I + 1]);
    }
    break;
  }
  return T;
}

[[noreturn]] static void noRuntime(const Settings &S, const Twine &Triple) {
  std::string BareMetal = S.Prefix + "/lib/baremetal";
  std::vector<std::string> Installed;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator I(BareMetal, EC), E; I != E && !EC;
       I.increment(EC))
    if (sys::path::filename(I->path()) == "libscopealloc_rt.a")
      Installed.push_back(
          sys::path::parent_path(I->path()).substr(BareMetal.size() + 1).str());
  std::sort(Installed.begin(), Installed.end());
  std::string List;
  if (!Installed.empty())
    List = "; bare metal (" + BareMetal + "): " + join(Installed, " ");
  errs() << "scopealloc-clang: no ScopeAlloc runtime for " << Triple << "\n"
         << "scopealloc-clang: installed: " << SCOPEALLOC_HOST_TRIPLE
         << " (host, " << S.Prefix << "/lib)" << List << "\n";
  fail("link for one of those targets, or set SCOPEALLOC_RUNTIME=none and "
       "link a runtime of your own");
}

// <arch>-<vendor>-<os>-<environment>, split as the triples are written.
struct TripleParts {
  StringRef Arch, OS, Env;
  explicit TripleParts(StringRef Triple) {
    StringRef Vendor, Rest;
    std::tie(Arch, Rest) = Triple.split('-');
    std::tie(Vendor, Rest) = Rest.split('-');
    std::tie(OS, Env) = Rest.split('-');
  }
};

// The best bare-metal archive for the target, or "" (Description: the
// target as the error names it).
static std::string bareMetalArchive(const Settings &S, const TargetInfo &T,
                                    TripleParts P, std::string &Description) {
  std::string Dir = S.Prefix + "/lib/baremetal";
  // Arm M-profile: the architecture's own runtime, else a lower compatible
  // one's; the float ABI is the triple's environment (softfp is eabi).
  std::vector<StringRef> Chain =
      StringSwitch<std::vector<StringRef>>(P.Arch)
          .Case("thumbv6m", {"thumbv6m"})
          .Case("thumbv7m", {"thumbv7m", "thumbv6m"})
          .Case("thumbv7em", {"thumbv7em", "thumbv7m", "thumbv6m"})
          .Case("thumbv8m.base", {"thumbv8m.base", "thumbv6m"})
          .Case("thumbv8m.main",
                {"thumbv8m.main", "thumbv7m", "thumbv8m.base", "thumbv6m"})
          .Case("thumbv8.1m.main", {"thumbv8.1m.main", "thumbv8m.main",
                                    "thumbv7m", "thumbv8m.base", "thumbv6m"})
          .Default({});
  if (!Chain.empty()) {
    StringRef ABI = P.Env == "eabihf" ? "eabihf" : "eabi";
    for (StringRef Arch : Chain) {
      std::string F =
          (Dir + "/" + Arch + "-none-" + ABI + "/libscopealloc_rt.a").str();
      if (sys::fs::is_regular_file(F))
        return F;
    }
    return "";
  }
  if (P.Arch == "aarch64") {
    std::string F = Dir + "/aarch64-none-elf/libscopealloc_rt.a";
    return sys::fs::is_regular_file(F) ? F : "";
  }
  if (P.Arch != "riscv32" && P.Arch != "riscv64")
    return "";
  // RISC-V <isa>/<abi>: the same -mabi, and the most extensions among those
  // the link's ISA has (rv32imac serves rv32imac and rv32gc, not rv32imc).
  std::string Have = is_contained(T.Features, "+e") ? "e" : "i";
  for (char Ext : StringRef("mafdc"))
    if (is_contained(T.Features, std::string("+") + Ext))
      Have += Ext;
  Description +=
      (" (-march=rv" + P.Arch.substr(5) + Have + " -mabi=" + T.ABI + ")").str();
  std::vector<std::string> ISAs;
  std::error_code EC;
  std::string ArchDir = (Dir + "/" + P.Arch + "-unknown-elf").str();
  for (sys::fs::directory_iterator I(ArchDir, EC), E; I != E && !EC;
       I.increment(EC))
    ISAs.push_back(sys::path::filename(I->path()).str());
  std::sort(ISAs.begin(), ISAs.end());
  std::string Best;
  size_t Score = 0;
  for (const std::string &ISA : ISAs) {
    std::string F = ArchDir + "/" + ISA + "/" + T.ABI + "/libscopealloc_rt.a";
    StringRef Letters = StringRef(ISA).drop_front(4); // rv32, rv64
    if (!sys::fs::is_regular_file(F) ||
        Letters.find_first_not_of(Have) != StringRef::npos)
      continue;
    if (Best.empty() || Letters.size() > Score) {
      Best = F;
      Score = Letters.size();
    }
  }
  return Best;
}

RuntimeChoice chooseRuntime(const Settings &S, const opt::ArgList &Args) {
  RuntimeChoice R;
  if (S.Runtime == "none")
    return R;
  bool Static = S.Runtime == "static" ||
                (S.Runtime.empty() &&
                 Args.hasArg(options::OPT_static, options::OPT_static_pie));
  R.K = Static ? RuntimeChoice::HostStatic : RuntimeChoice::HostShared;
  // Without a target flag and with the default compiler, the link is for
  // the host: nothing to ask.
  bool Ask = std::getenv("SCOPEALLOC_COMPILER") ||
             ToolChain::getTargetAndModeFromProgramName(S.CompilerName)
                 .TargetIsValid ||
             Args.hasArg(options::OPT_target, options::OPT_m32,
                         options::OPT_m16, options::OPT_mx32);
  if (!Ask)
    return R;
  TargetInfo T = probeTarget(S, Args);
  if (T.Triple.empty())
    return R;
  TripleParts P(T.Triple);
  bool BareMetal = P.OS == "none" ||
                   (P.OS == "unknown" && (P.Env == "elf" || P.Env == "eabi" ||
                                          P.Env == "eabihf" || P.Env.empty()));
  if (!BareMetal) {
    TripleParts Host(SCOPEALLOC_HOST_TRIPLE);
    if (P.Arch == Host.Arch && P.OS == Host.OS && P.Env == Host.Env)
      return R;
    noRuntime(S, T.Triple);
  }
  std::string Description = T.Triple;
  R.Archive = bareMetalArchive(S, T, P, Description);
  if (R.Archive.empty())
    noRuntime(S, Description);
  if (S.Runtime == "shared")
    fail("SCOPEALLOC_RUNTIME=shared, but " + Description +
         " is a bare-metal target: its runtime is the static " + R.Archive);
  R.K = RuntimeChoice::BareMetal;
  return R;
}

std::string runtimePath(const Settings &S, const RuntimeChoice &R) {
  switch (R.K) {
  case RuntimeChoice::None:
    return "";
  case RuntimeChoice::HostShared:
    return S.Prefix + "/lib/libscopealloc_rt.so";
  case RuntimeChoice::HostStatic:
    return S.Prefix + "/lib/libscopealloc_rt.a";
  case RuntimeChoice::BareMetal:
    return R.Archive;
  }
  return "";
}

/// Whether an object the command links directly is LLVM bitcode.
static bool linksBitcode(const opt::ArgList &Args) {
  for (const opt::Arg *A : Args.filtered(options::OPT_INPUT)) {
    file_magic Magic;
    if (!identify_magic(A->getValue(), Magic) && Magic == file_magic::bitcode)
      return true;
  }
  return false;
}

/// The optimisation level of an LTO link's backends, as lld takes it: the
/// last of clang's -O (which the driver passes on as -plugin-opt=O<n>) and
/// the linker's own -plugin-opt=O<n> and --lto-O<n> (rustc's dev profile
/// links with -Wl,-plugin-opt=O0). lld's default, 2, when nothing says.
static unsigned ltoOptLevel(const opt::ArgList &Args) {
  unsigned Level = 2;
  if (const opt::Arg *A = Args.getLastArg(options::OPT_O_Group)) {
    if (A->getOption().matches(options::OPT_O0))
      Level = 0;
    else if (A->getOption().matches(options::OPT_O4) ||
             A->getOption().matches(options::OPT_Ofast))
      Level = 3;
    else if (A->getOption().matches(options::OPT_O)) {
      StringRef V = A->getValue();
      if (V == "g")
        Level = 1;
      else if (V == "s" || V == "z" || V.getAsInteger(10, Level))
        Level = 2;
    }
  }
  for (const opt::Arg *A :
       Args.filtered(options::OPT_Wl_COMMA, options::OPT_Xlinker))
    for (StringRef Word : A->getValues()) {
      Word = Word.ltrim('-');
      if (!Word.consume_front("plugin-opt=O") && !Word.consume_front("lto-O"))
        continue;
      unsigned N;
      if (!Word.getAsInteger(10, N))
        Level = N;
    }
  return Level;
}

/// Whether \p Buffer is, or as an archive holds, ThinLTO bitcode (a module
/// with a summary, as rustc's -Clinker-plugin-lto writes for every crate).
static bool holdsThinLTOBitcode(MemoryBufferRef Buffer) {
  file_magic Magic = identify_magic(Buffer.getBuffer());
  if (Magic == file_magic::bitcode) {
    Expected<BitcodeLTOInfo> Info = getBitcodeLTOInfo(Buffer);
    if (!Info) {
      consumeError(Info.takeError());
      return false;
    }
    return Info->IsThinLTO;
  }
  if (Magic != file_magic::archive)
    return false;
  Expected<std::unique_ptr<object::Archive>> Archive =
      object::Archive::create(Buffer);
  if (!Archive) {
    consumeError(Archive.takeError());
    return false;
  }
  Error Err = Error::success();
  bool Found = false;
  for (const object::Archive::Child &C : (*Archive)->children(Err)) {
    Expected<MemoryBufferRef> Member = C.getMemoryBufferRef();
    if (!Member) {
      consumeError(Member.takeError());
      continue;
    }
    if (identify_magic(Member->getBuffer()) == file_magic::bitcode &&
        holdsThinLTOBitcode(*Member)) {
      Found = true;
      break;
    }
  }
  consumeError(std::move(Err));
  return Found;
}

/// Whether an input the command links (an object or an archive named as a
/// file: rustc names every crate's rlib) holds ThinLTO bitcode.
static bool linksThinLTOBitcode(const opt::ArgList &Args) {
  for (const opt::Arg *A : Args.filtered(options::OPT_INPUT)) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
        MemoryBuffer::getFile(A->getValue(), /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (Buffer && holdsThinLTOBitcode((*Buffer)->getMemBufferRef()))
      return true;
  }
  return false;
}

/// LLVM's ThinLTO backend at O0 runs a fixed pipeline without extension
/// points, so the pass plugin's callbacks never run there: the buffers of
/// ThinLTO bitcode would stay on the stack. At O0 the link gets that
/// pipeline as text, with the pass at its end as ThinLTO's post-link
/// optimiser runs it at -O1 and above. (It applies to a link's full-LTO
/// module too, which then gets ThinLTO's O0 passes and scope-alloc-link.)
static void runPassInThinBackendsAtO0(const opt::ArgList &Args,
                                      std::vector<std::string> &Flags) {
  if (ltoOptLevel(Args) != 0 || !linksThinLTOBitcode(Args))
    return;
  for (const opt::Arg *A :
       Args.filtered(options::OPT_Wl_COMMA, options::OPT_Xlinker))
    for (StringRef Word : A->getValues())
      if (Word.ltrim('-').starts_with("lto-newpm-passes"))
        return; // the user's own pipeline
  // -Xlinker: the pipeline's commas must reach lld as one word.
  Flags.insert(Flags.end(), {"-Xlinker", std::string(O0LinkPipelineFlag) +
                                             O0LinkPipeline});
}

std::vector<std::string> linkFlags(const Settings &S, Compilation &Probe) {
  std::vector<std::string> Flags;
  bool Link = false, FinalLink = false;
  for (const Command &Job : Probe.getJobs())
    if (Job.getCreator().isLinkJob()) {
      Link = true;
      FinalLink |= !isRelocatableLink(Job);
    }
  if (!Link)
    return Flags;
  const opt::DerivedArgList &Args = Probe.getArgs();
  // `-x none` first, so that a -x <language> of the user's does not apply to
  // the runtime.
  RuntimeChoice R;
  if (FinalLink)
    R = chooseRuntime(S, Args);
  std::string Path = runtimePath(S, R);
  auto Missing = [&] {
    fail("missing " + Path + " (is ScopeAlloc installed under " + S.Prefix +
         "?)");
  };
  switch (R.K) {
  case RuntimeChoice::None:
    break;
  case RuntimeChoice::HostStatic:
    if (!sys::fs::is_regular_file(Path))
      Missing();
    Flags.insert(Flags.end(), {"-x", "none", Path, "-lpthread"});
    break;
  case RuntimeChoice::HostShared:
    if (!sys::fs::exists(Path))
      Missing();
    Flags.insert(Flags.end(),
                 {"-x", "none", "-L" + S.Prefix + "/lib", "-lscopealloc_rt",
                  "-Wl,-rpath," + S.Prefix + "/lib"});
    break;
  case RuntimeChoice::BareMetal:
    Flags.insert(Flags.end(), {"-x", "none", Path});
    // clang 19 links bare-metal targets with ld.lld; clang 22 with the
    // host's GNU ld (when no GCC for the target is installed), which knows
    // no Arm or RISC-V ("unrecognised emulation mode: armelf"). The
    // bare-metal runtimes are linked and checked with lld: keep it.
    if (!Args.getLastArg(options::OPT_fuse_ld_EQ, options::OPT_ld_path_EQ))
      Flags.push_back("-fuse-ld=lld");
    break;
  }

  // An LTO link, relocatable ones (-r) too, runs the pass in the linker:
  // only lld loads pass plugins. A link of bitcode objects is one even
  // without -flto (rustc -Clinker-plugin-lto passes none): lld would
  // compile them without the plugin.
  const Driver &D = Probe.getDriver();
  if (!D.isUsingLTO()) {
    if (!linksBitcode(Args))
      return Flags;
    Flags.push_back("-flto");
  }
  std::string Mode = D.getLTOMode() == LTOK_Thin ? "thin" : "full";
  if (const opt::Arg *Linker =
          Args.getLastArg(options::OPT_fuse_ld_EQ, options::OPT_ld_path_EQ)) {
    StringRef Value = Linker->getValue();
    if (Value != "lld" && !Value.contains("ld.lld"))
      fail(Linker->getSpelling() + Value + ": an LTO link (-flto=" + Mode +
           ") must use lld, which runs the ScopeAlloc pass at the link "
           "(-fuse-ld=lld)");
  } else if (!is_contained(Flags, "-fuse-ld=lld")) {
    Flags.push_back("-fuse-ld=lld");
  }
  // The lld of the plugin's LLVM, by path: clang looks for ld.lld next to
  // itself (here the wrapper) and then on PATH, where another LLVM's lld
  // may come first (rustc puts its own gcc-ld/ld.lld there for the linker
  // it runs) and cannot load the plugin.
  if (!Args.getLastArg(options::OPT_ld_path_EQ)) {
    SmallString<256> Lld(sys::path::parent_path(S.Compiler));
    sys::path::append(Lld, "ld.lld");
    if (sys::fs::can_execute(Lld))
      Flags.push_back("--ld-path=" + std::string(Lld));
  }
  // LLVM's ThinLTO backend (19, 22) runs no pass plugin at -O0 (--lto-O0).
  const opt::Arg *Level = Args.getLastArg(options::OPT_O_Group);
  if (Mode == "thin" && Level && Level->getOption().matches(options::OPT_O0))
    fail("-O0 on a ThinLTO link (-flto=thin): LLVM's ThinLTO backend runs "
         "no pass plugin at -O0, so ScopeAlloc could not place the buffers; "
         "link with -O1 or higher, or with -flto");
  // The link's code generator writes the machine frame sizes (the compile
  // steps' -fstack-size-section stays in their bitcode); the facts come
  // from the pass at the link.
  runPassInThinBackendsAtO0(Args, Flags);
  Flags.push_back("-Wl,--load-pass-plugin=" + S.Plugin);
  Flags.push_back("-Wl,-mllvm,-stack-size-section");
  return Flags;
}

std::string passLinkOptions(const Settings &S, Compilation &C) {
  if (!C.getDriver().isUsingLTO())
    return "";
  // -mllvm -scope-alloc-<key>=<value> of the link line (and of
  // SCOPEALLOC_FLAGS), in pass-parameter form; the last of a key wins.
  std::vector<std::pair<const SettingInfo *, std::string>> Params;
  for (StringRef Option : pluginOptions(C.getArgs())) {
    StringRef Word = Option.ltrim('-');
    auto [Name, Value] = Word.split('=');
    const SettingInfo *Setting = findSetting(layer::Option, Name);
    if (!Setting || !Setting->in(layer::Parameter) || !Word.contains('='))
      continue;
    std::string Text = Value.str();
    if (Setting->Id == PolicySetting::Policy && !Text.empty()) {
      SmallString<256> Abs(Text); // the link may run elsewhere
      sys::fs::make_absolute(Abs);
      Text = std::string(Abs);
    }
    llvm::erase_if(Params, [&](const auto &P) { return P.first == Setting; });
    Params.push_back({Setting, Text});
  }
  std::string Text;
  for (const auto &[Setting, Value] : Params)
    Text +=
        (Text.empty() ? "" : ";") + Setting->ParameterName.str() + "=" + Value;

  // The link's environment, with ours in place of any inherited value.
  const opt::DerivedArgList &Args = C.getArgs();
  std::vector<const char *> Env;
  std::string Prefix = std::string(LinkOptionsVariable) + "=";
  for (char **E = environ; *E; ++E)
    if (!StringRef(*E).starts_with(Prefix))
      Env.push_back(*E);
  Env.push_back(Args.MakeArgString(Prefix + Text));
  // SCOPEALLOC_REPORT_DIR reaches the plugin in lld for the same bitcode.
  std::string ReportPrefix = std::string(LinkReportVariable) + "=";
  llvm::erase_if(Env, [&](const char *E) {
    return StringRef(E).starts_with(ReportPrefix);
  });
  if (!S.ReportDir.empty() && !S.CMakeProbe) {
    sys::fs::create_directories(S.ReportDir);
    Env.push_back(Args.MakeArgString(ReportPrefix + S.ReportDir + "/"));
  }
  for (Command &Job : C.getJobs())
    if (Job.getCreator().isLinkJob())
      Job.setEnvironment(Env);
  return Text;
}

} // namespace scopealloc
