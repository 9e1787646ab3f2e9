//===- WorkspaceAllocators.cpp - Allocation calls promotion knows ---------===//
#include "transform/WorkspaceAllocators.h"

using namespace llvm;

namespace scopealloc {

ArrayRef<AllocatorSpec> builtinAllocators() {
  static const AllocatorSpec Builtins[] = {
      {"TVMBackendAllocWorkspace", 5, 2, "TVMBackendFreeWorkspace", 3, 2, 64,
       true, std::make_pair(0u, uint64_t(1)),
       "its device type is not the CPU (kDLCPU = 1)", "built-in (TVM)",
       "__TVMBackendAllocWorkspace", "__TVMBackendFreeWorkspace"},
      {"halide_malloc", 2, 1, "halide_free", 2, 1, 64, true, std::nullopt, "",
       "built-in (Halide)"},
  };
  return Builtins;
}

} // namespace scopealloc
