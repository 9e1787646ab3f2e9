//===- ModuleProgram.h - The whole-program module as a call graph -*- C++
//-*-===//
//
// At a whole-program link (full LTO, or opt -scope-alloc-whole-program) the
// module is the program: this makes it the program image that
// scopealloc-bound's call graph is built from (analysis/ProgramImage.h), so
// that the pass's stack-bound fit (BoundFit.h) and its static frame
// planning (StaticFramePlan.h) use the one call graph and its rules:
//
//   records      one per defined function: the facts the pass would write
//                (StackFacts.h) with the runtime calls its plan adds, and
//                only the dynamic allocations that stay on the stack;
//   addresses    the I-th defined function is at (I + 1) * 16;
//   frame sizes  the frame estimate of each function under its plan
//                (docs/bound-fit.md), without the call's own overhead;
//   entries      as in an image, constructors and destructors from
//                llvm.global_ctors/dtors.
//
// Code outside the bitcode without an assumed size (native start-up code, a
// runtime archive the link adds) counts 0 in the graph instead of making it
// unbounded: only the link's check sees its frames (isOutside).
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_MODULEPROGRAM_H
#define SCOPEALLOC_MODULEPROGRAM_H

#include "BoundSettings.h"
#include "CallGraph.h"
#include "ProgramImage.h"
#include "TargetStack.h"
#include "placement/AllocaDecision.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Alignment.h"

#include <cstdint>
#include <set>
#include <vector>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace scopealloc {

struct StackPolicy;

/// The decisions planned for one function, which a whole-program step may
/// still change (the fit moves buffers, the static plan places frames).
struct PlannedFunction {
  const StackPolicy *Policy;
  llvm::MutableArrayRef<AllocaDecision> Decisions;
};
using PlannedFunctions =
    llvm::DenseMap<const llvm::Function *, PlannedFunction>;

/// The per-frame overhead of \p F on its target (docs/bound-fit.md), or
/// -scope-alloc-fit-frame-overhead.
uint64_t fitFrameOverhead(const llvm::Function &F);

class ModuleProgram {
public:
  /// \p S: what the policy declares (entries, depths, assumed sizes); the
  /// program sets the target's call overhead and red zone, and the stack
  /// below a call into the runtime, in its own copy.
  ModuleProgram(llvm::Module &M, const bound::Settings &S,
                const PlannedFunctions &Plans);

  /// The call graph of the plans as they stand.
  bound::CallGraph graph();
  const bound::Settings &settings() const { return S; }

  /// The function of the module at \p Address, or null.
  llvm::Function *functionAt(uint64_t Address) const;
  /// \p F's record (the symbol name, its facts).
  const FunctionFacts &record(const llvm::Function &F) const;
  /// Whether node \p N of the last graph is code outside the bitcode
  /// without an assumed size.
  bool isOutside(unsigned N) const { return OutsideNodes.count(N); }

  /// \p F now demotes a buffer to \p Pool: it may call the runtime's slow
  /// path. Whether that added a call (undo with removeRuntimeCall).
  bool addRuntimeCall(llvm::Function &F, llvm::StringRef Pool);
  void removeRuntimeCall(llvm::Function &F);
  /// \p F's decisions changed: its frame estimate is made again.
  void invalidateFrame(const llvm::Function &F) { FrameCache.erase(&F); }

private:
  void assumeRuntimeStack();
  void buildImage();
  void addSymbol(std::string Name, uint64_t Address, bool Local);
  void keepStackDynamics(llvm::Function &F, FunctionFacts &Facts) const;
  uint64_t frameSize(llvm::Function &F);

  llvm::Module &M;
  bound::Settings S;
  const PlannedFunctions &Plans;
  TargetStack Target;
  llvm::Align StackAlign;
  bound::Image Img;
  std::vector<llvm::Function *> Functions; ///< by address
  llvm::DenseMap<const llvm::Function *, unsigned> RecordOf;
  llvm::DenseMap<const llvm::Function *, uint64_t> FrameCache;
  std::set<unsigned> OutsideNodes; ///< of the last graph
};

} // namespace scopealloc

#endif
