//===- StackFacts.h - Facts for whole-program bounds ------------*- C++ -*-===//
//
// With -scope-alloc-facts (the wrappers pass it), every function defined in
// the module gets one record in section .scopealloc_facts: the bytes it takes
// from each pool per call (from its FunctionDemotion), its dynamic
// allocations on the stack and in pools, its direct callees, the types of
// its indirect calls, the functions whose address it takes, and whether its
// own address is taken. scopealloc-bound reads them from a linked image,
// together with LLVM's .stack_sizes, to bound stack and pool use per entry
// point. The layout is docs/facts-format.md (constants: FactsFormat.h).
//
// Like .stack_sizes, each record is its own section, non-allocated (it
// costs no memory in the image) and SHF_LINK_ORDER to its function's
// section, so that --gc-sections drops it with the function. IR cannot
// express a non-allocated section, and module-level asm cannot name a
// function defined after it, so the record is an inline-asm statement at
// the start of the function that pushes the section; it emits no code.
// Records are written last, after every IR transformation: a record inlined
// into another function would describe the wrong one. Running the pass again
// replaces them.
//
// -scope-alloc-facts-only writes the records and places nothing: for code
// that must not be rewritten (the runtime itself, start-up code) but whose
// calls a bound must follow.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_STACKFACTS_H
#define SCOPEALLOC_STACKFACTS_H

#include "FunctionFacts.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/PassManager.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace llvm {
class DataLayout;
class Function;
class FunctionType;
class Module;
} // namespace llvm

namespace scopealloc {

struct FunctionDemotion;

/// -scope-alloc-facts or -scope-alloc-facts-only.
bool stackFactsRequested();
/// -scope-alloc-facts-only.
bool onlyStackFactsRequested();

/// The type signature that indirect calls and address-taken functions are
/// matched by, across modules: IR type syntax with structs spelled out
/// (no names, which differ between modules), e.g. "i32 (ptr, i64)".
std::string typeSignature(const llvm::FunctionType *FT);

/// The facts of \p F as it is now, but for its pool frames.
FunctionFacts collectFacts(llvm::Function &F);

/// Adds what \p D (F's demotion) takes from the pools to \p Facts.
void addPoolFacts(FunctionFacts &Facts, const llvm::Function &F,
                  const FunctionDemotion &D);

/// The assembly of \p Facts' record: a .pushsection of .scopealloc_facts
/// linked to the function's symbol (in its COMDAT group if it has one), the
/// record's bytes, .popsection.
std::string recordAssembly(const FunctionFacts &Facts, const llvm::Function &F);

/// Marks, on an LTO compile step, a function whose facts the link must write
/// (-scope-alloc-facts cannot be passed to lld).
inline constexpr const char *FactsRequestedAttr = "scope-alloc-facts";

/// Collects what demotion did per function, then writes every record.
class StackFacts {
public:
  /// Does nothing unless facts were requested and the target writes ELF.
  /// \p AtLink: the LTO backend's run, which writes the records of the
  /// functions whose compile step asked for them (FactsRequestedAttr).
  explicit StackFacts(llvm::Module &M, bool AtLink = false);

  void addDemotion(llvm::Function &F, const FunctionDemotion &D);
  /// Writes one record into each defined function; true if M changed.
  bool emit();

private:
  llvm::Module &M;
  bool AtLink;
  bool Enabled;
  /// Pool frames and pool allocations, read while the demotion is fresh.
  llvm::DenseMap<const llvm::Function *, FunctionFacts> Demotions;
};

/// -scope-alloc-facts-only: records for every function, nothing placed.
llvm::PreservedAnalyses emitStackFactsOnly(llvm::Module &M);

} // namespace scopealloc

#endif
