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

#include <optional>

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
  OS << "in function '" << readableName(F->getName()) << "': ";
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

/// The number the IR printer gives unnamed local \p V (%3), counted over
/// its function as LLVM's SlotTracker counts: unnamed arguments, then per
/// block the block if unnamed and its unnamed non-void instructions.
/// printAsOperand would number the whole module on every call, which made
/// naming every buffer of a large module quadratic.
static std::optional<unsigned> localSlot(const Value &V) {
  const Function *F = nullptr;
  if (auto *I = dyn_cast<Instruction>(&V))
    F = I->getFunction();
  else if (auto *A = dyn_cast<Argument>(&V))
    F = A->getParent();
  if (!F || V.hasName() || V.getType()->isVoidTy())
    return std::nullopt;
  unsigned Next = 0;
  for (const Argument &A : F->args())
    if (!A.hasName()) {
      if (&A == &V)
        return Next;
      ++Next;
    }
  for (const BasicBlock &BB : *F) {
    if (!BB.hasName())
      ++Next;
    for (const Instruction &I : BB)
      if (!I.getType()->isVoidTy() && !I.hasName()) {
        if (&I == &V)
          return Next;
        ++Next;
      }
  }
  return std::nullopt;
}

std::string describeValue(const Value &V) {
  // (rustc's debug info has variables without names: its temporaries.)
  if (auto *AI = dyn_cast<AllocaInst>(&V))
    if (SourceVariable SV = findSourceVariable(*AI);
        SV.Var && !SV.Var->getName().empty())
      return SV.Var->getName().str();
  if (StringRef Name = irName(V); !Name.empty()) // also under LTO
    return ("%" + Name).str();
  if (std::optional<unsigned> Slot = localSlot(V))
    return "%" + std::to_string(*Slot);
  std::string S;
  raw_string_ostream OS(S);
  if (V.getType()->isVoidTy())
    V.print(OS); // a void call has no operand name: show the call
  else
    V.printAsOperand(OS, /*PrintType=*/false);
  return StringRef(S).trim().str();
}

/// The location of \p AI's lifetime start (clang puts it on the
/// declaration), the first in the source when there are several.
static const DILocation *lifetimeStartLoc(const AllocaInst &AI) {
  SmallVector<const Value *, 4> Pointers{&AI};
  for (const User *U : AI.users())
    if (isa<BitCastInst>(U) || isa<AddrSpaceCastInst>(U))
      Pointers.push_back(U);
  const DILocation *Best = nullptr;
  for (const Value *P : Pointers)
    for (const User *U : P->users())
      if (auto *II = dyn_cast<IntrinsicInst>(U);
          II && II->getIntrinsicID() == Intrinsic::lifetime_start)
        if (const DILocation *L = II->getDebugLoc().get();
            L && L->getLine() &&
            (!Best || std::make_pair(L->getLine(), L->getColumn()) <
                          std::make_pair(Best->getLine(), Best->getColumn())))
          Best = L;
  return Best;
}

/// How many calls \p L was inlined through.
static unsigned inlineDepth(const DILocation *L) {
  unsigned Depth = 0;
  while ((L = L->getInlinedAt()))
    ++Depth;
  return Depth;
}

/// \p Name without the suffixes the inliner gives cloned values (".i",
/// ".i3", one per level).
static std::string withoutInlinerSuffixes(StringRef Name) {
  for (;;) {
    size_t Dot = Name.rfind(".i");
    if (Dot == StringRef::npos || Dot <= 1)
      break;
    StringRef Tail = Name.substr(Dot + 2);
    if (!all_of(Tail, [](char C) { return C >= '0' && C <= '9'; }))
      break;
    Name = Name.substr(0, Dot);
  }
  return Name.str();
}

static bool hasInlinerSuffix(StringRef Name) {
  return withoutInlinerSuffixes(Name).size() != Name.size();
}

/// A subprogram's name as readableName gives its function's.
static std::string subprogramName(const DISubprogram *SP) {
  if (!SP)
    return "";
  if (!SP->getLinkageName().empty())
    return readableName(SP->getLinkageName());
  return SP->getName().str();
}

BufferPlace placeBuffer(const AllocaInst &AI) {
  BufferPlace P;
  const Function &F = *AI.getFunction();
  LLVMContext &Ctx = AI.getContext();
  P.Subprogram = F.getSubprogram();
  P.Name = describeValue(AI);
  SourceVariable SV = findSourceVariable(AI);
  const DILocation *VarLoc = SV.Loc.get();
  const DILocation *Start = lifetimeStartLoc(AI);
  if (SV.Var) {
    unsigned Line = SV.Var->getLine();
    // The declare's own location has the column of the name; after
    // optimisation the records often say line 0 or a use's line, and the
    // lifetime start has the column of the declaration.
    if (VarLoc && Line && VarLoc->getLine() == Line)
      P.Decl = VarLoc;
    else if (Start && Line && Start->getLine() == Line &&
             Start->getScope()->getSubprogram() ==
                 SV.Var->getScope()->getSubprogram() &&
             (!VarLoc || Start->getInlinedAt() == VarLoc->getInlinedAt()))
      P.Decl = Start;
    else if (Line)
      P.Decl = DILocation::get(Ctx, Line, 0, SV.Var->getScope(),
                               VarLoc ? VarLoc->getInlinedAt() : nullptr);
    else if (VarLoc && VarLoc->getLine())
      P.Decl = VarLoc;
  } else if (Start) {
    P.Decl = Start; // without -g: clang's location-tracking info
  } else if (hasInlinerSuffix(irName(AI))) {
    // An inlined buffer without a lifetime start: the callee, from the
    // use that was inlined the fewest times.
    const DILocation *Use = nullptr;
    for (const User *U : AI.users())
      if (auto *I = dyn_cast<Instruction>(U))
        if (const DILocation *L = I->getDebugLoc().get();
            L && inlineDepth(L) && (!Use || inlineDepth(L) < inlineDepth(Use)))
          Use = L;
    if (Use) {
      DISubprogram *SP = Use->getScope()->getSubprogram();
      P.Decl = DILocation::get(Ctx, SP->getLine(), 0, SP, Use->getInlinedAt());
    }
  }
  P.Function = readableName(F.getName());
  if (!P.Decl || !P.Decl->getInlinedAt())
    return P;
  P.Function = subprogramName(P.Decl->getScope()->getSubprogram());
  for (const DILocation *Call = P.Decl->getInlinedAt(); Call;
       Call = Call->getInlinedAt()) {
    BufferPlace::Call C;
    C.Caller = Call->getInlinedAt()
                   ? subprogramName(Call->getScope()->getSubprogram())
                   : readableName(F.getName());
    if (Call->getFilename() != P.Decl->getFilename())
      C.File = Call->getFilename().str();
    C.Line = Call->getLine();
    P.InlinedInto.push_back(std::move(C));
  }
  if (!SV.Var)
    P.Name = withoutInlinerSuffixes(P.Name);
  return P;
}

} // namespace scopealloc
