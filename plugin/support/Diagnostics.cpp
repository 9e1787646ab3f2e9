//===- Diagnostics.cpp - ScopeAlloc errors and warnings -------------------===//
#include "support/Diagnostics.h"
#include "LLVMCompat.h"
#include "facts/LTODeferral.h"
#include "support/ValueNames.h"

#include "llvm/BinaryFormat/Dwarf.h"
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

/// Whether \p Expr describes a variable through the location without
/// first loading from it (no leading DW_OP_deref).
static bool isDirect(const DIExpression *Expr) {
  return Expr->getNumElements() == 0 ||
         Expr->expr_op_begin()->getOp() != dwarf::DW_OP_deref;
}

SourceVariable findSourceVariable(const AllocaInst &AI) {
  // Only records that describe the memory of the alloca name its variable:
  // its declare, the assignment markers linked to it, and value records
  // that read through it (DW_OP_deref, what InstCombine makes of a
  // declare). A plain value record of the alloca's address describes a
  // pointer to it, e.g. the parameter of an inlined callee that got the
  // buffer (`fill(image)` inlined: `dst` = &image), not the buffer.
  auto *A = const_cast<AllocaInst *>(&AI);
  for (DbgVariableRecord *DVR : findDVRDeclares(A))
    if (isDirect(DVR->getExpression()))
      return {DVR->getVariable(), DVR->getDebugLoc()};
  for (DbgDeclareInst *DDI : findDbgDeclares(A))
    if (isDirect(DDI->getExpression()))
      return {DDI->getVariable(), DDI->getDebugLoc()};
  for (DbgVariableRecord *DVR : at::getDVRAssignmentMarkers(A))
    if (DVR->getAddress() == A && isDirect(DVR->getAddressExpression()))
      return {DVR->getVariable(), DVR->getDebugLoc()};
  for (DbgAssignIntrinsic *DAI : at::getAssignmentMarkers(A))
    if (DAI->getAddress() == A && isDirect(DAI->getAddressExpression()))
      return {DAI->getVariable(), DAI->getDebugLoc()};
  SmallVector<DbgVariableIntrinsic *, 4> Intrinsics;
  SmallVector<DbgVariableRecord *, 4> Records;
  findDbgUsers(Intrinsics, A, &Records);
  auto ReadsThrough = [A](auto *D) {
    return !D->hasArgList() && D->getVariableLocationOp(0) == A &&
           !isDirect(D->getExpression());
  };
  for (DbgVariableRecord *DVR : Records)
    if (DVR->isDbgValue() && ReadsThrough(DVR))
      return {DVR->getVariable(), DVR->getDebugLoc()};
  for (DbgVariableIntrinsic *DVI : Intrinsics)
    if (isa<DbgValueInst>(DVI) && ReadsThrough(DVI))
      return {DVI->getVariable(), DVI->getDebugLoc()};
  return {};
}

std::string describeValue(const Value &V) {
  if (auto *AI = dyn_cast<AllocaInst>(&V))
    if (SourceVariable SV = findSourceVariable(*AI); SV.Var)
      return SV.Var->getName().str();
  if (StringRef Name = irName(V); !Name.empty()) // also under LTO
    return ("%" + Name).str();
  std::string S;
  raw_string_ostream OS(S);
  if (V.getType()->isVoidTy())
    V.print(OS); // a void call has no operand name: show the call
  else
    V.printAsOperand(OS, /*PrintType=*/false);
  return StringRef(S).trim().str();
}

} // namespace scopealloc
