//===- PoolUsage.h - What each function takes from the pools ----*- C++ -*-===//
//
// The pool counterparts of clang's -Wframe-larger-than and -fstack-usage,
// from the frames demotion laid out (AllocaDemotion.h):
//   -scope-alloc-warn-pool-frame-larger-than=<bytes>  warns about a function
//       whose pool frames add up to more than <bytes> per call;
//   -scope-alloc-pool-usage=<file>|<dir>/  writes the .su line format of
//       clang's -fstack-usage, one line per function and pool it takes
//       from, with the pool as a fourth column (a .pu file). <dir>/ names
//       the file as clang names a .su without -o: <dir>/<source stem>.pu.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_POOLUSAGE_H
#define SCOPEALLOC_POOLUSAGE_H

#include <string>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace scopealloc {

struct FunctionDemotion;

class PoolUsage {
public:
  explicit PoolUsage(const llvm::Module &M) : M(M) {}

  /// Warns when \p F's frames are over the limit and records its lines; call
  /// right after demoting \p F.
  void addFunction(const llvm::Function &F, const FunctionDemotion &Demotion);

  /// Writes the .pu file when one was asked for, even without lines, so no
  /// stale one stays behind; an error naming it when it cannot.
  void write() const;

private:
  const llvm::Module &M;
  std::string Lines;
};

} // namespace scopealloc

#endif
