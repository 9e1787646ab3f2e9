//===- SourceScopes.cpp - Scopes and policies written in the source -------===//
#include "policy/SourceScopes.h"
#include "FactsFormat.h"
#include "LLVMCompat.h"
#include "PolicyFile.h"
#include "Scope.h"
#include "policy/BufferHome.h"
#include "policy/StackPolicy.h"
#include "support/Diagnostics.h"
#include "transform/WorkspaceAllocators.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace scopealloc {

namespace {

/// The string an annotation operand points to, or "" when it is not one.
StringRef annotationString(const Value *V) {
  StringRef S;
  if (!getConstantStringInfo(V, S))
    return {};
  return S;
}

/// "file:line" of an annotation, from its file and line operands.
std::string annotationWhere(const Value *File, const Value *Line) {
  std::string Where = annotationString(File).str();
  if (Where.empty())
    Where = "<unknown file>";
  if (auto *CI = dyn_cast_or_null<ConstantInt>(Line))
    Where += ":" + std::to_string(CI->getZExtValue());
  return Where;
}

/// The value \p V is, looking through what code generators put between an
/// alloca and its annotation: pointer casts, ptrtoint/inttoptr round trips,
/// zero-offset GEPs, and MLIR's memref descriptors (the pointer inserted
/// into a struct and extracted again).
Value *annotatedValue(Value *V) {
  for (unsigned Steps = 0; Steps < 32; ++Steps) {
    V = V->stripPointerCasts();
    if (auto *Cast = dyn_cast<CastInst>(V);
        Cast && (isa<IntToPtrInst>(Cast) || isa<PtrToIntInst>(Cast))) {
      V = Cast->getOperand(0);
      continue;
    }
    if (auto *GEP = dyn_cast<GetElementPtrInst>(V);
        GEP && GEP->hasAllZeroIndices()) {
      V = GEP->getPointerOperand();
      continue;
    }
    auto *Extract = dyn_cast<ExtractValueInst>(V);
    if (!Extract)
      return V;
    // The last insertvalue into the same field before the extract.
    Value *Agg = Extract->getAggregateOperand();
    Value *Found = nullptr;
    while (auto *Insert = dyn_cast<InsertValueInst>(Agg)) {
      if (Insert->getIndices() == Extract->getIndices()) {
        Found = Insert->getInsertedValueOperand();
        break;
      }
      Agg = Insert->getAggregateOperand();
    }
    if (!Found)
      return V;
    V = Found;
  }
  return V;
}

struct AppliedScope {
  Scope S;
  std::string Where;
};

/// Local variables: "scope:<spelling>" on llvm.var.annotation. Returns
/// whether the function changed.
bool applyLocalScopes(Function &F) {
  bool Changed = false;
  DenseMap<Instruction *, AppliedScope> Applied;
  SmallVector<IntrinsicInst *, 4> ToErase;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      auto *II = dyn_cast<IntrinsicInst>(&I);
      if (!II || (II->getIntrinsicID() != Intrinsic::var_annotation &&
                  II->getIntrinsicID() != Intrinsic::ptr_annotation))
        continue;
      StringRef Text = annotationString(II->getArgOperand(1));
      if (!Text.starts_with(ScopeAnnotationPrefix))
        continue; // somebody else's annotation: leave it alone
      std::string Where =
          annotationWhere(II->getArgOperand(2), II->getArgOperand(3));
      Value *Target = annotatedValue(II->getArgOperand(0));
      // A local variable, or a buffer a code generator takes from its
      // workspace allocator (TVM's TIR annotates either the same way).
      Instruction *Buf = dyn_cast<AllocaInst>(Target);
      if (auto *CB = dyn_cast<CallBase>(Target); CB && builtinAllocatorOf(*CB))
        Buf = CB;
      if (II->getIntrinsicID() == Intrinsic::ptr_annotation || !Buf) {
        reportError(F, II,
                    Twine("annotation \"") + Text + "\" at " + Where +
                        " is on '" + describeValue(*Target) +
                        "', which is not a local variable; scopes apply to "
                        "local (automatic) variables and to workspace "
                        "calls only");
        continue;
      }
      StringRef Spelling =
          Text.drop_front(StringRef(ScopeAnnotationPrefix).size());
      Expected<Scope> S = parseScopeSpelling(Spelling);
      if (!S) {
        reportError(F, II,
                    Twine("malformed scope annotation \"") + Text + "\" on '" +
                        describeValue(*Buf) + "' at " + Where + ": " +
                        toString(S.takeError()));
        continue;
      }
      // A scope the alloca already has: from an earlier annotation on the
      // same variable, or from metadata a code generator wrote.
      auto Same = [&](const Scope &A) {
        return A.Kind == S->Kind && A.Pool == S->Pool;
      };
      if (auto It = Applied.find(Buf); It != Applied.end()) {
        if (!Same(It->second.S)) {
          reportError(F, II,
                      "conflicting scopes on '" + describeValue(*Buf) + "': " +
                          It->second.S.describe() + " (at " + It->second.Where +
                          ") and " + S->describe() + " (at " + Where + ")");
          continue;
        }
      } else if (Buf->getMetadata(ScopeMetadataName)) {
        Expected<Scope> Old = readScope(*Buf);
        if (!Old) {
          consumeError(Old.takeError()); // the scope-alloc pass reports it
        } else if (!Same(*Old)) {
          reportError(F, II,
                      "conflicting scopes on '" + describeValue(*Buf) + "': " +
                          Old->describe() + " (from !scope metadata) and " +
                          S->describe() + " (at " + Where + ")");
          continue;
        }
      } else {
        LLVMContext &Ctx = F.getContext();
        Buf->setMetadata(ScopeMetadataName,
                         MDNode::get(Ctx, MDString::get(Ctx, Spelling)));
        Changed = true;
      }
      Applied.try_emplace(Buf, AppliedScope{*S, Where});

      // Scopes that forbid the stack keep the annotation call as a pin.
      // SROA (and every other pass) treats a pointer passed to it as
      // escaping: SROA then leaves the alloca whole, and with it its !scope.
      // Without the pin SROA may split the buffer into new allocas that do
      // not carry the metadata (it does not copy it), and those would stay
      // on the stack although the source said they must not. The backend
      // drops llvm.var.annotation, so the pin costs nothing at run time;
      // after demotion it points at the pool memory, which is harmless.
      // Other scopes lose nothing when SROA splits or promotes the buffer
      // (it only becomes more stack-like), so their call goes away and
      // mem2reg/SROA work as if the attribute were not there.
      if (!S->requiresPool())
        ToErase.push_back(II);
    }
  for (IntrinsicInst *II : ToErase) {
    II->eraseFromParent();
    Changed = true;
  }
  return Changed;
}

/// Parses "<name>=<value>" of a function annotation into an attribute.
bool functionAnnotationToAttribute(Function &F, StringRef Text,
                                   const std::string &Where,
                                   StringMap<std::string> &Seen) {
  auto [Name, Value] = Text.split('=');
  auto Bad = [&](const Twine &Why) {
    reportError(F, nullptr,
                Twine("annotation \"") + Text + "\" at " + Where + ": " + Why);
    return false;
  };
  if (!Text.contains('='))
    return Bad("expected \"" + Name + "=<value>\"");
  if (const SettingInfo *S = findSetting(layer::FunctionAttribute, Name)) {
    PolicyFields Check;
    if (Error E = Check.set(S->Id, Value))
      return Bad("the value " + toString(std::move(E)));
  } else if (Name == facts::EntryAttr) { // for scopealloc-bound
    if (Value != "1")
      return Bad("the value must be 1, found \"" + Value + "\"");
  } else if (Name == facts::RecursionBoundAttr) { // for scopealloc-bound
    uint64_t Frames;
    if (readByteCount(Value, Frames) != ByteCountRead::OK || Frames == 0)
      return Bad("the value must be a number of frames of at least 1 (a "
                 "decimal number), found \"" +
                 Value + "\"");
  } else {
    std::vector<std::string> Names;
    for (const SettingInfo &S : policySettings())
      if (S.in(layer::FunctionAttribute))
        Names.push_back(S.attribute());
    Names.push_back(facts::EntryAttr);
    Names.push_back(facts::RecursionBoundAttr);
    std::vector<StringRef> Refs(Names.begin(), Names.end());
    return Bad(Twine("unknown setting '") + Name + "' (expected " +
               listSettingKeys(Refs) + ")");
  }
  auto [It, New] = Seen.try_emplace(Name, Value.str());
  if (!New && It->second != Value)
    return Bad("conflicts with an earlier \"" + Name + "=" + It->second +
               "\" on the same function");
  F.addFnAttr(Name, Value);
  return true;
}

/// Functions: "scope-alloc-<setting>=<value>" in @llvm.global.annotations.
bool applyFunctionAnnotations(Module &M) {
  GlobalVariable *GA = M.getGlobalVariable("llvm.global.annotations");
  if (!GA || !GA->hasInitializer())
    return false;
  auto *Arr = dyn_cast<ConstantArray>(GA->getInitializer());
  if (!Arr)
    return false;
  bool Changed = false;
  DenseMap<Function *, StringMap<std::string>> Seen;
  for (const Use &Op : Arr->operands()) {
    auto *Entry = dyn_cast<ConstantStruct>(Op.get());
    if (!Entry || Entry->getNumOperands() < 4)
      continue;
    StringRef Text = annotationString(Entry->getOperand(1));
    bool IsScope = Text.starts_with(ScopeAnnotationPrefix);
    if (!IsScope && !Text.starts_with("scope-alloc-"))
      continue;
    std::string Where =
        annotationWhere(Entry->getOperand(2), Entry->getOperand(3));
    Value *Target = Entry->getOperand(0)->stripPointerCasts();
    auto *F = dyn_cast<Function>(Target);
    if (F && !IsScope) {
      Changed |= functionAnnotationToAttribute(*F, Text, Where, Seen[F]);
      continue;
    }
    std::string What = Target->hasName() ? ("'" + Target->getName() + "'").str()
                                         : std::string("a global");
    std::string Why =
        IsScope ? (F ? "is on function " + What +
                           "; scopes apply to local (automatic) variables, "
                           "not to functions"
                     : "is on " + What +
                           ", which is not a local (automatic) variable; "
                           "static and global buffers never live on the "
                           "stack")
                : "is on " + What +
                      ", which is not a function; stack policies apply to "
                      "functions";
    std::string Msg =
        ("annotation \"" + Text + "\" at " + Where + " ").str() + Why;
    if (F)
      reportError(*F, nullptr, Msg);
    else
      M.getContext().emitError("scope-alloc: " + Msg);
  }
  return Changed;
}

} // namespace

PreservedAnalyses SourceScopesPass::run(Module &M, ModuleAnalysisManager &) {
  bool Changed = applyFunctionAnnotations(M);
  for (Function &F : M)
    if (!F.isDeclaration())
      Changed |= applyLocalScopes(F);
  // Before the inliner moves buffers out of the functions whose settings
  // they keep.
  Changed |= recordBufferHomes(M);
  if (!Changed)
    return PreservedAnalyses::all();
  PreservedAnalyses PA;
  PA.preserveSet<CFGAnalyses>();
  return PA;
}

} // namespace scopealloc
