//===- RuntimeABI.cpp - Calls into the ScopeAlloc runtime -----------------===//
#include "RuntimeABI.h"

#include "llvm/IR/Module.h"

using namespace llvm;

namespace scopealloc {

std::string RuntimeABI::poolSymbol(StringRef Pool) {
  return ("__scopealloc_pool_" + Pool).str();
}

IntegerType *RuntimeABI::sizeType() const {
  return M.getDataLayout().getIntPtrType(M.getContext());
}

static StringRef calleeName(const CallInst &CI) {
  const Function *Callee = CI.getCalledFunction();
  return Callee ? Callee->getName() : StringRef();
}

bool RuntimeABI::changesDefaultPool(const CallInst &CI) const {
  StringRef Name = calleeName(CI);
  return Name == "__scopealloc_alloc" || Name == "__scopealloc_release";
}

bool RuntimeABI::isRelease(const CallInst &CI) const {
  return calleeName(CI) == "__scopealloc_release";
}

FunctionCallee RuntimeABI::function(StringRef Name, Type *Ret,
                                    ArrayRef<Type *> Params) {
  FunctionCallee Callee =
      M.getOrInsertFunction(Name, FunctionType::get(Ret, Params, false));
  // The runtime never unwinds: exhaustion aborts or longjmps out.
  if (auto *Fn = dyn_cast<Function>(Callee.getCallee()))
    Fn->setDoesNotThrow();
  return Callee;
}

GlobalVariable *RuntimeABI::poolGlobal(StringRef Pool) {
  std::string Symbol = poolSymbol(Pool);
  if (GlobalVariable *GV = M.getGlobalVariable(Symbol))
    return GV;
  // Only the address matters; the layout is the runtime's scopealloc_pool.
  StructType *PoolTy =
      StructType::getTypeByName(M.getContext(), "scopealloc.pool");
  if (!PoolTy)
    PoolTy = StructType::create(M.getContext(), "scopealloc.pool");
  return new GlobalVariable(M, PoolTy, /*isConstant=*/false,
                            GlobalValue::ExternalLinkage, nullptr, Symbol);
}

Value *RuntimeABI::mark(IRBuilder<> &B, StringRef Pool) {
  Type *Ptr = B.getPtrTy();
  if (Pool.empty())
    return B.CreateCall(function("__scopealloc_mark", Ptr, {}));
  return B.CreateCall(function("__scopealloc_pool_mark", Ptr, {Ptr}),
                      {poolGlobal(Pool)});
}

Value *RuntimeABI::alloc(IRBuilder<> &B, StringRef Pool, Value *Bytes,
                         Align Alignment) {
  Type *Ptr = B.getPtrTy();
  IntegerType *Size = sizeType();
  Value *AlignArg = ConstantInt::get(Size, Alignment.value());
  CallInst *CI;
  if (Pool.empty())
    CI = B.CreateCall(function("__scopealloc_alloc", Ptr, {Size, Size}),
                      {Bytes, AlignArg});
  else
    CI = B.CreateCall(
        function("__scopealloc_pool_alloc", Ptr, {Ptr, Size, Size}),
        {poolGlobal(Pool), Bytes, AlignArg});
  // Codegen may rely on the alignment the alloca had.
  CI->addRetAttr(Attribute::getWithAlignment(B.getContext(), Alignment));
  CI->addRetAttr(Attribute::NonNull);
  return CI;
}

void RuntimeABI::release(IRBuilder<> &B, StringRef Pool, Value *Mark) {
  Type *Ptr = B.getPtrTy();
  if (Pool.empty())
    B.CreateCall(function("__scopealloc_release", B.getVoidTy(), {Ptr}),
                 {Mark});
  else
    B.CreateCall(
        function("__scopealloc_pool_release", B.getVoidTy(), {Ptr, Ptr}),
        {poolGlobal(Pool), Mark});
}

} // namespace scopealloc
