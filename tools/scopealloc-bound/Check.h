//===- Check.h - Holding an image to its declared bounds --------*- C++ -*-===//
//
// --check: every entry point's worst-case stack against its bound (a
// policy's 'entries', else its 'stack-bound'), and every pool's worst case
// (the largest over the entry points) against its size: the policy's
// 'pool-sizes' and the pool's buffer in the image. Each violation is one
// error naming the entry or pool, the bound, where it was declared, and the
// critical chain; an unbounded result under a bound names its causes. With
// no bound declared, only the image's pool buffers that a bounded worst case
// overruns are errors.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_BOUND_CHECK_H
#define SCOPEALLOC_BOUND_CHECK_H

#include "BoundSettings.h"
#include "Bounds.h"
#include "CallGraph.h"
#include "Image.h"

namespace llvm {
class raw_ostream;
}

namespace scopealloc {
namespace bound {

/// The stack bound of entry \p Name, if one is declared.
const Limit *stackLimit(const Settings &S, const std::string &Name);

struct CheckResult {
  unsigned Violations = 0;
  bool StackOver = false; ///< a bounded stack over its bound
};

/// Prints one error (warning, with \p Warn) per violated bound to \p OS.
CheckResult checkBounds(llvm::raw_ostream &OS, const Image &Img,
                        const CallGraph &G, const Settings &S, const Bounds &B,
                        bool Warn = false);

} // namespace bound
} // namespace scopealloc

#endif
