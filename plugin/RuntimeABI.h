//===- RuntimeABI.h - Calls into the ScopeAlloc runtime ---------*- C++ -*-===//
//
// The only place that knows the runtime's symbol names (see
// runtime/include/scopealloc/scopealloc.h). An empty pool name means the
// calling thread's default workspace pool; a named pool `p` is the global
// __scopealloc_pool_p that the application defines, so a missing pool is a
// link error that names it.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_RUNTIMEABI_H
#define SCOPEALLOC_RUNTIMEABI_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/IRBuilder.h"

namespace scopealloc {

class RuntimeABI {
public:
  explicit RuntimeABI(llvm::Module &M) : M(M) {}

  /// The runtime's size_t.
  llvm::IntegerType *sizeType() const;

  llvm::Value *mark(llvm::IRBuilder<> &B, llvm::StringRef Pool);
  llvm::Value *alloc(llvm::IRBuilder<> &B, llvm::StringRef Pool,
                     llvm::Value *Bytes, llvm::Align Alignment);
  void release(llvm::IRBuilder<> &B, llvm::StringRef Pool, llvm::Value *Mark);

  /// Whether \p CI allocates from or releases the default pool.
  bool changesDefaultPool(const llvm::CallInst &CI) const;
  bool isRelease(const llvm::CallInst &CI) const;

  /// The symbol of named pool \p Pool.
  static std::string poolSymbol(llvm::StringRef Pool);

private:
  llvm::FunctionCallee function(llvm::StringRef Name, llvm::Type *Ret,
                                llvm::ArrayRef<llvm::Type *> Params);
  llvm::GlobalVariable *poolGlobal(llvm::StringRef Pool);

  llvm::Module &M;
};

} // namespace scopealloc

#endif
