//===- ScopeTracking.cpp - Keep !scope on allocas through the optimiser ---===//
#include "passes/ScopeTracking.h"
#include "OptionCategory.h"
#include "Scope.h"
#include "facts/LTODeferral.h"
#include "policy/BufferHome.h"
#include "support/Diagnostics.h"
#include "support/ValueNames.h"

#include "llvm/ADT/Any.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/IR/ValueHandle.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Debug.h"

#include <climits>
#include <memory>
#include <optional>
#include <vector>

#define DEBUG_TYPE "scope-alloc-tracking"

using namespace llvm;

static cl::opt<bool> TrackScopes(
    "scope-alloc-track-scopes", cl::cat(scopealloc::optionCategory()),
    cl::Hidden, cl::init(true),
    cl::desc("Put !scope back on allocas that optimisations rebuilt "
             "(ScopeTracking.h); off only to measure or debug it"));

namespace scopealloc {

namespace {

/// Position of an alloca outside the entry block (SROA leaves those alone).
constexpr unsigned NotInEntry = UINT_MAX;
/// Calls noted per alloca: enough to recognise a piece by one of them.
constexpr unsigned MaxNotedCalls = 16;

/// What SROA keeps of a call it rewrites for a piece: the callee and the
/// operands with an identity of their own (globals, arguments), e.g.
/// memcpy(piece, @g1, 2048) for memcpy(whole, @g1, 2048).
struct CallSignature {
  const Value *Callee = nullptr;
  SmallVector<const Value *, 4> Operands;
  bool operator==(const CallSignature &O) const {
    return Callee == O.Callee && Operands == O.Operands;
  }
};

CallSignature signature(const CallBase &CB) {
  CallSignature S;
  S.Callee = CB.getCalledOperand();
  for (const Value *Op : CB.args())
    if (isa<GlobalValue>(Op) || isa<Argument>(Op))
      S.Operands.push_back(Op);
  return S;
}

/// One alloca as it was before a pass.
struct NotedAlloca {
  WeakTrackingVH Now; ///< follows RAUW; null once deleted
  /// The tracked metadata it had, by kind (TrackedKinds); ScopeMD is !scope.
  SmallVector<std::pair<unsigned, MDNode *>, 2> Tracked;
  MDNode *ScopeMD = nullptr;
  std::string Name; ///< scoped ones: to name it once a pass merged it away
  unsigned Position = NotInEntry; ///< among the entry block's allocas
  /// Calls (memcpy, a callee taking the buffer, ...) that used it: a piece
  /// SROA makes of it takes them over, or gets a copy of them.
  SmallVector<WeakVH, 4> Calls;
  SmallVector<CallSignature, 4> Signatures;
};

struct Snapshot {
  std::string PassID;
  std::vector<NotedAlloca> Allocas; ///< empty: nothing scoped to track
};

/// A function with scoped allocas, before a module pass.
struct NotedFunction {
  WeakTrackingVH Now;            ///< follows RAUW (MergeFunctions replacing it)
  const Function *Was = nullptr; ///< for identity only: may be deleted
  std::string Name;
  /// Its entry block's allocas, in order: scope (or null) and name.
  SmallVector<std::pair<MDNode *, std::string>, 4> Allocas;
};

struct ModuleSnapshot {
  std::string PassID;
  std::vector<NotedFunction> Functions;
};

/// A name for \p AI that costs no printing (describeValue prints unnamed
/// values, which numbers the whole module): the source variable, its IR
/// name, else its place among the entry block's allocas.
std::string cheapName(const AllocaInst &AI, unsigned Position) {
  if (SourceVariable SV = findSourceVariable(AI); SV.Var)
    return SV.Var->getName().str();
  if (StringRef Name = irName(AI); !Name.empty())
    return ("%" + Name).str();
  return Position == NotInEntry
             ? std::string("an unnamed alloca")
             : "the unnamed alloca #" + std::to_string(Position + 1) +
                   " of the entry block";
}

/// The text of a scope's metadata, for messages.
std::string scopeText(MDNode *MD) {
  if (!MD)
    return "none";
  auto *Str = MD->getNumOperands() == 1
                  ? dyn_cast_or_null<MDString>(MD->getOperand(0).get())
                  : nullptr;
  return Str ? "'" + Str->getString().str() + "'" : "malformed";
}

unsigned strength(MDNode *MD);

/// The scope of \p Lost's buffer is now \p Got's: an error when memory
/// that must come from a pool no longer would, a warning when a buffer
/// that must stay on the stack may now come from a pool (still correct,
/// not what the code asked for); nothing when \p Lost had no constraint
/// (or a malformed one, which scope-alloc reports where it remains).
std::optional<DiagnosticSeverity> mergeSeverity(MDNode *Lost, MDNode *Got) {
  if (Lost == Got)
    return std::nullopt;
  unsigned L = strength(Lost), G = strength(Got);
  if (L == 2)
    return DS_Error;
  if (L == 1 && G != 1 && G != 3)
    return DS_Warning;
  return std::nullopt;
}

/// The calls that use \p AI, through address computations.
template <typename Fn> void forEachCallUsing(AllocaInst &AI, Fn Visit) {
  SmallVector<Value *, 8> Work{&AI};
  SmallPtrSet<Value *, 8> Seen;
  unsigned Found = 0;
  while (!Work.empty() && Found < MaxNotedCalls) {
    Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second)
      continue;
    for (User *U : V->users()) {
      if (isa<GetElementPtrInst>(U) || isa<CastInst>(U)) {
        Work.push_back(U);
      } else if (auto *CB = dyn_cast<CallBase>(U)) {
        Visit(CB);
        ++Found;
      }
    }
  }
}

/// How strongly a scope constrains placement, for pieces that cannot be
/// told apart: a malformed scope (scope-alloc reports it), a pool, the
/// stack, none.
unsigned strength(MDNode *MD) {
  if (!MD)
    return 0;
  auto *Str = MD->getNumOperands() == 1
                  ? dyn_cast_or_null<MDString>(MD->getOperand(0).get())
                  : nullptr;
  if (!Str)
    return 3;
  Expected<Scope> S = parseScopeSpelling(Str->getString());
  if (!S) {
    consumeError(S.takeError());
    return 3;
  }
  return S->requiresPool() ? 2 : S->requiresStack() ? 1 : 0;
}

class ScopeTracker {
public:
  void before(StringRef PassID, Any IR);
  void after(StringRef PassID, Any IR);
  void invalidated(StringRef PassID);

private:
  static const Function *function(Any IR) {
    const Function *const *F = llvm::any_cast<const Function *>(&IR);
    return F ? *F : nullptr;
  }
  static const Module *module(Any IR) {
    const Module *const *M = llvm::any_cast<const Module *>(&IR);
    return M ? *M : nullptr;
  }
  void beforeModule(StringRef PassID, Module &M);
  void afterModule(StringRef PassID);
  void checkMerged(StringRef PassID, Function &F,
                   DenseMap<AllocaInst *, SmallVector<NotedAlloca *, 2>> &By);
  bool moduleHasScopes(const Module &M);
  void restore(Function &F, Snapshot &S);
  void scopePieces(Function &F, Snapshot &S,
                   const DenseMap<AllocaInst *, unsigned> &Alive);

  /// Put back on the allocas: !scope, and what the LTO compile step
  /// recorded on each (LTODeferral.h: its IR name, its function's policy).
  unsigned ScopeKind = 0;
  SmallVector<unsigned, 3> TrackedKinds;
  /// Sets \p From's tracked metadata on \p To where \p To has none.
  void copyTracked(const NotedAlloca &From, AllocaInst &To);
  /// One entry per function pass being run (nested pass managers nest).
  SmallVector<Snapshot, 4> Stack;
  /// One entry per module pass being run.
  SmallVector<ModuleSnapshot, 2> ModuleStack;
  void noteKinds(LLVMContext &C);
  /// Whether the module being compiled has anything to track (each
  /// PassBuilder has its own tracker, ThinLTO backends included).
  const Module *ScannedModule = nullptr;
  std::string ScannedModuleID;
  bool ScannedModuleHasScopes = false;
};

bool isTracked(StringRef PassID) {
  // Pass managers and adaptors only run passes that report themselves.
  return !isSpecialPass(PassID, {"PassManager", "PassAdaptor"});
}

// Scopes only come from the input (metadata on allocas and calls) or from
// annotations, which scope-alloc-source-scopes turns into metadata; no pass
// makes them from nothing. A module without either costs one scan.
bool ScopeTracker::moduleHasScopes(const Module &M) {
  if (ScannedModule == &M && ScannedModuleID == M.getModuleIdentifier())
    return ScannedModuleHasScopes;
  ScannedModule = &M;
  ScannedModuleID = M.getModuleIdentifier();
  ScannedModuleHasScopes = false;
  for (const Function &F : M) {
    if (F.getIntrinsicID() == Intrinsic::var_annotation && !F.use_empty()) {
      ScannedModuleHasScopes = true;
      return true;
    }
    for (const BasicBlock &BB : F)
      for (const Instruction &I : BB)
        if (I.hasMetadataOtherThanDebugLoc() &&
            any_of(TrackedKinds,
                   [&](unsigned Kind) { return I.getMetadata(Kind); })) {
          ScannedModuleHasScopes = true;
          return true;
        }
  }
  return false;
}

void ScopeTracker::noteKinds(LLVMContext &C) {
  if (ScopeKind)
    return;
  ScopeKind = C.getMDKindID(ScopeMetadataName);
  TrackedKinds = {ScopeKind, C.getMDKindID(NameMetadata),
                  C.getMDKindID(BufferPolicyMetadata),
                  C.getMDKindID(HomeMetadata)};
}

void ScopeTracker::before(StringRef PassID, Any IR) {
  if (!TrackScopes || !isTracked(PassID))
    return;
  if (const Module *M = module(IR)) {
    beforeModule(PassID, const_cast<Module &>(*M));
    return;
  }
  const Function *CF = function(IR);
  if (!CF)
    return;
  Function &F = const_cast<Function &>(*CF);
  Snapshot &S = Stack.emplace_back();
  S.PassID = PassID.str();
  if (F.isDeclaration())
    return;
  noteKinds(F.getContext());
  if (!moduleHasScopes(*F.getParent()))
    return;
  bool AnyScoped = false;
  unsigned Position = 0;
  for (BasicBlock &BB : F) {
    bool Entry = &BB == &F.getEntryBlock();
    for (Instruction &I : BB) {
      auto *AI = dyn_cast<AllocaInst>(&I);
      if (!AI)
        continue;
      SmallVector<std::pair<unsigned, MDNode *>, 2> Tracked;
      if (AI->hasMetadataOtherThanDebugLoc())
        for (unsigned Kind : TrackedKinds)
          if (MDNode *MD = AI->getMetadata(Kind))
            Tracked.push_back({Kind, MD});
      if (!Entry && Tracked.empty())
        continue;
      AnyScoped |= !Tracked.empty();
      NotedAlloca &N = S.Allocas.emplace_back();
      N.Now = AI;
      N.ScopeMD = AI->getMetadata(ScopeKind);
      N.Tracked = std::move(Tracked);
      N.Position = Entry ? Position++ : NotInEntry;
      if (N.ScopeMD)
        N.Name = cheapName(*AI, N.Position);
    }
  }
  if (!AnyScoped) {
    S.Allocas.clear();
    return;
  }
  for (NotedAlloca &N : S.Allocas)
    if (N.Position != NotInEntry)
      forEachCallUsing(*cast<AllocaInst>(N.Now), [&](CallBase *CB) {
        N.Calls.emplace_back(CB);
        CallSignature Sig = signature(*CB);
        if (!Sig.Operands.empty())
          N.Signatures.push_back(std::move(Sig));
      });
}

void ScopeTracker::after(StringRef PassID, Any IR) {
  if (module(IR)) {
    afterModule(PassID);
    return;
  }
  const Function *CF = function(IR);
  if (!CF || !isTracked(PassID) || Stack.empty() ||
      Stack.back().PassID != PassID)
    return;
  Snapshot S = std::move(Stack.back());
  Stack.pop_back();
  if (!S.Allocas.empty())
    restore(const_cast<Function &>(*CF), S);
}

void ScopeTracker::invalidated(StringRef PassID) {
  if (!Stack.empty() && Stack.back().PassID == PassID)
    Stack.pop_back();
  else if (!ModuleStack.empty() && ModuleStack.back().PassID == PassID)
    afterModule(PassID); // a module pass that invalidates everything
}

// MergeFunctions (a hand-written pipeline's 'mergefunc', clang's
// -fmerge-functions) compares instructions without their metadata: two
// functions that differ only in their buffers' scopes become one, the
// other a thunk calling it, or replaced by it. Noted before any module
// pass: each function with a scoped alloca, its allocas' scopes in order.
void ScopeTracker::beforeModule(StringRef PassID, Module &M) {
  ModuleSnapshot &S = ModuleStack.emplace_back();
  S.PassID = PassID.str();
  noteKinds(M.getContext());
  if (!moduleHasScopes(M))
    return;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    NotedFunction N;
    bool Scoped = false;
    for (Instruction &I : F.getEntryBlock())
      if (auto *AI = dyn_cast<AllocaInst>(&I)) {
        MDNode *MD = AI->getMetadata(ScopeKind);
        Scoped |= MD != nullptr;
        N.Allocas.push_back({MD, cheapName(*AI, N.Allocas.size())});
      }
    if (!Scoped)
      continue;
    N.Now = &F;
    N.Was = &F;
    N.Name = F.getName().str();
    S.Functions.push_back(std::move(N));
  }
}

/// The function \p F only forwards to (a thunk: a call and a return, no
/// allocas), or null.
static Function *thunkTarget(Function &F) {
  if (F.isDeclaration() || F.size() != 1)
    return nullptr;
  Function *Target = nullptr;
  for (Instruction &I : F.getEntryBlock()) {
    if (isa<AllocaInst>(I))
      return nullptr;
    if (auto *CB = dyn_cast<CallBase>(&I)) {
      if (isa<IntrinsicInst>(CB))
        continue;
      if (Target)
        return nullptr;
      Target = dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts());
      if (!Target)
        return nullptr;
    }
  }
  return Target;
}

void ScopeTracker::afterModule(StringRef PassID) {
  if (ModuleStack.empty() || ModuleStack.back().PassID != PassID)
    return;
  ModuleSnapshot S = std::move(ModuleStack.back());
  ModuleStack.pop_back();
  for (NotedFunction &N : S.Functions) {
    Value *Now = N.Now;
    if (auto *GA = dyn_cast_or_null<GlobalAlias>(Now))
      Now = GA->getAliaseeObject();
    auto *F = dyn_cast_or_null<Function>(Now);
    if (!F)
      continue; // deleted
    // Replaced by another function, or by a thunk of one (MergeFunctions
    // writes a new function and replaces the old one with it), or made one.
    Function *Runs = F;
    if (Function *Target = thunkTarget(*F))
      Runs = Target;
    if (Runs == N.Was || Runs->isDeclaration())
      continue;
    SmallVector<AllocaInst *, 4> Allocas;
    for (Instruction &I : Runs->getEntryBlock())
      if (auto *AI = dyn_cast<AllocaInst>(&I))
        Allocas.push_back(AI);
    if (Allocas.size() != N.Allocas.size())
      continue; // not the same code
    for (unsigned I = 0; I < Allocas.size(); ++I) {
      auto [Lost, Name] = N.Allocas[I];
      MDNode *Got = Allocas[I]->getMetadata(ScopeKind);
      std::optional<DiagnosticSeverity> Severity = mergeSeverity(Lost, Got);
      if (!Severity)
        continue;
      std::string Message =
          (PassID + " merged function '" + N.Name + "' into '" +
           Runs->getName() + "', whose code it now runs: its buffer '" + Name +
           "' (scope " + scopeText(Lost) + ") is now its '" +
           describeValue(*Allocas[I]) + "' (scope " + scopeText(Got) + ")" +
           (*Severity == DS_Error
                ? ", which does not come from the pool its scope requires; "
                  "keep MergeFunctions away from functions whose buffers' "
                  "scopes differ"
                : ", which may come from a pool rather than the stack"))
              .str();
      Runs->getContext().diagnose(
          ScopeAllocDiagnostic(*Severity, Runs, Allocas[I], Message));
    }
  }
}

void ScopeTracker::copyTracked(const NotedAlloca &From, AllocaInst &To) {
  for (auto [Kind, MD] : From.Tracked)
    if (!To.getMetadata(Kind)) {
      LLVM_DEBUG(dbgs() << "scope-alloc: metadata back on " << To << "\n");
      To.setMetadata(Kind, MD);
    }
}

void ScopeTracker::restore(Function &F, Snapshot &S) {
  DenseMap<AllocaInst *, unsigned> Alive; // entry allocas still there
  DenseMap<AllocaInst *, SmallVector<NotedAlloca *, 2>> ByAlloca;
  bool ScopedPieces = false;
  for (NotedAlloca &N : S.Allocas) {
    // SROA deletes a split alloca after replacing its uses with poison.
    auto *AI =
        N.Now ? dyn_cast<AllocaInst>(getUnderlyingObject(N.Now)) : nullptr;
    if (!AI) {
      N.Now = nullptr; // gone, or replaced by a constant
      ScopedPieces |= !N.Tracked.empty() && N.Position != NotInEntry;
      continue;
    }
    if (N.Position != NotInEntry)
      Alive.try_emplace(AI, N.Position);
    copyTracked(N, *AI);
    if (N.ScopeMD)
      ByAlloca[AI].push_back(&N);
  }
  checkMerged(S.PassID, F, ByAlloca);
  if (ScopedPieces)
    scopePieces(F, S, Alive);
}

// MemCpyOpt's stack move (a full memcpy from one alloca to another whose
// lifetimes do not overlap) replaces one with the other: two buffers, one
// alloca. When their scopes differ the stricter one wins (a pool over the
// stack over none), with a warning naming both when a stack scope gives way
// to a pool (the merged buffer is still correct, now in the pool), and an
// error when two pools' scopes meet: one buffer cannot come from both.
void ScopeTracker::checkMerged(
    StringRef PassID, Function &F,
    DenseMap<AllocaInst *, SmallVector<NotedAlloca *, 2>> &By) {
  for (auto &[AI, Noted] : By) {
    if (Noted.size() < 2)
      continue;
    NotedAlloca *Strongest = Noted.front();
    for (NotedAlloca *N : Noted)
      if (strength(N->ScopeMD) > strength(Strongest->ScopeMD))
        Strongest = N;
    MDNode *Kept = Strongest->ScopeMD;
    for (NotedAlloca *N : Noted) {
      std::optional<DiagnosticSeverity> Severity =
          mergeSeverity(N->ScopeMD, Kept);
      if (!Severity)
        continue;
      std::string Message =
          (PassID + " merged buffers '" + Strongest->Name + "' (scope " +
           scopeText(Kept) + ") and '" + N->Name + "' (scope " +
           scopeText(N->ScopeMD) + ") into one, '" + describeValue(*AI) +
           "'; it keeps the stricter scope " + scopeText(Kept) +
           (*Severity == DS_Error
                ? ", and '" + N->Name +
                      "' no longer comes from the pool its scope requires"
                : ", so '" + N->Name + "' no longer lives on the stack"))
              .str();
      F.getContext().diagnose(ScopeAllocDiagnostic(*Severity, &F, AI, Message));
    }
    AI->setMetadata(ScopeKind, Kept);
  }
}

// SROA inserts the pieces of an alloca right before it and then deletes
// it, so the pieces of the deleted allocas lie between the allocas around
// them that survived.
void ScopeTracker::scopePieces(Function &F, Snapshot &S,
                               const DenseMap<AllocaInst *, unsigned> &Alive) {
  SmallVector<AllocaInst *, 8> Run;
  auto ScopeRun = [&](int Lo, int Hi) {
    SmallVector<NotedAlloca *, 4> Candidates;
    for (NotedAlloca &N : S.Allocas)
      if (!N.Now && N.Position != NotInEntry &&
          (Lo >= Hi || (int(N.Position) > Lo && int(N.Position) < Hi)))
        Candidates.push_back(&N);
    if (Candidates.empty())
      return;
    // The candidate with the strongest scope, for pieces nothing else
    // places (the first of equals).
    NotedAlloca *Strongest = Candidates.front();
    for (NotedAlloca *C : Candidates)
      if (strength(C->ScopeMD) > strength(Strongest->ScopeMD))
        Strongest = C;
    for (AllocaInst *Piece : Run) {
      // A call the piece took over names its alloca.
      SmallPtrSet<NotedAlloca *, 2> Owners;
      forEachCallUsing(*Piece, [&](CallBase *CB) {
        CallSignature Sig = signature(*CB);
        for (NotedAlloca *C : Candidates)
          if (is_contained(C->Calls, CB) ||
              (!Sig.Operands.empty() && is_contained(C->Signatures, Sig)))
            Owners.insert(C);
      });
      copyTracked(Owners.size() == 1 ? **Owners.begin() : *Strongest, *Piece);
    }
    Run.clear();
  };
  int Lo = -1;
  for (Instruction &I : F.getEntryBlock()) {
    auto *AI = dyn_cast<AllocaInst>(&I);
    if (!AI)
      continue;
    auto It = Alive.find(AI);
    if (It == Alive.end()) {
      Run.push_back(AI);
      continue;
    }
    if (!Run.empty())
      ScopeRun(Lo, int(It->second));
    Lo = int(It->second);
  }
  if (!Run.empty())
    ScopeRun(Lo, INT_MAX);
}

} // namespace

void registerScopeTracking(PassInstrumentationCallbacks &PIC) {
  auto Tracker = std::make_shared<ScopeTracker>();
  PIC.registerBeforeNonSkippedPassCallback(
      [Tracker](StringRef PassID, Any IR) { Tracker->before(PassID, IR); });
  PIC.registerAfterPassCallback(
      [Tracker](StringRef PassID, Any IR, const PreservedAnalyses &) {
        Tracker->after(PassID, IR);
      });
  PIC.registerAfterPassInvalidatedCallback(
      [Tracker](StringRef PassID, const PreservedAnalyses &) {
        Tracker->invalidated(PassID);
      });
}

} // namespace scopealloc
