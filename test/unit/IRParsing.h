//===- IRParsing.h - IR from a string for the unit tests --------*- C++ -*-===//
#ifndef SCOPEALLOC_TEST_UNIT_IRPARSING_H
#define SCOPEALLOC_TEST_UNIT_IRPARSING_H

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <memory>

namespace scopealloc::test {

/// Parses \p IR, failing the test with the parser's message when it is bad.
inline std::unique_ptr<llvm::Module> parseIR(llvm::LLVMContext &Ctx,
                                             llvm::StringRef IR) {
  llvm::SMDiagnostic Err;
  std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(IR, Err, Ctx);
  if (!M) {
    std::string Msg;
    llvm::raw_string_ostream OS(Msg);
    Err.print("unit-test", OS);
    ADD_FAILURE() << Msg;
  }
  return M;
}

/// The alloca named \p Name in \p F.
inline llvm::AllocaInst *allocaNamed(llvm::Function &F, llvm::StringRef Name) {
  for (llvm::Instruction &I : llvm::instructions(F))
    if (auto *AI = llvm::dyn_cast<llvm::AllocaInst>(&I);
        AI && AI->getName() == Name)
      return AI;
  ADD_FAILURE() << "no alloca %" << Name.str() << " in " << F.getName().str();
  return nullptr;
}

} // namespace scopealloc::test

#endif
