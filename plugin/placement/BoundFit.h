//===- BoundFit.h - Fit entry points' stacks to their bounds ----*- C++ -*-===//
//
// When the module is the whole program (the full-LTO link, or opt with
// -scope-alloc-whole-program) and the policy gives a stack bound
// ('stack-bound', or one entry point's in 'entries'), the pass makes the
// estimated worst-case stack of each entry point fit it:
//
//   estimate  per function: its static allocas that stay on the stack after
//             the per-function decisions, each rounded to its alignment,
//             plus a per-frame overhead for what code generation adds
//             (return address, saved registers; per target, or
//             -scope-alloc-fit-frame-overhead), rounded to the stack
//             alignment; per entry: scopealloc-bound's call graph and
//             bound rules themselves (analysis/CallGraph.h, Bounds.h), over
//             a program image made from the module: the facts the pass
//             would write, with these estimates as frame sizes. Functions
//             outside the module count their size in the table of
//             assumptions, or, without one (native start-up code or
//             runtime the link adds), 0: the estimate is then a lower
//             bound, every move it asks for is needed, and the link's
//             check counts the rest.
//   fit       while an entry's estimate exceeds its bound, the kept buffer
//             on its critical chain that gains least from the stack (the
//             frame budget's ranking, FrameBudget.h) moves to the policy's
//             pool (rule fit-stack-bound), and the estimate is redone.
//   give up   an entry that cannot be bounded (a cycle without a depth, an
//             indirect call nothing matches, a dynamic allocation on the
//             stack), or whose
//             chain has nothing left to move, gets a warning naming the
//             entry, the bound, the estimate and the chain or the cause.
//
// The estimate is not the check: scopealloc-bound --check reads the frames
// code generation built (the wrapper's link runs it). docs/bound-fit.md.
//
// Under ThinLTO each backend sees one module: bounds are not fitted there,
// with one warning.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_BOUNDFIT_H
#define SCOPEALLOC_BOUNDFIT_H

#include "BoundSettings.h"
#include "placement/ModuleProgram.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <cstdint>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace scopealloc {

struct ModulePolicy;
struct StackPolicy;

/// -scope-alloc-whole-program: the module is the whole program.
bool wholeProgramRequested();

class BoundFit {
public:
  explicit BoundFit(llvm::Module &M);

  /// Reads the bounds and recursion depths of the policy file targets in
  /// force in \p MP (each target once).
  void addPolicy(const ModulePolicy &MP);
  /// Whether a stack bound applies to some entry point.
  bool hasStackBound() const;

  /// What the policy targets declare for the call graph (entries,
  /// recursion depths, bounds) over the table of assumed sizes.
  const bound::Settings &settings() const { return S; }

  /// Fits every entry point that has a bound, changing the decisions of
  /// \p Plans from keep to demote. Functions without a plan keep all
  /// their allocas.
  void run(const PlannedFunctions &Plans);

  /// Under ThinLTO: warns, once per process, that the bounds are checked
  /// but not fitted.
  void warnNotWholeProgram() const;

private:
  llvm::Module &M;
  /// What the policy declares, read as scopealloc-bound reads it, and its
  /// table of assumed sizes for code outside the bitcode (libc).
  bound::Settings S;
  llvm::SmallPtrSet<const void *, 4> TargetsSeen;
};

} // namespace scopealloc

#endif
