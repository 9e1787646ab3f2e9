//===- TargetStack.h - What a target's calls and frames add -----*- C++ -*-===//
//
// One table, per architecture, of the stack a call or a frame takes beyond
// the allocas the pass sees: for the pass's stack-bound fit (by the
// module's triple) and for scopealloc-bound (by the image's ELF machine).
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_TARGETSTACK_H
#define SCOPEALLOC_TARGETSTACK_H

#include "LLVMCompat.h" // llvm/TargetParser/Triple.h
#include <cstdint>
#include <string>

namespace scopealloc {

struct TargetStack {
  /// Bytes a call pushes beyond the callee's frame (x86's return address).
  uint64_t CallOverhead = 0;
  /// What a leaf function may use below the stack pointer.
  uint64_t RedZone = 0;
  /// What the hardware pushes when it takes an exception on the current
  /// stack (Cortex-M: r0-r3, r12, lr, pc, xPSR), for images with a vector
  /// table.
  uint64_t ExceptionFrame = 0;
  /// The same with floating-point state active (Cortex-M4/M7/M33/M55 with
  /// an FPU: s0-s15, FPSCR and a reserved word on top, 104 bytes; lazy
  /// stacking reserves them even when it does not write them).
  uint64_t ExceptionFrameFP = 0;
  /// A frame's saved registers and return address when code generation
  /// saves every callee-saved register the ABI has, without and with the
  /// floating-point ones (d8-d15 on ARM and AArch64).
  uint64_t SavedRegisters = 0, SavedFPRegisters = 0;
  /// The freestanding runtime's worst-case stack (its slow path), measured
  /// per architecture (FreestandingRuntimeStack.def); 256 elsewhere.
  uint64_t FreestandingRuntime = 256;
};

/// The row of \p Arch; \p PointerBytes sizes the default row.
TargetStack targetStack(llvm::Triple::ArchType Arch, unsigned PointerBytes);

namespace bound {
struct Image;

/// What the hardware pushes on taking an exception, for image \p Img: 0
/// without a vector table; on ARM the basic 32-byte frame, or the 104-byte
/// one when the image's code may use the floating-point unit. \p Why says
/// which and why ("with the floating-point registers: Tag_FP_arch ...").
uint64_t exceptionFrame(const Image &Img, std::string *Why = nullptr);
} // namespace bound

/// The architecture of ELF machine \p EMachine (EM_*), for an image of
/// \p Is64Bit class.
llvm::Triple::ArchType archOfELFMachine(uint16_t EMachine, bool Is64Bit);

} // namespace scopealloc

#endif
