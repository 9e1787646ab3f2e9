//===- LTODeferral.h - Decisions deferred to the LTO link -------*- C++ -*-===//
//
// Under -flto and -flto=thin the compile step only prepares bitcode: the
// frames that matter are built at the link, after cross-module inlining. So
// the scope-alloc pass of a compile step's pipeline does not decide there;
// it records what the link step needs, and the pass runs in the LTO backend
// (lld --load-pass-plugin: full LTO's last extension point, ThinLTO's
// post-link optimiser):
//
//   function attribute "scope-alloc-compile-options"="limit=0;policy=/p.yaml"
//       the compile step's -scope-alloc-* policy options (lld 19 parses
//       -mllvm options before it loads plugins, so it cannot take them), per
//       function, so that full LTO's merged module keeps each file's
//       policy; paths made absolute. Other -scope-alloc-* options given to
//       the compile step are lost, with a warning.
//   function attribute "scope-alloc-slow-path"="standard"
//       an explicit -scope-alloc-slow-path of the compile step, which knows
//       the runtime the program links (RuntimeABI.h)
//   !scope-alloc.report = !{!"/abs/reports/"}
//       the compile step's -scope-alloc-report, written at the link
//   !scope-alloc.name !{!"buf"} on each named alloca
//       its IR name, which lld's LTO context drops (remarks and reports
//       name variables by it when there is no debug info)
//   !scope-alloc.buffer-policy !{i64 limit, !"source", !"dynamic rule",
//                                !"source", !"pool", !"source"} on each alloca
//       the per-buffer settings of the policy of the function it is written
//       in, which it keeps when the link inlines it into a function of
//       another file (whose frame budget then applies); an alloca in an
//       address space the policy gives a scope gets that !scope
//   @scopealloc.lto.deferred, in llvm.used, pointing at the undefined
//       __scopealloc_lto_link_without_pass_plugin
//       removed by the pass at the link; a link that does not load the
//       plugin fails naming that symbol instead of leaving every frame
//       unchecked
//
// A module whose allocas a sanitizer instruments before the link (ASan,
// HWASan, MTE stack tagging, MSan) is decided at the compile step as
// without LTO; its functions carry "scope-alloc-decided" so that the link
// step leaves them alone, as do the functions the link step decided (a
// plugin loaded twice into lld decides once).
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_LTODEFERRAL_H
#define SCOPEALLOC_LTODEFERRAL_H

#include "PolicySettings.h"
#include "policy/PolicyOptions.h"
#include "policy/StackPolicy.h"
#include "scopealloc/abi_constants.h"

#include "llvm/ADT/StringMap.h"
#include <string>
#include <vector>

namespace llvm {
class AllocaInst;
class LLVMContext;
class MDNode;
class Function;
class Module;
class Value;
} // namespace llvm

namespace scopealloc {

inline constexpr const char *CompileOptionsAttr = CompileOptionsAttribute;
inline constexpr const char *DecidedAttr = "scope-alloc-decided";
/// On the functions adoptForeignBitcode gave the link line's options: an
/// error in them is the link line's, not a compile step's.
inline constexpr const char *LinkOptionsAdoptedAttr = "scope-alloc-link-options";
inline constexpr const char *ReportPathsMetadata = "scope-alloc.report";
inline constexpr const char *BufferPolicyMetadata = "scope-alloc.buffer-policy";
inline constexpr const char *LinkMarkerSymbol = SCOPEALLOC_SYM_LTO_LINK_MARKER;

/// The per-buffer settings of \p P, as recorded on allocas (above).
llvm::MDNode *bufferPolicyNode(llvm::LLVMContext &C, const StackPolicy &P);

/// Whether clang prepared \p M for an LTO link (-flto, -flto=thin): the
/// module flags it adds then ("ThinLTO", "EnableSplitLTOUnit",
/// "UnifiedLTO").
bool isLTOPreLinkModule(const llvm::Module &M);

/// The sanitizer that instruments \p M's allocas before the link, which
/// keeps the decisions at the compile step; empty when there is none.
std::string sanitizerInstrumentingAllocas(const llvm::Module &M);

/// Records in \p M what the link step needs (see above): the -scope-alloc-*
/// policy options on every defined function, the -scope-alloc-report path,
/// and the marker. \p Policy is the module's, already reported; the
/// functions' attributes are checked here, so that their errors stop the
/// compile step. False after such an error (nothing is recorded).
bool deferToLink(llvm::Module &M, const ModulePolicy &Policy);

/// \p Base with the per-buffer settings recorded on \p AI (above), or
/// std::nullopt when nothing was recorded.
std::optional<StackPolicy> recordedBufferPolicy(const llvm::AllocaInst &AI,
                                                const StackPolicy &Base);

/// At an LTO link run by scopealloc-clang (LinkOptionsVariable set), the
/// functions of bitcode that no ScopeAlloc compile step prepared (rustc's
/// -Clinker-plugin-lto objects, plain `clang -flto`) get the link's options
/// as their compile options, and facts, so that the link decides them too,
/// and the link's report directory (LinkReportVariable, from
/// SCOPEALLOC_REPORT_DIR) as their recorded report path; at other links
/// they stay as they are. True when any function changed.
bool adoptForeignBitcode(llvm::Module &M);

/// Marks \p M's defined functions as decided (see above).
void markDecided(llvm::Module &M);

/// Whether \p M carries the marker deferToLink leaves: bitcode a compile
/// step prepared for the link.
bool hasLinkMarker(const llvm::Module &M);

/// Removes the marker deferToLink left (the pass is running now); true
/// when there was one.
bool removeLinkMarker(llvm::Module &M);

/// The report paths compile steps recorded in \p M, without repeats.
std::vector<std::string> recordedReportPaths(const llvm::Module &M);

/// The module policy of each function: the compile step's options it
/// carries (layers 1-6 computed for them, once per distinct text), else
/// \p Default. Warnings of recorded options were reported at the compile
/// step; errors (a policy file gone since) are reported here.
class CompileStepPolicies {
public:
  CompileStepPolicies(const llvm::Module &M, const ModulePolicy &Default,
                      const PolicyOptions &Parameters)
      : M(M), Default(Default), Parameters(Parameters) {}
  /// Null after an error, which was reported.
  const ModulePolicy *forFunction(const llvm::Function &F);

private:
  const llvm::Module &M;
  const ModulePolicy &Default;
  const PolicyOptions &Parameters;
  llvm::StringMap<std::optional<ModulePolicy>> ByText;
};

} // namespace scopealloc

#endif
