//===- AllocatorSpec.h - An allocation call promotion knows -----*- C++ -*-===//
//
// One allocation/free function pair that scope-alloc-promote may turn into
// a stack buffer (plugin/transform/WorkspaceAllocators.h has the built-in ones;
// a policy file declares others under 'allocators').
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_ALLOCATORSPEC_H
#define SCOPEALLOC_ALLOCATORSPEC_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

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
  /// Globals that hold the functions' addresses, when the code calls through
  /// them (TVM's modules load `@__TVMBackendAllocWorkspace`, which TVM's
  /// module loader fills, and call the loaded pointer); empty if none.
  std::string AllocSlot;
  std::string FreeSlot;
};

} // namespace scopealloc

#endif
