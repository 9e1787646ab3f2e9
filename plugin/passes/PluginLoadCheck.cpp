//===- PluginLoadCheck.cpp - Warn when clang loads only the clang plugin --===//
//
// `clang -fplugin=ScopeAlloc.so` alone loads the library (its -mllvm options
// then parse) but never asks it for passes: nothing runs, silently. When the
// library is loaded, this reads the process's command line and warns once
// if it is clang's and names no -fpass-plugin= (the driver's arguments with
// clang's in-process -cc1, or -cc1's own; response files included).
// Linux only (/proc); elsewhere it says nothing.
//
//===----------------------------------------------------------------------===//
#include "LLVMCompat.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace {

/// The NUL-separated words of \p Text.
SmallVector<StringRef, 32> words(StringRef Text) {
  SmallVector<StringRef, 32> Words;
  Text.split(Words, '\0', -1, /*KeepEmpty=*/false);
  return Words;
}

/// Whether \p Args (or a response file among them) names a pass plugin.
bool namesPassPlugin(ArrayRef<StringRef> Args) {
  for (StringRef A : Args) {
    if (A.starts_with("-fpass-plugin="))
      return true;
    if (A.starts_with("@"))
      if (auto File = MemoryBuffer::getFile(A.drop_front()))
        if ((*File)->getBuffer().contains("-fpass-plugin="))
          return true;
  }
  return false;
}

struct ClangPluginOnlyCheck {
  ClangPluginOnlyCheck() {
    // /proc files report size 0: read to the end.
    auto CommandLine = MemoryBuffer::getFileAsStream("/proc/self/cmdline");
    if (!CommandLine)
      return;
    SmallVector<StringRef, 32> Args = words((*CommandLine)->getBuffer());
    if (Args.empty())
      return;
    // clang's driver (-fplugin=, -Xclang -load) or its -cc1 (-load).
    bool Clang = sys::path::filename(Args[0]).contains("clang");
    bool ClangPlugin = false;
    for (StringRef A : Args) {
      Clang |= A == "-cc1";
      ClangPlugin |= A.starts_with("-fplugin=") || A == "-load";
    }
    if (!Clang || !ClangPlugin || namesPassPlugin(Args))
      return;
    WithColor::warning()
        << "scope-alloc: ScopeAlloc is loaded as a clang plugin (-fplugin=) "
           "but not as a pass plugin, so its passes do not run; add "
           "-fpass-plugin=<path to ScopeAlloc.so>"
        << (SCOPEALLOC_HAVE_PASS_PLUGIN_OPTIONS
                ? " (clang " LLVM_VERSION_STRING
                  " parses the -mllvm -scope-alloc-* options with it alone)\n"
                : " (keep -fplugin= too: it makes the -mllvm -scope-alloc-* "
                  "options parse)\n");
  }
} Check;

} // namespace
