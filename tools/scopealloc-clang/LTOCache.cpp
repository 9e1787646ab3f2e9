//===- LTOCache.cpp - lld's ThinLTO cache, keyed by the configuration -----===//
//
// lld keeps the native objects of ThinLTO backends in a cache
// (--thinlto-cache-dir=<dir>, -plugin-opt=cache-dir=<dir>) keyed by the
// modules, their imports and the code generation options: not by the pass
// plugin nor by the policy files the compile steps named, which the link
// reads again (a changed frame budget was served the old object). The
// wrapper gives each configuration its own cache under the user's:
// <dir>/scopealloc-<key>, the key hashing the plugin's build ID,
// SCOPEALLOC_LINK_OPTIONS and the contents of every policy file the link's
// bitcode records (its functions' scope-alloc-compile-options) or its line
// names.
//
//===----------------------------------------------------------------------===//

#include "PolicySettings.h"
#include "ScopeAllocClang.h"
#include "clang/Driver/Job.h"
#include "clang/Driver/Tool.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/Archive.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA1.h"
#include <set>

#include "LLVMCompat.h"

using namespace clang::driver;
using namespace llvm;

namespace scopealloc {

// The policy files the functions of one bitcode buffer record.
static void recordedPolicies(MemoryBufferRef Buffer,
                             std::set<std::string> &Policies) {
  Expected<std::vector<BitcodeModule>> Modules = getBitcodeModuleList(Buffer);
  if (!Modules) {
    consumeError(Modules.takeError());
    return;
  }
  for (BitcodeModule &BM : *Modules) {
    LLVMContext Context;
    // Lazily: the attributes, not the function bodies.
    Expected<std::unique_ptr<Module>> M = BM.getLazyModule(
        Context, /*ShouldLazyLoadMetadata=*/true, /*IsImporting=*/false);
    if (!M) {
      consumeError(M.takeError());
      continue;
    }
    for (const Function &F : **M) {
      Attribute A = F.getFnAttribute(CompileOptionsAttribute);
      if (!A.isStringAttribute())
        continue;
      SmallVector<StringRef, 8> Params;
      A.getValueAsString().split(Params, ';');
      for (StringRef Param : Params)
        if (Param.consume_front("policy="))
          Policies.insert(Param.str());
    }
  }
}

static void recordedPoliciesOfFile(StringRef Path,
                                   std::set<std::string> &Policies) {
  auto Buffer = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return;
  MemoryBufferRef Ref = (*Buffer)->getMemBufferRef();
  file_magic Magic = identify_magic(Ref.getBuffer());
  if (Magic == file_magic::bitcode) {
    recordedPolicies(Ref, Policies);
    return;
  }
  if (Magic != file_magic::archive)
    return;
  Expected<std::unique_ptr<object::Archive>> Archive =
      object::Archive::create(Ref);
  if (!Archive) {
    consumeError(Archive.takeError());
    return;
  }
  Error Err = Error::success();
  for (const object::Archive::Child &Child : (*Archive)->children(Err)) {
    Expected<MemoryBufferRef> Member = Child.getMemoryBufferRef();
    if (!Member) {
      consumeError(Member.takeError());
      continue;
    }
    if (identify_magic(Member->getBuffer()) == file_magic::bitcode)
      recordedPolicies(*Member, Policies);
  }
  consumeError(std::move(Err));
}

void keyThinLTOCache(const Settings &S, Compilation &C, StringRef LinkOptions) {
  for (const Command &Job : C.getJobs()) {
    if (!Job.getCreator().isLinkJob())
      continue;
    opt::ArgStringList Args = Job.getArguments();
    std::optional<size_t> CacheArg;
    StringRef Prefix;
    for (size_t I = 0; I < Args.size(); ++I)
      for (StringRef Spelling :
           {"--thinlto-cache-dir=", "-plugin-opt=cache-dir="})
        if (StringRef(Args[I]).starts_with(Spelling)) {
          CacheArg = I;
          Prefix = Spelling;
        }
    if (!CacheArg)
      continue;
    std::set<std::string> Policies;
    for (const std::string &Policy :
         optionValues(pluginOptions(C.getArgs()), "policy"))
      Policies.insert(Policy);
    for (StringRef Arg : Args)
      if (!Arg.starts_with("-"))
        recordedPoliciesOfFile(Arg, Policies);
    Configuration Config = configuration(S, C);
    std::string Text = Config.Key + "\n";
    Text += "link options " + LinkOptions.str() + "\n";
    for (const std::string &Policy : Policies) {
      Text += "policy " + Policy + "\n";
      if (auto Buffer = MemoryBuffer::getFile(Policy))
        Text += (*Buffer)->getBuffer().str() + "\n";
    }
    std::string Key = toHex(SHA1::hash(arrayRefFromStringRef(Text)),
                            /*LowerCase=*/true)
                          .substr(0, 16);
    StringRef Dir = StringRef(Args[*CacheArg]).substr(Prefix.size());
    Args[*CacheArg] =
        C.getArgs().MakeArgString(Prefix + Dir + "/scopealloc-" + Key);
    const_cast<Command &>(Job).replaceArguments(Args);
  }
}

} // namespace scopealloc
