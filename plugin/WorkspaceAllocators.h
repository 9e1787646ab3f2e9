//===- WorkspaceAllocators.h - Allocation calls promotion knows -*- C++ -*-===//
//
// The allocation/free function pairs that scope-alloc-promote may turn into
// stack buffers: the built-in ones of the code generators below, and those a
// policy file declares under 'allocators' (PolicyFile.h):
//
//   allocators:
//     - alloc: my_alloc        # the allocation function
//       size-arg: 1            # which argument is the size (from 0)
//       free: my_free          # the function that releases it
//       free-arg: 1            # which argument of the free is the pointer
//       align: 32              # alignment the generated code may rely on
//       null: error-path       # error-path (default): a path on which the
//                              # result is NULL needs no free; or never
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_WORKSPACEALLOCATORS_H
#define SCOPEALLOC_WORKSPACEALLOCATORS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>

namespace scopealloc {

struct AllocatorSpec {
  std::string Alloc;  ///< allocation function
  unsigned AllocArgs; ///< fewest arguments a call of it has
  unsigned SizeArg;   ///< the size argument
  std::string Free;   ///< the function that releases it
  unsigned FreeArgs;  ///< fewest arguments a call of it has
  unsigned FreeArg;   ///< the pointer argument of the free
  uint64_t Align;     ///< alignment the code may rely on
  /// Whether a path on which the result is NULL (the code's own `if (p ==
  /// NULL) return error;`) needs no free.
  bool NullIsErrorPath = true;
  /// An argument that must be this constant (TVM's device type: only CPU
  /// workspaces may become CPU stack).
  std::optional<std::pair<unsigned, uint64_t>> RequiredArg;
  std::string RequiredArgWhy;
  std::string Origin; ///< "built-in (TVM)", or the policy file and line
};

/// TVMBackendAllocWorkspace(kDLCPU, dev, size, code, bits) /
/// TVMBackendFreeWorkspace(kDLCPU, dev, p): 64-byte aligned (TVM's
/// kAllocAlignment). halide_malloc(ctx, size) / halide_free(ctx, p): 64-byte
/// aligned (the runtime's halide_malloc_alignment on x86 and Arm).
llvm::ArrayRef<AllocatorSpec> builtinAllocators();

} // namespace scopealloc

#endif
