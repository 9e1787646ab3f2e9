//===- AllocaDecision.h - Where one alloca goes, and why --------*- C++ -*-===//
//
// The placement's verdict on one alloca, and the rules that reach it.
// Placement.h decides; the remarks and the build report (Report.h) read it.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_ALLOCADECISION_H
#define SCOPEALLOC_ALLOCADECISION_H

#include "Scope.h"

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class AllocaInst;
}

namespace scopealloc {

/// The rules of placement, in the order they are tried. Their names
/// (ruleName) are what the remarks and the report print as the rule.
enum class PlacementRule : uint8_t {
  CannotMove,    ///< "cannot-move": the IR needs it on the stack
  ScopeStack,    ///< "scope-stack": its scope requires the stack
  ScopePool,     ///< "scope-pool": its scope requires a pool
  DynamicSize,   ///< "dynamic-size": run-time size, the policy demotes
  DynamicKeep,   ///< "dynamic-keep": run-time size, the policy keeps
  DynamicReject, ///< "dynamic-reject": run-time size, the policy rejects
  OverLimit,     ///< "over-limit": larger than the limit
  WithinLimit,   ///< "within-limit": at most the limit
  OverBudget,    ///< "over-budget": within the limit, but not the budget
  WithDynamic,   ///< "with-dynamic": moves with the other dynamic allocas
  FitStackBound, ///< "fit-stack-bound": moved so that an entry point's
                 ///< estimated stack fits its bound (BoundFit.h)
};

llvm::StringRef ruleName(PlacementRule R);

struct AllocaDecision {
  enum ActionTy { Keep, Demote, Pinned, Rejected };

  /// The rule that decided. Reads as its name where text is wanted (the
  /// report copies it into a string).
  struct RuleField {
    PlacementRule Id = PlacementRule::WithinLimit;
    RuleField &operator=(PlacementRule R) {
      Id = R;
      return *this;
    }
    bool operator==(PlacementRule R) const { return Id == R; }
    bool operator!=(PlacementRule R) const { return Id != R; }
    operator std::string() const { return ruleName(Id).str(); }
  };

  llvm::AllocaInst *Alloca;
  Scope S;
  ActionTy Action = Keep;
  std::optional<uint64_t> Size; ///< bytes, when known at compile time
  std::string Pool;             ///< where it moves; empty = workspace
  std::string Reason;           ///< why, for the remark
  RuleField Rule;               ///< a remark argument
};

} // namespace scopealloc

#endif
