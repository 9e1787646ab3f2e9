//===- ArmCode.h - What an Arm image's instructions do to the stack -*- C++ -*-===//
//
// A function's .stack_sizes entry is what the compiler put in its prologue;
// assembly it did not write (a naked function, `sub sp, #N` in inline asm,
// a .S file) moves the stack pointer too. This reads Thumb code with LLVM's
// disassembler: the bytes a function's own instructions move the stack
// pointer down by (push, push.w/stmdb sp!, vpush/vstmdb sp!, sub sp, #N,
// str rX, [sp, #-N]!, add sp, #-N), each counted once; or, when an
// instruction moves it by an amount the code does not show (sub sp, rX;
// mov sp, rX) or a move down repeats in a loop, why it is not known. It
// also finds the first instruction that uses the floating-point unit.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_BOUND_ARMCODE_H
#define SCOPEALLOC_BOUND_ARMCODE_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace scopealloc {
namespace bound {

struct CodeReading {
  /// Bytes the instructions move the stack pointer down by, each once.
  uint64_t Bytes = 0;
  /// Why that is not all (empty when it is): "`mov sp, r0` at 0x8000124".
  std::string Unknown;
  /// The first instruction that uses the floating-point unit, or "".
  std::string FloatingPoint;
};

class ArmCode {
public:
  /// Null when this LLVM has no Arm disassembler.
  static std::unique_ptr<ArmCode> create();
  ~ArmCode();

  /// Reads the Thumb instructions of \p Bytes at \p Address, skipping the
  /// data ranges \p Data (begin, end; sorted).
  CodeReading read(llvm::ArrayRef<uint8_t> Bytes, uint64_t Address,
                   llvm::ArrayRef<std::pair<uint64_t, uint64_t>> Data) const;

  struct Impl;

private:
  explicit ArmCode(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> I;
};

} // namespace bound
} // namespace scopealloc

#endif
