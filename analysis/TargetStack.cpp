//===- TargetStack.cpp - What a target's calls and frames add -------------===//
#include "TargetStack.h"
#include "ProgramImage.h"

#include "llvm/BinaryFormat/ELF.h"

using namespace llvm;

namespace scopealloc {

static uint64_t freestandingRuntimeStack(Triple::ArchType Arch) {
  switch (Arch) {
#define SA_RUNTIME_STACK(ARCH, BYTES)                                          \
  case Triple::ARCH:                                                           \
    return BYTES;
#include "FreestandingRuntimeStack.def"
#undef SA_RUNTIME_STACK
  default:
    return 256;
  }
}

TargetStack targetStack(Triple::ArchType Arch, unsigned PointerBytes) {
  TargetStack S;
  S.FreestandingRuntime = freestandingRuntimeStack(Arch);
  switch (Arch) {
  case Triple::x86_64: // return address, rbx rbp r12-r15, 8 to align
    S.CallOverhead = 8;
    S.RedZone = 128;
    S.SavedRegisters = S.SavedFPRegisters = 64;
    break;
  case Triple::x86: // return address, ebx esi edi ebp, 12 to align
    S.CallOverhead = 4;
    S.SavedRegisters = S.SavedFPRegisters = 32;
    break;
  case Triple::arm:
  case Triple::armeb:
  case Triple::thumb:
  case Triple::thumbeb: // r4-r11 lr, 4 to align, 8 of spills; d8-d15 (VFP)
    S.ExceptionFrame = 32;
    S.ExceptionFrameFP = 104;
    S.SavedRegisters = 48;
    S.SavedFPRegisters = 48 + 64;
    break;
  case Triple::aarch64:
  case Triple::aarch64_be: // x19-x30 (fp, lr); d8-d15
    S.SavedRegisters = 96;
    S.SavedFPRegisters = 96 + 64;
    break;
  case Triple::riscv32: // ra s0-s11, 12 to align
    S.SavedRegisters = S.SavedFPRegisters = 64;
    break;
  case Triple::riscv64: // ra s0-s11, 8 to align
    S.SavedRegisters = S.SavedFPRegisters = 112;
    break;
  default: // 16 pointer-sized slots
    S.SavedRegisters = S.SavedFPRegisters = 16 * uint64_t(PointerBytes);
    break;
  }
  return S;
}

namespace bound {
uint64_t exceptionFrame(const Image &Img, std::string *Why) {
  if (Img.Vectors.empty()) // exceptions are taken on the program's stack
    return 0;
  TargetStack T = targetStack(
      archOfELFMachine(Img.EMachine, Img.AddressSize == 8), Img.AddressSize);
  if (T.ExceptionFrameFP && !Img.FloatingPoint.empty()) {
    if (Why)
      *Why = "with the floating-point registers: " + Img.FloatingPoint;
    return T.ExceptionFrameFP;
  }
  if (Why)
    Why->clear();
  return T.ExceptionFrame;
}
} // namespace bound

Triple::ArchType archOfELFMachine(uint16_t EMachine, bool Is64Bit) {
  switch (EMachine) {
  case ELF::EM_X86_64:
    return Triple::x86_64;
  case ELF::EM_386:
    return Triple::x86;
  case ELF::EM_ARM:
    return Triple::arm;
  case ELF::EM_AARCH64:
    return Triple::aarch64;
  case ELF::EM_RISCV:
    return Is64Bit ? Triple::riscv64 : Triple::riscv32;
  default:
    return Triple::UnknownArch;
  }
}

} // namespace scopealloc
