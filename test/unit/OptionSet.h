//===- OptionSet.h - A command-line option set for one test -----*- C++ -*-===//
#ifndef SCOPEALLOC_TEST_UNIT_OPTIONSET_H
#define SCOPEALLOC_TEST_UNIT_OPTIONSET_H

#include "llvm/Support/CommandLine.h"
#include "gtest/gtest.h"

namespace scopealloc::test {

/// Sets a -scope-alloc-* option as the command line would, for one scope.
class OptionSet {
  llvm::cl::Option *O;

public:
  OptionSet(llvm::StringRef Name, llvm::StringRef Value)
      : O(llvm::cl::getRegisteredOptions()[Name]) {
    EXPECT_NE(O, nullptr) << Name.str();
    if (O)
      EXPECT_FALSE(O->addOccurrence(0, Name, Value));
  }
  ~OptionSet() {
    if (O)
      O->reset();
  }
};

} // namespace scopealloc::test

#endif
