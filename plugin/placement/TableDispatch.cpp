//===- TableDispatch.cpp - Functions called only through own tables -------===//
#include "placement/TableDispatch.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace scopealloc {

/// Whether the value loaded by \p Load is only called with \p FnType, or
/// compared.
static bool onlyCalled(const LoadInst &Load, const FunctionType *FnType) {
  for (const Use &U : Load.uses()) {
    const auto *Call = dyn_cast<CallBase>(U.getUser());
    if (Call && Call->isCallee(&U) && Call->getFunctionType() == FnType)
      continue;
    if (isa<ICmpInst>(U.getUser()))
      continue;
    return false;
  }
  return true;
}

/// Whether every use of \p Address (the table, or an address inside it)
/// loads a pointer that is only called with \p FnType.
static bool onlyLoadedToCall(const Value &Address, const FunctionType *FnType,
                             unsigned Depth = 0) {
  if (Depth > 8)
    return false;
  for (const User *U : Address.users()) {
    if (const auto *Load = dyn_cast<LoadInst>(U)) {
      if (Load->getPointerOperand() != &Address)
        return false;
      // The table's other fields: an integer narrower than a pointer
      // cannot carry one.
      const DataLayout &DL = Load->getModule()->getDataLayout();
      Type *Loaded = Load->getType();
      if (Loaded->isIntegerTy() &&
          DL.getTypeSizeInBits(Loaded) < DL.getPointerSizeInBits())
        continue;
      if (!Loaded->isPointerTy() || !onlyCalled(*Load, FnType))
        return false;
      continue;
    }
    // An element's address: a GEP (instruction or constant expression).
    if (isa<GEPOperator>(U) &&
        cast<GEPOperator>(U)->getPointerOperand() == &Address) {
      if (!onlyLoadedToCall(*U, FnType, Depth + 1))
        return false;
      continue;
    }
    return false;
  }
  return true;
}

/// Whether \p U, a user of a constant that holds \p F's address, is an
/// internal constant table that is only loaded to call, or part of one
/// (an aggregate of its initializer, a cast).
static bool ownTable(const User &U, const Function &F, unsigned Depth = 0) {
  if (Depth > 8)
    return false;
  if (const auto *GV = dyn_cast<GlobalVariable>(&U))
    return GV->hasLocalLinkage() && GV->isConstant() &&
           onlyLoadedToCall(*GV, F.getFunctionType());
  if (!isa<ConstantAggregate>(U) &&
      !(isa<ConstantExpr>(U) && cast<ConstantExpr>(U).isCast()))
    return false;
  for (const User *Next : U.users())
    if (!ownTable(*Next, F, Depth + 1))
      return false;
  return true;
}

bool calledOnlyThroughOwnTables(const Function &F) {
  bool InTable = false;
  for (const Use &U : F.uses()) {
    const auto *Call = dyn_cast<CallBase>(U.getUser());
    if (Call && Call->isCallee(&U))
      continue; // a direct call
    if (!ownTable(*U.getUser(), F))
      return false;
    InTable = true;
  }
  return InTable;
}

} // namespace scopealloc
