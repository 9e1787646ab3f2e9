//===- Suggest.h - Per-function limits that make stack bounds hold -*- C++ -*-//
//
// --suggest-policy=<file>: for each entry point over its stack bound, the
// functions on its critical chain that keep constant-size allocations in
// their frames (facts: TagStackAlloca; not those a stack scope pins, not
// code compiled with -scope-alloc-facts-only) get a 'frame-budget' in the
// policy's 'functions', the largest such frame first, until the estimated
// bound fits: each demoted byte leaves the frame, and the function then
// calls the runtime's allocation entry points (their chains, from the
// image, count). The estimate is checked by the rebuild: the link's
// --check, and a second --suggest-policy on the rebuilt image, which
// lowers the budgets further if code generation kept more than estimated.
//
// The file written is the input policy with the target's 'functions'
// entries added or lowered (comments of the input are not kept).
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_BOUND_SUGGEST_H
#define SCOPEALLOC_BOUND_SUGGEST_H

#include "BoundSettings.h"
#include "Bounds.h"
#include "CallGraph.h"
#include "Image.h"
#include "PolicyFile.h"

#include <map>

namespace llvm {
class raw_ostream;
}

namespace scopealloc {
namespace bound {

/// Writes the policy to \p Out; reports to \p OS. Returns false when a
/// bound cannot be made to hold (the file is written all the same, with
/// what helps) or the file cannot be written.
bool suggestPolicy(llvm::raw_ostream &OS, llvm::StringRef Out, const Image &Img,
                   const CallGraph &G, const Settings &S);

/// \p File as YAML, with \p Target's 'functions' replaced by \p Functions;
/// \p Header goes first, as comments.
std::string
writePolicy(const PolicyFile &File, const PolicyTarget *Target,
            const std::vector<std::pair<std::string, PolicyFields>> &Functions,
            const std::map<std::string, std::string> &Comments,
            llvm::StringRef Header);

} // namespace bound
} // namespace scopealloc

#endif
