//===- Diagnostics.cpp - ScopeAlloc errors and warnings -------------------===//
#include "Diagnostics.h"

#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace scopealloc {

static int diagnosticKind() {
  static const int Kind = getNextAvailablePluginDiagnosticKind();
  return Kind;
}

static std::string locationPrefix(const Function *F, const Instruction *I) {
  std::string S;
  raw_string_ostream OS(S);
  if (!F)
    return S;
  const DILocation *Loc = I ? I->getDebugLoc().get() : nullptr;
  if (Loc)
    OS << Loc->getFilename() << ":" << Loc->getLine() << ": ";
  else if (const DISubprogram *SP = F->getSubprogram())
    OS << SP->getFilename() << ":" << SP->getLine() << ": ";
  OS << "in function '" << F->getName() << "': ";
  return S;
}

ScopeAllocDiagnostic::ScopeAllocDiagnostic(DiagnosticSeverity Severity,
                                           const Function *F,
                                           const Instruction *I,
                                           const Twine &Message)
    : DiagnosticInfo(diagnosticKind(), Severity),
      Text(locationPrefix(F, I) + Message.str()) {}

void ScopeAllocDiagnostic::print(DiagnosticPrinter &DP) const {
  DP << "scope-alloc: " << Text;
}

bool ScopeAllocDiagnostic::classof(const DiagnosticInfo *DI) {
  return DI->getKind() == diagnosticKind();
}

void reportError(const Function &F, const Instruction *I, const Twine &Msg) {
  F.getContext().diagnose(ScopeAllocDiagnostic(DS_Error, &F, I, Msg));
}

void reportWarning(const Function &F, const Instruction *I, const Twine &Msg) {
  F.getContext().diagnose(ScopeAllocDiagnostic(DS_Warning, &F, I, Msg));
}

void reportModuleError(const Module &M, const Twine &Msg) {
  M.getContext().diagnose(
      ScopeAllocDiagnostic(DS_Error, nullptr, nullptr, Msg));
}

SourceVariable findSourceVariable(const AllocaInst &AI) {
  // Declares first; at -O2 InstCombine has often turned them into values.
  auto *A = const_cast<AllocaInst *>(&AI);
  for (DbgVariableRecord *DVR : findDVRDeclares(A))
    return {DVR->getVariable(), DVR->getDebugLoc()};
  for (DbgDeclareInst *DDI : findDbgDeclares(A))
    return {DDI->getVariable(), DDI->getDebugLoc()};
  SmallVector<DbgVariableIntrinsic *, 4> Intrinsics;
  SmallVector<DbgVariableRecord *, 4> Records;
  findDbgUsers(Intrinsics, A, &Records);
  for (DbgVariableRecord *DVR : Records)
    return {DVR->getVariable(), DVR->getDebugLoc()};
  for (DbgVariableIntrinsic *DVI : Intrinsics)
    return {DVI->getVariable(), DVI->getDebugLoc()};
  return {};
}

std::string describeValue(const Value &V) {
  if (auto *AI = dyn_cast<AllocaInst>(&V))
    if (SourceVariable SV = findSourceVariable(*AI); SV.Var)
      return SV.Var->getName().str();
  if (V.hasName())
    return ("%" + V.getName()).str();
  std::string S;
  raw_string_ostream OS(S);
  if (V.getType()->isVoidTy())
    V.print(OS); // a void call has no operand name: show the call
  else
    V.printAsOperand(OS, /*PrintType=*/false);
  return StringRef(S).trim().str();
}

} // namespace scopealloc
