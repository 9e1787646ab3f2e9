//===- PluginOptions.cpp - the plugin's options as llvm::cl reads them ----===//
//
// clang hands its -mllvm words to llvm::cl as one command line: cc1 gets
// the -mllvm words among -Xclang's first, then the driver's -mllvm (and
// -mllvm=) words. llvm::cl reads more spellings of an option than
// -scope-alloc-<name>=<value>:
//   - two dashes: --scope-alloc-policy=p.yaml;
//   - the value as the next word, for an option that is not a flag:
//     -mllvm -scope-alloc-policy -mllvm p.yaml;
//   - response files: -mllvm=@opts (clang's driver expands a separate
//     -mllvm @opts itself).
// Every reader of the plugin's options (the cache key, the depfile, the
// link check, the jobs that do not load the plugin) reads them here, so
// that each spelling the plugin accepts is one input.
//
//===----------------------------------------------------------------------===//

#include "ScopeAllocClang.h"
#include "clang/Driver/Driver.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Option/ArgList.h"

// After clang/Driver/Driver.h: LLVMCompat.h's expandResponseFiles for LLVM
// 15 and 16.
#include "LLVMCompat.h"

using namespace clang::driver;
using namespace llvm;

namespace scopealloc {

// The plugin's flags (cl::opt<bool>): llvm::cl never takes the next word as
// their value. Every other -scope-alloc-* option takes one.
// plugin-option-words.test holds this list to the options the plugin
// registers.
static constexpr StringRef FlagOptions[] = {
    "scope-alloc-count-inline-frames", "scope-alloc-facts",
    "scope-alloc-facts-only",          "scope-alloc-inline-fast-path",
    "scope-alloc-remark-sources",      "scope-alloc-track-scopes",
    "scope-alloc-whole-program"};

// "scope-alloc-<name>[=<value>]" for a word llvm::cl reads as one of the
// plugin's options (one dash or two), else "".
static StringRef pluginOptionText(StringRef Word) {
  if (!Word.consume_front("-"))
    return "";
  Word.consume_front("-");
  return Word.starts_with("scope-alloc-") ? Word : "";
}

bool isPluginOption(StringRef Arg) { return !pluginOptionText(Arg).empty(); }

std::vector<LLVMOption> parseLLVMWords(ArrayRef<std::string> Words) {
  std::vector<LLVMOption> Options;
  for (size_t I = 0; I < Words.size(); ++I) {
    LLVMOption Option;
    Option.Words.push_back(Words[I]);
    StringRef Text = pluginOptionText(Words[I]);
    if (!Text.empty()) {
      Option.Plugin = ("-" + Text).str();
      if (!Text.contains('=') && !is_contained(FlagOptions, Text) &&
          I + 1 < Words.size()) {
        Option.Words.push_back(Words[++I]);
        Option.Plugin += "=" + Words[I];
      }
    }
    Options.push_back(std::move(Option));
  }
  return Options;
}

std::vector<std::string> expandLLVMWords(ArrayRef<std::string> Words) {
  if (none_of(Words, [](StringRef W) { return W.starts_with("@"); }))
    return Words.vec();
  // As llvm::cl::ParseCommandLineOptions expands them: GNU quoting. A file
  // that cannot be read stays a word, for llvm::cl to report.
  BumpPtrAllocator Alloc;
  SmallVector<const char *, 16> Argv;
  for (const std::string &W : Words)
    Argv.push_back(W.c_str());
  if (Error E = expandResponseFiles(Argv, /*ClangCLMode=*/false, Alloc)) {
    consumeError(std::move(E));
    return Words.vec();
  }
  return std::vector<std::string>(Argv.begin(), Argv.end());
}

std::vector<std::string> pluginOptionsIn(ArrayRef<std::string> Words) {
  std::vector<std::string> Options;
  for (const LLVMOption &Option : parseLLVMWords(expandLLVMWords(Words)))
    if (!Option.Plugin.empty())
      Options.push_back(Option.Plugin);
  return Options;
}

// The words cc1 hands llvm::cl, in its order.
static std::vector<std::string> llvmWords(const opt::ArgList &Args) {
  std::vector<std::string> Words;
  std::vector<std::string> CC1 = Args.getAllArgValues(options::OPT_Xclang);
  for (size_t I = 0; I + 1 < CC1.size(); ++I)
    if (CC1[I] == "-mllvm")
      Words.push_back(CC1[++I]);
  for (std::string &Word : Args.getAllArgValues(options::OPT_mllvm))
    Words.push_back(std::move(Word));
  return Words;
}

std::vector<std::string> pluginOptions(const opt::ArgList &Args,
                                       std::vector<std::string> *Files) {
  std::vector<std::string> Words = llvmWords(Args);
  if (Files) {
    std::vector<const char *> Argv;
    for (const std::string &W : Words)
      Argv.push_back(W.c_str());
    collectResponseFiles(Argv, *Files);
  }
  return pluginOptionsIn(Words);
}

std::vector<std::string> optionValues(ArrayRef<std::string> Options,
                                      StringRef Name) {
  std::string Key = ("-scope-alloc-" + Name + "=").str();
  std::vector<std::string> Values;
  for (StringRef Option : Options)
    if (Option.starts_with(Key))
      Values.push_back(Option.substr(Key.size()).str());
  return Values;
}

} // namespace scopealloc
