//===- Report.h - The per-module JSON report of decisions -------*- C++ -*-===//
//
// With -scope-alloc-report=<file> (or <dir>/), the pass writes one JSON
// document per module: per function, the policy in force, what stays on the
// stack, what moves to which pool, and every allocation's decision with its
// rule and reason (the remark's text). The schema is versioned and documented
// in docs/report-schema.md; scripts/scopealloc-report summarises a build's
// worth of them.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_REPORT_H
#define SCOPEALLOC_REPORT_H

#include "placement/AllocaDecision.h"
#include "policy/StackPolicy.h"

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Function;
class Module;
class raw_ostream;
} // namespace llvm

namespace scopealloc {

struct FunctionDemotion;

/// Written into every report; bump the version when a field changes meaning
/// or disappears (adding a field keeps it).
inline constexpr const char *ReportSchemaName = "scopealloc-report";
inline constexpr int64_t ReportSchemaVersion = 1;

/// True when -scope-alloc-report was given.
bool reportRequested();
/// Its value ("" when not given).
llvm::StringRef reportPathOption();

/// Sums over allocations: static ones (entry block, constant size) count in
/// bytes, the others (VLAs, alloca(n), allocas in loops) in "dynamic".
struct ReportTotals {
  struct Place {
    uint64_t Bytes = 0; ///< static allocations, summed
    /// Pools: the one bump per call (padding, sharing, canaries), as
    /// demotion laid the frame out.
    uint64_t FrameBytes = 0;
    uint64_t Allocations = 0;
    uint64_t Dynamic = 0;
  };
  uint64_t Allocations = 0;
  uint64_t Decisions[3] = {}; ///< keep, demote, pinned
  uint64_t Dynamic[3] = {};
  Place Stack;                        ///< kept and pinned
  std::map<std::string, Place> Pools; ///< demoted, by pool name

  void add(const ReportTotals &Other);
};

/// One allocation as the report shows it; read before the rewrite.
struct AllocationRecord {
  std::string Name; ///< source variable, else IR name, else "<unnamed>"
  std::optional<std::string> IRName, File, InlinedFrom, Scope, Pool;
  std::optional<unsigned> Line;
  std::optional<uint64_t> Size;
  uint64_t Align = 1;
  bool Static = false;
  AllocaDecision::ActionTy Action = AllocaDecision::Keep;
  std::string Rule, Reason;
};

struct FunctionRecord {
  std::string Name, Demangled;
  std::optional<std::string> File;
  std::optional<unsigned> Line;
  StackPolicy Policy;
  ReportTotals Totals;
  std::vector<AllocationRecord> Allocations;
};

class ModuleReport {
public:
  explicit ModuleReport(const llvm::Module &M) : M(M) {}

  /// Records the decisions of \p F; call before they are carried out (the
  /// allocas, their debug records and lifetime markers are read here).
  void addFunction(const llvm::Function &F, const StackPolicy &Policy,
                   llvm::ArrayRef<AllocaDecision> Decisions);
  /// Records how they were carried out: each pool's frame bytes, from the
  /// layout demotion chose. Call right after demoting \p F.
  void addDemotion(const llvm::Function &F, const FunctionDemotion &Demotion);
  /// \p F reported an error; the compile fails, the report says which.
  void addFailedFunction(const llvm::Function &F);
  /// The target's policy \p Policy leaves a function alone (GPU targets);
  /// its Source says why.
  void addUnhandledFunction(const StackPolicy &Policy) {
    ++Seen;
    ++Unhandled;
    UnhandledReason = Policy.Source;
  }

  /// Writes the document where -scope-alloc-report says (or \p Path, in
  /// the same syntax), atomically; an error naming the file when it cannot.
  void write(llvm::StringRef Path = {}) const;

private:
  void print(llvm::raw_ostream &OS) const;

  const llvm::Module &M;
  std::vector<FunctionRecord> Functions;
  std::vector<std::string> Failed;
  ReportTotals Totals;
  uint64_t Seen = 0, WithoutAllocations = 0, Unhandled = 0;
  std::string UnhandledReason;
};

} // namespace scopealloc

#endif
