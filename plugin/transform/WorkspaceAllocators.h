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
//       alloc-slot: __my_alloc # optional: a global holding the allocation
//       free-slot: __my_free   # (free) function's address, called through
//
// A call through a slot is `%f = load ptr, ptr @slot` then `call %f(...)`
// (TVM's modules that are not a system library); the load may be shared by
// several calls and sit in another block.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_WORKSPACEALLOCATORS_H
#define SCOPEALLOC_WORKSPACEALLOCATORS_H

#include "AllocatorSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstrTypes.h"
#include <cstdint>
#include <optional>
#include <string>

namespace scopealloc {

/// TVMBackendAllocWorkspace(kDLCPU, dev, size, code, bits) /
/// TVMBackendFreeWorkspace(kDLCPU, dev, p): 64-byte aligned (TVM's
/// kAllocAlignment), also through the slots @__TVMBackendAllocWorkspace and
/// @__TVMBackendFreeWorkspace. halide_malloc(ctx, size) / halide_free(ctx, p):
/// 64-byte aligned (the runtime's halide_malloc_alignment on x86 and Arm).
llvm::ArrayRef<AllocatorSpec> builtinAllocators();

/// The global \p CB calls through: `%f = load ptr, ptr @G` then
/// `call %f(...)`, the load anywhere in the function; null for other calls.
const llvm::GlobalVariable *slotOf(const llvm::CallBase &CB);

/// Whether \p CB calls \p Name directly or through the global \p Slot.
bool callsFunctionOrSlot(const llvm::CallBase &CB, llvm::StringRef Name,
                         llvm::StringRef Slot);

/// The built-in allocator \p CB calls (directly or through its slot).
const AllocatorSpec *builtinAllocatorOf(const llvm::CallBase &CB);

} // namespace scopealloc

#endif
