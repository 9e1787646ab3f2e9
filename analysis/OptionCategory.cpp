//===- OptionCategory.cpp - The category of ScopeAlloc's options ----------===//
#include "OptionCategory.h"

#include "llvm/Support/CommandLine.h"

namespace scopealloc {

llvm::cl::OptionCategory &optionCategory() {
  // A function-local static: options of other files may register first.
  static llvm::cl::OptionCategory Category("ScopeAlloc");
  return Category;
}

} // namespace scopealloc
