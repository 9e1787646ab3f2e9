//===- LinkerRemarks.h - Remarks at an lld link, as clang prints them -*- C++ -*-===//
//
// lld prints an optimisation remark as a bare message on stdout:
// "src/main.rs:14:9: 'buf' in ... moved to pool 'workspace'", without the
// "remark:" that clang and opt print, so a reader (or a grep for
// "remark:") cannot tell it from the linker's other output. While the pass
// runs inside lld, its remarks print as clang prints them, on stderr:
//   src/main.rs:14:9: remark: 'buf' in ... [-Rpass=scope-alloc]
// Every other diagnostic, and the remarks' filters and records
// (-pass-remarks, opt-remarks-filename), stay lld's.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_SUPPORT_LINKERREMARKS_H
#define SCOPEALLOC_SUPPORT_LINKERREMARKS_H

#include <memory>

namespace llvm {
class LLVMContext;
struct DiagnosticHandler;
} // namespace llvm

namespace scopealloc {

/// Whether this process is lld (the plugin loaded by --load-pass-plugin).
bool runningInLinker();

/// For its lifetime, and only inside lld, the pass's remarks in \p Ctx
/// print with their severity (above); the context's own handler is back
/// afterwards.
class LinkerRemarkPrefix {
public:
  explicit LinkerRemarkPrefix(llvm::LLVMContext &Ctx);
  ~LinkerRemarkPrefix();
  LinkerRemarkPrefix(const LinkerRemarkPrefix &) = delete;
  LinkerRemarkPrefix &operator=(const LinkerRemarkPrefix &) = delete;

private:
  llvm::LLVMContext &Ctx;
  bool Installed = false;
};

} // namespace scopealloc

#endif
