//===- ValueNames.cpp - What messages call a value ------------------------===//
#include "support/ValueNames.h"
#include "SymbolNames.h"

#include "llvm/IR/Instruction.h"
#include "llvm/IR/Metadata.h"

using namespace llvm;

namespace scopealloc {

StringRef irName(const Value &V) {
  if (V.hasName())
    return V.getName();
  if (auto *I = dyn_cast<Instruction>(&V))
    if (MDNode *N = I->getMetadata(NameMetadata))
      if (N->getNumOperands() == 1)
        if (auto *S = dyn_cast<MDString>(N->getOperand(0)))
          return S->getString();
  return "";
}

std::string readableName(StringRef Symbol) { return readableSymbol(Symbol); }

} // namespace scopealloc
