//===- TableDispatch.cpp - Functions called only through own tables -------===//
#include "placement/TableDispatch.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

#include <numeric>
#include <optional>

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

/// The byte ranges of a table's initializer that hold an address (a
/// pointer, or a constant expression such as ptrtoint of one): what a load
/// narrower than a pointer must not read, lest it take a function's address
/// apart to put it together again elsewhere.
static void addressBytes(const Constant &C, uint64_t At, const DataLayout &DL,
                         SmallVectorImpl<std::pair<uint64_t, uint64_t>> &Out) {
  if (isa<ConstantData>(C))
    return; // integers, floats, null, zeros, undef, arrays of numbers
  Type *T = C.getType();
  if (auto *ST = dyn_cast<StructType>(T)) {
    const StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned I = 0, E = ST->getNumElements(); I != E; ++I)
      addressBytes(*C.getAggregateElement(I), At + SL->getElementOffset(I), DL,
                   Out);
    return;
  }
  if (auto *AT = dyn_cast<ArrayType>(T)) {
    uint64_t Stride = DL.getTypeAllocSize(AT->getElementType());
    for (uint64_t I = 0, E = AT->getNumElements(); I != E; ++I)
      addressBytes(*C.getAggregateElement(I), At + I * Stride, DL, Out);
    return;
  }
  // A pointer, a constant expression, a vector of either: all its bytes.
  Out.push_back({At, DL.getTypeStoreSize(T).getFixedValue()});
}

namespace {
/// Where an address into a table may point: Constant + k * Step bytes from
/// its start for any integer k (Step 0: exactly Constant).
struct TableOffset {
  int64_t Constant = 0;
  uint64_t Step = 0;
};
} // namespace

/// The offsets \p GEP adds to \p From, or none (a vector index, a scalable
/// type).
static std::optional<TableOffset>
addOffset(const GEPOperator &GEP, TableOffset From, const DataLayout &DL) {
  for (gep_type_iterator GTI = gep_type_begin(GEP), E = gep_type_end(GEP);
       GTI != E; ++GTI) {
    const auto *Index = dyn_cast<ConstantInt>(GTI.getOperand());
    if (StructType *ST = GTI.getStructTypeOrNull()) {
      From.Constant +=
          DL.getStructLayout(ST)->getElementOffset(Index->getZExtValue());
      continue;
    }
    Type *Indexed = GTI.getIndexedType();
    if (Indexed->isVectorTy() || isa<ScalableVectorType>(Indexed))
      return std::nullopt;
    TypeSize Size = DL.getTypeAllocSize(Indexed);
    if (Size.isScalable())
      return std::nullopt;
    uint64_t Stride = Size.getFixedValue();
    if (Index)
      From.Constant += Index->getSExtValue() * int64_t(Stride);
    else
      From.Step = std::gcd(From.Step, Stride);
  }
  return From;
}

/// Whether a load of \p Bytes at \p Where may read a byte of \p Range.
static bool mayOverlap(TableOffset Where, uint64_t Bytes,
                       std::pair<uint64_t, uint64_t> Range) {
  // Loads that start in (Range.first - Bytes, Range.first + Range.second).
  int64_t Low = int64_t(Range.first) - int64_t(Bytes) + 1;
  int64_t High = int64_t(Range.first + Range.second); // exclusive
  if (!Where.Step)
    return Where.Constant >= Low && Where.Constant < High;
  int64_t Step = int64_t(Where.Step);
  int64_t First = Low + (((Where.Constant - Low) % Step) + Step) % Step;
  return First < High;
}

namespace {
/// The uses of one table: every load must take a whole pointer only to call
/// it with the function's type, or read bytes that hold no address.
struct TableUses {
  const FunctionType *FnType;
  const DataLayout &DL;
  SmallVector<std::pair<uint64_t, uint64_t>, 8> Addresses;

  /// Whether every use of \p Address (the table, or an address inside it,
  /// \p At bytes from its start) loads a pointer that is only called with
  /// FnType, or an integer from bytes that hold no address.
  bool onlyLoadedToCall(const Value &Address, TableOffset At,
                        unsigned Depth = 0) const {
    if (Depth > 8)
      return false;
    for (const User *U : Address.users()) {
      if (const auto *Load = dyn_cast<LoadInst>(U)) {
        if (Load->getPointerOperand() != &Address)
          return false;
        Type *Loaded = Load->getType();
        if (Loaded->isPointerTy()) {
          // A whole pointer, only called.
          if (!onlyCalled(*Load, FnType))
            return false;
          continue;
        }
        // The table's other fields (zlib's good_length and friends): an
        // integer narrower than a pointer, from bytes that hold no
        // address. Bytes of an address read as integers (two i32 halves,
        // i8s) can be put together into a pointer that goes anywhere.
        if (!Loaded->isIntegerTy() ||
            DL.getTypeSizeInBits(Loaded) >= DL.getPointerSizeInBits())
          return false;
        uint64_t Bytes = DL.getTypeStoreSize(Loaded).getFixedValue();
        for (const std::pair<uint64_t, uint64_t> &Range : Addresses)
          if (mayOverlap(At, Bytes, Range))
            return false;
        continue;
      }
      // An element's address: a GEP (instruction or constant expression).
      if (const auto *GEP = dyn_cast<GEPOperator>(U);
          GEP && GEP->getPointerOperand() == &Address) {
        std::optional<TableOffset> Next = addOffset(*GEP, At, DL);
        if (!Next || !onlyLoadedToCall(*U, *Next, Depth + 1))
          return false;
        continue;
      }
      // Anything else (memcpy, a call that is handed the table, a store of
      // its address, a cast to an integer): code the graph may not follow.
      return false;
    }
    return true;
  }
};
} // namespace

/// Whether \p U, a user of a constant that holds \p F's address, is an
/// internal constant table that is only loaded to call, or part of one
/// (an aggregate of its initializer, a cast).
static bool ownTable(const User &U, const Function &F, unsigned Depth = 0) {
  if (Depth > 8)
    return false;
  if (const auto *GV = dyn_cast<GlobalVariable>(&U)) {
    if (!GV->hasLocalLinkage() || !GV->isConstant() ||
        !GV->hasDefinitiveInitializer())
      return false;
    TableUses Uses{F.getFunctionType(), GV->getParent()->getDataLayout(), {}};
    addressBytes(*GV->getInitializer(), 0, Uses.DL, Uses.Addresses);
    return Uses.onlyLoadedToCall(*GV, TableOffset());
  }
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
