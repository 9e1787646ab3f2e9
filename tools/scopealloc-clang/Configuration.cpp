//===- Configuration.cpp - what a compile depends on ----------------------===//
//
// One definition of what a compile's output depends on besides its sources
// and headers (which the preprocessor, make and the caches track): the cache
// key, the depfile, the link check and the launchers all use it.
//   - the plugin's options, from the command line as clang's Driver expands
//     it: response files, SCOPEALLOC_FLAGS*, config files given with
//     --config or found by default; in each spelling llvm::cl reads
//     (PluginOptions.cpp);
//   - the files: the plugin, each policy file (a policy names no other
//     file), each response file (those llvm::cl reads too), each config
//     file, SCOPEALLOC_FLAGS_FILE;
//   - the identities: ScopeAlloc's version and runtime ABI, the LLVM
//     version, the build IDs of the plugin and of the wrapped clang.
// The key hashes contents and build IDs, never where the install or the
// build directory is: two prefixes or two build trees of one configuration
// get one key (a shared cache serves both).
//
//===----------------------------------------------------------------------===//

#include "ScopeAllocClang.h"
#include "clang/Driver/Driver.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA1.h"

#include "LLVMCompat.h"

using namespace clang::driver;
using namespace llvm;

namespace scopealloc {

// The GNU build ID of an ELF file, else the SHA1 of its contents: the
// same for every copy of one build, wherever it is installed.
static std::string fileIdentity(StringRef Path) {
  auto Buffer = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return "missing";
  if (auto Obj = object::ObjectFile::createObjectFile(**Buffer)) {
    for (const object::SectionRef &Section : (*Obj)->sections()) {
      Expected<StringRef> Name = Section.getName();
      if (!Name || *Name != ".note.gnu.build-id") {
        consumeError(Name.takeError());
        continue;
      }
      if (Expected<StringRef> Note = Section.getContents())
        return "build-id " + toHex(*Note, /*LowerCase=*/true);
      else
        consumeError(Note.takeError());
    }
  } else {
    consumeError(Obj.takeError());
  }
  return "sha1 " +
         toHex(SHA1::hash(arrayRefFromStringRef((*Buffer)->getBuffer())),
               /*LowerCase=*/true);
}

static void addFile(std::vector<std::string> &Files, StringRef Path) {
  if (sys::fs::is_regular_file(Path) && !is_contained(Files, Path))
    Files.push_back(Path.str());
}

Configuration configuration(const Settings &S, Compilation &C) {
  Configuration Config;
  std::vector<std::string> OptionFiles; // -mllvm=@file
  Config.Options = pluginOptions(C.getArgs(), &OptionFiles);
  Config.Files.push_back(S.Plugin);
  for (const std::string &Policy : optionValues(Config.Options, "policy"))
    addFile(Config.Files, Policy);
  for (const std::string &File : OptionFiles)
    addFile(Config.Files, File);
  for (const std::string &File : S.ResponseFiles)
    addFile(Config.Files, File);
  for (const std::string &File : configFiles(C.getDriver())) {
    Config.ConfigFiles.push_back(File);
    addFile(Config.Files, File);
  }
  if (!S.FlagsFile.empty())
    addFile(Config.Files, S.FlagsFile);

  std::string Text = "ScopeAlloc " SCOPEALLOC_VERSION " ABI " +
                     std::to_string(SCOPEALLOC_ABI_VERSION) + " LLVM " +
                     std::to_string(SCOPEALLOC_LLVM_MAJOR) + "\n";
  Text += "plugin " + fileIdentity(S.Plugin) + "\n";
  Text += "compiler " + fileIdentity(S.Compiler) + "\n";
  for (const std::string &Option : Config.Options)
    Text += "option " + Option + "\n";
  for (const std::string &Word : S.Extra)
    Text += "extra " + Word + "\n";
  // SCOPEALLOC_FLAGS_FILE's words are among Extra's: the same words from
  // the file or the variable make the same compile.
  for (const std::string &File : ArrayRef(Config.Files).drop_front())
    if (File != S.FlagsFile)
      Text += "file " + fileIdentity(File) + "\n";
  Config.Key = toHex(SHA1::hash(arrayRefFromStringRef(Text)),
                     /*LowerCase=*/true);
  return Config;
}

Configuration environmentConfiguration(const Settings &S) {
  // The words the wrapper adds and default config files: a compile of an
  // empty C file with no argument of the user's.
  std::vector<const char *> Argv(S.Argv.begin(),
                                 S.Argv.begin() + S.UserArgsBegin);
  for (const char *W : {"-fsyntax-only", "-x", "c", "/dev/null"})
    Argv.push_back(W);
  ClangCompilation Probe(S, Argv, /*Quiet=*/true);
  if (!Probe.get())
    fail("cannot build a compilation from SCOPEALLOC_FLAGS* alone");
  Settings Env;
  Env.Plugin = S.Plugin;
  Env.Compiler = S.Compiler;
  Env.Extra = S.Extra;
  Env.FlagsFile = S.FlagsFile;
  Env.ResponseFiles = S.ExtraResponseFiles;
  return configuration(Env, *Probe.get());
}

} // namespace scopealloc
