//===- Diagnostics.h - ScopeAlloc errors and warnings -----------*- C++ -*-===//
//
// Errors and warnings that are not optimisation remarks: malformed scopes,
// bad policy values, scope/policy conflicts. They go through the LLVMContext
// so that opt and clang report them their usual way (and fail on errors).
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_DIAGNOSTICS_H
#define SCOPEALLOC_DIAGNOSTICS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/IR/DebugLoc.h"
#include "llvm/IR/DiagnosticInfo.h"
#include <string>

namespace llvm {
class AllocaInst;
class DILocalVariable;
class DILocation;
class DISubprogram;
class Function;
class Instruction;
class Module;
class Value;
} // namespace llvm

namespace scopealloc {

/// A diagnostic of the scope-alloc pass. Prints "scope-alloc: <location>
/// in function 'f': <message>", so it names the thing even without -g.
class ScopeAllocDiagnostic : public llvm::DiagnosticInfo {
public:
  ScopeAllocDiagnostic(llvm::DiagnosticSeverity Severity,
                       const llvm::Function *F, const llvm::Instruction *I,
                       const llvm::Twine &Message);

  void print(llvm::DiagnosticPrinter &DP) const override;
  static bool classof(const llvm::DiagnosticInfo *DI);

private:
  std::string Text;
};

void reportError(const llvm::Function &F, const llvm::Instruction *I,
                 const llvm::Twine &Message);
void reportWarning(const llvm::Function &F, const llvm::Instruction *I,
                   const llvm::Twine &Message);
/// An error about the whole module (its policy), not one function.
void reportModuleError(const llvm::Module &M, const llvm::Twine &Message);

/// The source variable an alloca holds, from its debug records, and where
/// it is declared; empty without debug info.
struct SourceVariable {
  const llvm::DILocalVariable *Var = nullptr;
  llvm::DebugLoc Loc;
};
SourceVariable findSourceVariable(const llvm::AllocaInst &AI);

/// A readable name for an alloca or other value: the source variable when
/// debug info has one, else the IR name, else the printed instruction.
std::string describeValue(const llvm::Value &V);

/// Where a remark places a buffer and the function it names, so that a
/// reader finds it with or without -g, inlined or not, from clang or opt.
struct BufferPlace {
  /// The declaration: the variable's line and, when debug info has it, the
  /// column (of its declare record, else of its lifetime start). Null
  /// when nothing locates the buffer; then Subprogram, if any.
  const llvm::DILocation *Decl = nullptr;
  const llvm::DISubprogram *Subprogram = nullptr;
  /// describeValue(), without the inliner's ".i" suffixes.
  std::string Name;
  /// The function the buffer is declared in, readable (demangled): the
  /// inlined callee for an inlined buffer.
  std::string Function;
  /// For an inlined buffer, each call it was inlined through, innermost
  /// first; the last caller is the function that now holds it.
  struct Call {
    std::string Caller; ///< readable name of the calling function
    std::string File;   ///< the call's file when not Decl's, else ""
    unsigned Line = 0;  ///< the call's line (0: unknown)
  };
  llvm::SmallVector<Call, 2> InlinedInto;
};
BufferPlace placeBuffer(const llvm::AllocaInst &AI);

} // namespace scopealloc

#endif
