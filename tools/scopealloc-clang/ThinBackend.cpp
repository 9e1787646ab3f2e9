//===- ThinBackend.cpp - distributed ThinLTO backends, with the pass ------===//
//
// A distributed ThinLTO build (Bazel's, or any `-Wl,--thinlto-index-only`
// link) compiles each object's bitcode on its own:
//   clang -c -x ir a.o -fthinlto-index=a.o.thinlto.bc -o a.native.o
// clang runs LLVM's ThinLTO backend there (import, optimise, code
// generation) and, before clang 23 (llvm-project PR 183525), no pass
// plugin: the buffers the compile step left to the link would never be
// placed. The wrapper runs that job as three:
//   1. the same backend, stopped before code generation (-emit-llvm-bc):
//      the module as the in-process ThinLTO link has it when its
//      optimiser's last extension point runs the pass;
//   2. LLVM's opt with the plugin: scope-alloc-link, the pass as that
//      extension point adds it (decides with each function's compile-step
//      options);
//   3. code generation of the result (-disable-llvm-passes), with the
//      frame sizes scopealloc-bound reads.
// So a distributed backend places buffers as the in-process link does.
//
//===----------------------------------------------------------------------===//

#include "ScopeAllocClang.h"
#include "clang/Driver/Job.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "LLVMCompat.h"

using namespace clang::driver;
using namespace llvm;
using llvm::opt::ArgStringList;

namespace scopealloc {

static bool isThinBackend(const Command &Job) {
  if (!runsLLVM(Job))
    return false;
  for (StringRef Arg : Job.getArguments())
    if (Arg.starts_with("-fthinlto-index="))
      return true;
  return false;
}

// A temporary file the Compilation removes.
static const char *temporary(Compilation &C, StringRef Stem, StringRef Ext) {
  SmallString<128> Path;
  if (std::error_code EC = sys::fs::createTemporaryFile(Stem, Ext, Path))
    fail("cannot create a temporary file: " + EC.message());
  return C.addTempFile(C.getArgs().MakeArgString(Path));
}

bool splitThinBackends(const Settings &S, Compilation &C) {
  if (SCOPEALLOC_LLVM_MAJOR >= 23)
    return false; // clang runs pass plugins there itself
  auto &Jobs = const_cast<JobList::list_type &>(C.getJobs().getJobs());
  bool Any = false;
  for (size_t I = 0; I < Jobs.size(); ++I) {
    if (!isThinBackend(*Jobs[I]))
      continue;
    Any = true;
    const Command &Job = *Jobs[I];
    const ArgStringList &Old = Job.getArguments();
    StringRef Input;
    for (const InputInfo &In : Job.getInputInfos())
      if (In.isFilename())
        Input = In.getFilename();
    if (Input.empty())
      fail("a -fthinlto-index= backend compile without an input file");
    StringRef Stem = sys::path::stem(Input);
    const char *Optimised = temporary(C, Stem, "bc");
    const char *Placed = temporary(C, Stem, "bc");

    // 1: the backend to bitcode; 3: code generation. Both keep the job's
    // target, code generation and output options, and the plugin (for its
    // -mllvm options: it runs in neither).
    ArgStringList Backend, CodeGen;
    for (size_t A = 0; A < Old.size(); ++A) {
      StringRef Arg = Old[A];
      bool Output = Arg == "-o" && A + 1 < Old.size();
      bool Action = Arg == "-emit-obj" || Arg == "-S";
      // Code generation: no backend, no pipeline, the placed module.
      if (!Arg.starts_with("-fthinlto-index=") && !(Arg == Input)) {
        if (Output) {
          CodeGen.push_back(Old[A]);
          CodeGen.push_back(Old[A + 1]);
        } else {
          CodeGen.push_back(Old[A]);
        }
      } else if (Arg == Input) {
        CodeGen.push_back(Placed);
      }
      if (Action) {
        Backend.push_back("-emit-llvm-bc");
      } else if (Output) {
        Backend.push_back("-o");
        Backend.push_back(Optimised);
        ++A;
      } else {
        Backend.push_back(Old[A]);
      }
    }
    CodeGen.push_back("-disable-llvm-passes");

    // 2: the pass, as ThinLTO's post-link optimiser runs it. -load makes
    // the plugin's options known to opt before it parses them.
    SmallString<256> Opt(sys::path::parent_path(S.Compiler));
    sys::path::append(Opt, "opt");
    if (!sys::fs::can_execute(Opt))
      fail(Opt + " is missing: scopealloc-clang runs LLVM's opt to place "
                 "the buffers of a -fthinlto-index= backend compile");
    ArgStringList Pass{
        C.getArgs().MakeArgString("-load=" + S.Plugin),
        C.getArgs().MakeArgString("-load-pass-plugin=" + S.Plugin),
        "-passes=scope-alloc-link"};
    std::vector<std::string> Words;
    for (size_t A = 0; A + 1 < Old.size(); ++A)
      if (StringRef(Old[A]) == "-mllvm")
        Words.push_back(Old[++A]);
    for (const std::string &Option : pluginOptionsIn(Words))
      Pass.push_back(C.getArgs().MakeArgString(Option));
    Pass.append({Optimised, "-o", Placed});

    auto First = std::make_unique<Command>(Job);
    First->replaceArguments(Backend);
    auto Second = std::make_unique<Command>(Job);
    Second->replaceExecutable(C.getArgs().MakeArgString(Opt));
    Second->replaceArguments(Pass);
    auto Third = std::make_unique<Command>(Job);
    Third->replaceArguments(CodeGen);
    Jobs[I] = std::move(First);
    Jobs.insert(Jobs.begin() + I + 1, std::move(Second));
    Jobs.insert(Jobs.begin() + I + 2, std::move(Third));
    I += 2;
  }
  return Any;
}

} // namespace scopealloc
