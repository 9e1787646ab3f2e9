//===- AllocaDecision.h - Where one alloca goes, and why --------*- C++ -*-===//
//
// The planner's verdict on one alloca. ScopeAllocPass fills it in, the
// remarks and the build report (Report.h) read it.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_ALLOCADECISION_H
#define SCOPEALLOC_ALLOCADECISION_H

#include "Scope.h"

#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class AllocaInst;
}

namespace scopealloc {

struct AllocaDecision {
  enum ActionTy { Keep, Demote, Pinned, Rejected };
  llvm::AllocaInst *Alloca;
  Scope S;
  ActionTy Action = Keep;
  std::optional<uint64_t> Size; ///< bytes, when known at compile time
  std::string Pool;             ///< where it moves; empty = workspace
  std::string Reason;           ///< why, for the remark
  std::string Rule;             ///< short rule id, a remark argument
};

} // namespace scopealloc

#endif
