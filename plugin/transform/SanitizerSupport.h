//===- SanitizerSupport.h - Demoted frames seen by sanitizers ---*- C++ -*-===//
//
// The sanitizer passes run after ScopeAlloc (clang schedules them at the
// same extension point, after plugins), so they see demoted buffers as
// memory returned by an uninstrumented runtime call:
//   - MemorySanitizer would take it as initialised (the arena was mmap-ed,
//     and earlier frames wrote it): each new frame is marked uninitialised
//     with __msan_allocated_memory, whose origin is the demoting function;
//   - AddressSanitizer reports a read of a released frame as use-after-poison
//     at an address: each new frame is noted with a constant descriptor
//     (function, variables, offsets, sizes) that the runtime uses to name
//     the variable in the report (runtime/src/asan_names.c);
//   - AddressSanitizer would see a frame's buffers side by side, so an
//     overflow of one into the next would go unreported: under ASan a frame
//     is laid out with a redzone before, between and after its buffers, as
//     ASan lays out a stack frame, and the redzones are poisoned once the
//     frame is allocated (the runtime poisons the whole frame at release).
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_SANITIZERSUPPORT_H
#define SCOPEALLOC_SANITIZERSUPPORT_H

#include "placement/FrameLayout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/IRBuilder.h"
#include <string>

namespace scopealloc {

/// Whether \p F is instrumented by MemorySanitizer.
bool isMSanInstrumented(const llvm::Function &F);

/// Marks \p Bytes at \p Ptr uninitialised for MemorySanitizer.
void poisonForMSan(llvm::IRBuilder<> &B, llvm::Value *Ptr, llvm::Value *Bytes);

/// One demoted variable of a frame, for the ASan report.
struct FrameVariable {
  std::string Name;
  uint64_t Offset;
  uint64_t Size;
};

/// Whether \p F is instrumented by AddressSanitizer on a hosted target (the
/// runtime that names variables is hosted-only).
bool wantsFrameNotes(const llvm::Function &F);

/// Tells the runtime that \p Frame (\p FrameSize bytes) holds \p Vars of
/// \p F.
void noteFrameForASan(llvm::IRBuilder<> &B, llvm::Function &F,
                      llvm::Value *Frame, uint64_t FrameSize,
                      llvm::ArrayRef<FrameVariable> Vars);

/// Whether \p F's demoted frames get ASan redzones.
bool wantsRedzones(const llvm::Function &F);

/// \p L with its buffers spread apart (each followed by its canary, when
/// \p CanarySize is non-zero): a redzone before the first buffer, after
/// each one, and no two buffers sharing bytes (ASan's stack frames do not
/// share either).
FrameLayout withRedzones(const llvm::Function &F, const FrameLayout &L,
                         uint64_t CanarySize);

/// Poisons the bytes of the frame at \p Frame that \p L (withRedzones)
/// gives to no buffer and no canary.
void poisonRedzones(llvm::IRBuilder<> &B, llvm::Value *Frame,
                    const FrameLayout &L, uint64_t CanarySize);

} // namespace scopealloc

#endif
