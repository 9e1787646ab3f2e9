//===- PolicyUse.h - Policy entries that match nothing ----------*- C++ -*-===//
//
// --check with --policy: a 'functions' entry of the target in force (the
// tag's, else the triple's) that names no function of the image, and a
// 'pools' entry that no function uses and the image does not define, are
// warnings naming the entry and the file:line (most often a typo, or code
// renamed since the policy was written; each compile step sees only its own
// functions, so the link is where "matches nothing" can be said).
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_BOUND_POLICYUSE_H
#define SCOPEALLOC_BOUND_POLICYUSE_H

#include "BoundSettings.h"
#include "Image.h"

namespace llvm {
class raw_ostream;
}

namespace scopealloc {
namespace bound {

/// Prints one warning per entry that matches nothing; returns how many.
unsigned warnUnmatchedPolicyEntries(llvm::raw_ostream &OS, const Image &Img,
                                    const Settings &S);

} // namespace bound
} // namespace scopealloc

#endif
