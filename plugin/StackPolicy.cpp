//===- StackPolicy.cpp - Which allocations may stay on the stack ----------===//
#include "StackPolicy.h"
#include "Diagnostics.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

static cl::opt<uint64_t> MaxStackAllocaOpt(
    "scope-alloc-max-stack-alloca",
    cl::desc("Largest allocation (bytes) that may stay on the stack; "
             "overrides the target default (0 = none)"),
    cl::value_desc("bytes"));

namespace scopealloc {

static bool isGPU(const Triple &T) {
  return T.isNVPTX() || T.isAMDGPU() || T.isSPIRV() ||
         T.getArch() == Triple::r600;
}

static bool isBareMetal(const Triple &T) {
  return T.getOS() == Triple::UnknownOS &&
         (T.isARM() || T.isThumb() || T.isAArch64() || T.isRISCV() ||
          T.getEnvironment() == Triple::EABI ||
          T.getEnvironment() == Triple::EABIHF);
}

StackPolicy targetDefaultPolicy(const Triple &T) {
  StackPolicy P;
  std::string Name = T.str().empty() ? "<no triple>" : T.str();
  auto Row = [&](uint64_t Limit, const char *Why) {
    P.MaxStackAlloca = Limit;
    P.Source = "target default for " + Name + " (" + Why + ")";
    return P;
  };
  if (isGPU(T)) {
    P.Enabled = false;
    return Row(0, "GPU: no workspace runtime, left alone");
  }
  if (T.isWasm())
    return Row(512, "WebAssembly: small shadow stack in linear memory");
  if (isBareMetal(T))
    return Row(256, "bare-metal: stacks of a few KiB");
  if (T.isArch64Bit())
    return Row(1024, "hosted 64-bit CPU");
  return Row(1024, "hosted 32-bit CPU");
}

std::optional<StackPolicy> policyForFunction(const Function &F) {
  StackPolicy P = targetDefaultPolicy(Triple(F.getParent()->getTargetTriple()));
  if (MaxStackAllocaOpt.getNumOccurrences()) {
    P.MaxStackAlloca = MaxStackAllocaOpt;
    P.Source = "-scope-alloc-max-stack-alloca";
  }
  Attribute A = F.getFnAttribute(MaxStackAllocaAttr);
  if (A.isValid()) {
    uint64_t Limit;
    if (!A.isStringAttribute() ||
        A.getValueAsString().getAsInteger(10, Limit)) {
      reportError(F, nullptr,
                  Twine("function attribute \"") + MaxStackAllocaAttr +
                      "\" must be a byte count, found \"" +
                      (A.isStringAttribute() ? A.getValueAsString() : "") +
                      "\"");
      return std::nullopt;
    }
    P.MaxStackAlloca = Limit;
    P.Source = std::string("function attribute \"") + MaxStackAllocaAttr + "\"";
  }
  return P;
}

} // namespace scopealloc
