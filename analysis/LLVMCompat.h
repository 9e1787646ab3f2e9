//===- LLVMCompat.h - One source tree for LLVM 15, 16, 19 and 22 -*- C++
//-*-===//
//
// The plugin, the analysis library and the tools are written against
// LLVM 19's API. Every API they use that an older supported release
// (15, 16) lacks is provided here, under the newest name, and only when the
// release lacks it; what 22 renamed or removed is provided here under a
// name of our own (scopealloc::) that calls the right one: the .cpp files
// carry no version #if. Each entry says the
// release that introduced the API and which feature macro guards it.
// Where one spelling works in every version (F.getParent()->getDataLayout(),
// IRBuilder::SetInsertPoint(Instruction *), `auto` for getAllocationSize's
// Optional/std::optional), the sources use it instead of a shim here.
//
// Backports of free functions and of classes the older release does not
// have are declared in namespace llvm, where the newer release declares
// them, so that call sites read the same. The debug-record classes of
// LLVM 19 (DbgVariableRecord) exist before 19 only as never-instantiated
// stand-ins: an older LLVM has no debug records, so the functions that find
// them return nothing and the stand-ins' members are never called.
//
// docs/llvm-versions.md lists the differences per version.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_ANALYSIS_LLVMCOMPAT_H
#define SCOPEALLOC_ANALYSIS_LLVMCOMPAT_H

#include "llvm/Config/llvm-config.h"

// The releases the sources build against (CMakeLists.txt lists the same).
#if LLVM_VERSION_MAJOR != 15 && LLVM_VERSION_MAJOR != 16 &&                    \
    LLVM_VERSION_MAJOR != 19 && LLVM_VERSION_MAJOR != 22
#error "ScopeAlloc builds against LLVM 15, 16, 19 or 22 (docs/llvm-versions.md)"
#endif

//===-- Feature macros ----------------------------------------------------===//

/// Debug records (DbgVariableRecord, findDVRDeclares, the 3-argument
/// findDbgUsers, at::getDVRAssignmentMarkers): LLVM 19.
#define SCOPEALLOC_HAVE_DEBUG_RECORDS (LLVM_VERSION_MAJOR >= 19)
/// Assignment tracking (DbgAssignIntrinsic, at::getAssignmentMarkers):
/// LLVM 16.
#define SCOPEALLOC_HAVE_ASSIGNMENT_TRACKING (LLVM_VERSION_MAJOR >= 16)
/// findDbgDeclares (before: FindDbgDeclareUses): LLVM 18.
#define SCOPEALLOC_HAVE_FIND_DBG_DECLARES (LLVM_VERSION_MAJOR >= 18)
/// createStringError(const Twine &) without an error code: LLVM 19.
#define SCOPEALLOC_HAVE_MESSAGE_ONLY_STRING_ERROR (LLVM_VERSION_MAJOR >= 19)
/// PassBuilder::checkParametrizedPassName and parsePassParameters public:
/// LLVM 17 (before, static functions of PassBuilder.cpp).
#define SCOPEALLOC_HAVE_PASS_PARAMETER_HELPERS (LLVM_VERSION_MAJOR >= 17)
/// MDBuilder::createLikelyBranchWeights/createUnlikelyBranchWeights: LLVM 19.
#define SCOPEALLOC_HAVE_LIKELY_BRANCH_WEIGHTS (LLVM_VERSION_MAJOR >= 19)
/// Module::getDirectAccessExternalData: LLVM 17.
#define SCOPEALLOC_HAVE_DIRECT_ACCESS_EXTERNAL_DATA (LLVM_VERSION_MAJOR >= 17)
/// StringRef::starts_with/ends_with (before: startswith/endswith, removed
/// in 19): LLVM 16.
#define SCOPEALLOC_HAVE_STRINGREF_STARTS_WITH (LLVM_VERSION_MAJOR >= 16)
/// IRBuilder::CreateThreadLocalAddress (llvm.threadlocal.address): LLVM 16.
#define SCOPEALLOC_HAVE_THREADLOCAL_ADDRESS (LLVM_VERSION_MAJOR >= 16)
/// AllocaInst::getAllocationSize (before: only getAllocationSizeInBits,
/// returning Optional): LLVM 16.
#define SCOPEALLOC_HAVE_ALLOCATION_SIZE (LLVM_VERSION_MAJOR >= 16)
/// BasicBlock::getFirstNonPHIOrDbgOrAlloca: LLVM 16.
#define SCOPEALLOC_HAVE_FIRST_NON_PHI_OR_DBG_OR_ALLOCA                         \
  (LLVM_VERSION_MAJOR >= 16)
/// removeFromUsedLists (llvm/Transforms/Utils/ModuleUtils.h): LLVM 16.
#define SCOPEALLOC_HAVE_REMOVE_FROM_USED_LISTS (LLVM_VERSION_MAJOR >= 16)
/// SaturatingAdd of three or more values: LLVM 16.
#define SCOPEALLOC_HAVE_VARIADIC_SATURATING_ADD (LLVM_VERSION_MAJOR >= 16)
/// The diagnostic handler callback takes `const DiagnosticInfo *`: LLVM 19
/// (before, `const DiagnosticInfo &`).
#define SCOPEALLOC_HAVE_DIAGNOSTIC_INFO_POINTER_CALLBACK                       \
  (LLVM_VERSION_MAJOR >= 19)
/// The AArch64 back end honours `nonlazybind` (a call through the GOT,
/// never a lazy PLT stub): LLVM 18 (-fno-plt for AArch64). Before, a
/// preserve_most call into the shared runtime could run glibc's resolver,
/// which clobbers x9-x15.
#define SCOPEALLOC_HAVE_AARCH64_NONLAZYBIND (LLVM_VERSION_MAJOR >= 18)

// The newer direction: what changed after 19, up to 22 (the releases in
// between are not supported, so "after 19" is as exact as these need be).

/// OptimizerLast callbacks are told the LTO phase (ThinOrFullLTOPhase):
/// LLVM 20. Before, the plugin infers it (registerOptimizerLast below).
#define SCOPEALLOC_HAVE_OPTIMIZER_LAST_PHASE (LLVM_VERSION_MAJOR >= 20)
/// Module::getTargetTriple returns a Triple (before, a std::string): LLVM 21.
#define SCOPEALLOC_HAVE_TRIPLE_TARGET_TRIPLE (LLVM_VERSION_MAJOR >= 21)
/// CaptureTracker::captured(const Use *, UseCaptureInfo) returning an
/// Action (the captures(...) attribute's components): LLVM 21; before,
/// captured(const Use *) returning whether to stop.
#define SCOPEALLOC_HAVE_CAPTURE_COMPONENTS (LLVM_VERSION_MAJOR >= 21)
/// Debug intrinsics are gone: the IR reader turns llvm.dbg.* calls into
/// debug records and the finders of intrinsics (findDbgDeclares,
/// at::getAssignmentMarkers, findDbgUsers' intrinsic list) are removed:
/// after 19. The shims below find no intrinsics there.
#define SCOPEALLOC_HAVE_DEBUG_INTRINSICS (LLVM_VERSION_MAJOR < 22)
/// llvm.lifetime.start/end take only the pointer, which must be an alloca
/// (IRBuilder::CreateLifetimeStart(Ptr)): LLVM 22. Before, (i64 size, ptr).
#define SCOPEALLOC_HAVE_POINTER_ONLY_LIFETIME (LLVM_VERSION_MAJOR >= 22)
/// llvm.thread.pointer is overloaded on its pointer type
/// (llvm.thread.pointer.p0): after 19.
#define SCOPEALLOC_HAVE_OVERLOADED_THREAD_POINTER (LLVM_VERSION_MAJOR >= 22)
/// clang loads -fpass-plugin= libraries before it parses -mllvm, so a pass
/// plugin's options need no -fplugin=/-load: clang 22 (llvm-project PRs
/// 171868, 173287).
#define SCOPEALLOC_HAVE_PASS_PLUGIN_OPTIONS (LLVM_VERSION_MAJOR >= 22)
/// cl::getRegisteredOptions() is a DenseMap<StringRef, cl::Option *>
/// (before, a StringMap): after 19.
#define SCOPEALLOC_HAVE_DENSEMAP_OPTION_REGISTRY (LLVM_VERSION_MAJOR >= 22)
/// LLVM_ATTRIBUTE_VISIBILITY_DEFAULT: LLVM 17.
#ifndef LLVM_ATTRIBUTE_VISIBILITY_DEFAULT
#include "llvm/Support/Compiler.h"
#endif

//===-- Headers that moved ------------------------------------------------===//

// llvm/TargetParser/Triple.h: LLVM 16 (before, llvm/ADT/Triple.h, which 19
// no longer has).
#if __has_include("llvm/TargetParser/Triple.h")
#include "llvm/TargetParser/Triple.h"
#else
#include "llvm/ADT/Triple.h"
#endif

// llvm/TargetParser/Host.h: LLVM 16 (before, llvm/Support/Host.h).
#if __has_include("llvm/TargetParser/Host.h")
#include "llvm/TargetParser/Host.h"
#else
#include "llvm/Support/Host.h"
#endif

// llvm/IR/EHPersonalities.h: LLVM 17 (before, llvm/Analysis/).
#if __has_include("llvm/IR/EHPersonalities.h")
#include "llvm/IR/EHPersonalities.h"
#else
#include "llvm/Analysis/EHPersonalities.h"
#endif

#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Support/CommandLine.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include <optional>

#ifndef LLVM_ATTRIBUTE_VISIBILITY_DEFAULT
#define LLVM_ATTRIBUTE_VISIBILITY_DEFAULT __attribute__((visibility("default")))
#endif

//===-- Strings -----------------------------------------------------------===//

#if !SCOPEALLOC_HAVE_STRINGREF_STARTS_WITH
// LLVM 16: StringRef::starts_with, ends_with. LLVM 15 spells them
// startswith, endswith, which 19 no longer has; StringRef is the only class
// the sources call them on (C++17: std::string has none), so LLVM 15 builds
// read the new names as the old ones.
#define starts_with(...) startswith(__VA_ARGS__)
#define ends_with(...) endswith(__VA_ARGS__)
#endif

namespace llvm {

//===-- Support -----------------------------------------------------------===//

#if !SCOPEALLOC_HAVE_MESSAGE_ONLY_STRING_ERROR
/// LLVM 19: a StringError with no particular error code.
inline Error createStringError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}
#endif

#if !SCOPEALLOC_HAVE_VARIADIC_SATURATING_ADD
/// LLVM 16: the sum of three or more unsigned values, clamped to T's
/// maximum on overflow.
template <class T, class... Ts>
std::enable_if_t<std::is_unsigned_v<T>, T> SaturatingAdd(T X, T Y, T Z,
                                                         Ts... Args) {
  bool Overflowed = false;
  T XY = SaturatingAdd(X, Y, &Overflowed);
  if (Overflowed)
    return SaturatingAdd(std::numeric_limits<T>::max(), T(1), Args...);
  return SaturatingAdd(XY, Z, Args...);
}
#endif

//===-- Modules -----------------------------------------------------------===//

#if !SCOPEALLOC_HAVE_REMOVE_FROM_USED_LISTS
/// LLVM 16: removes from llvm.used and llvm.compiler.used the entries
/// (pointer casts stripped) for which \p ShouldRemove is true.
inline void removeFromUsedLists(Module &M,
                                function_ref<bool(Constant *)> ShouldRemove) {
  for (StringRef Name : {"llvm.used", "llvm.compiler.used"}) {
    GlobalVariable *GV = M.getNamedGlobal(Name);
    if (!GV)
      continue;
    SmallVector<Constant *, 16> Keep;
    if (auto *Init = dyn_cast<ConstantArray>(GV->getInitializer()))
      for (Value *Op : Init->operands())
        if (!ShouldRemove(cast<Constant>(Op)->stripPointerCasts()))
          Keep.push_back(cast<Constant>(Op));
    if (!Keep.empty()) {
      auto *ATy = ArrayType::get(
          cast<ArrayType>(GV->getValueType())->getElementType(), Keep.size());
      auto *NewGV =
          new GlobalVariable(M, ATy, false, GlobalValue::AppendingLinkage,
                             ConstantArray::get(ATy, Keep), "", GV,
                             GV->getThreadLocalMode(), GV->getAddressSpace());
      NewGV->setSection(GV->getSection());
      NewGV->takeName(GV);
    }
    GV->eraseFromParent();
  }
}
#endif

//===-- Debug information -------------------------------------------------===//

#if !SCOPEALLOC_HAVE_ASSIGNMENT_TRACKING
/// LLVM 16: llvm.dbg.assign. Before 16 there is none: never instantiated.
class DbgAssignIntrinsic : public DbgVariableIntrinsic {
public:
  DbgAssignIntrinsic() = delete;
  Value *getAddress() const { llvm_unreachable("no llvm.dbg.assign"); }
  DIExpression *getAddressExpression() const {
    llvm_unreachable("no llvm.dbg.assign");
  }
  static bool classof(const IntrinsicInst *) { return false; }
  static bool classof(const Value *) { return false; }
};
#endif

#if !SCOPEALLOC_HAVE_ASSIGNMENT_TRACKING || !SCOPEALLOC_HAVE_DEBUG_INTRINSICS
namespace at {
/// LLVM 16 to 19: the llvm.dbg.assign markers linked to \p Inst. None
/// before 16 (no assignment tracking) nor after 19 (only debug records).
inline SmallVector<DbgAssignIntrinsic *, 1>
getAssignmentMarkers(const Instruction *) {
  return {};
}
} // namespace at
#endif

#if !SCOPEALLOC_HAVE_FIND_DBG_DECLARES
/// LLVM 18: the llvm.dbg.declare intrinsics describing \p V.
inline TinyPtrVector<DbgDeclareInst *> findDbgDeclares(Value *V) {
  return FindDbgDeclareUses(V);
}
#endif

#if !SCOPEALLOC_HAVE_DEBUG_RECORDS
/// LLVM 19: a debug record (#dbg_declare, #dbg_value, #dbg_assign) attached
/// to an instruction instead of an intrinsic call. Before 19 there are
/// none: a stand-in that is never instantiated, with the members the
/// sources call.
class DbgVariableRecord {
public:
  DbgVariableRecord() = delete;
  [[noreturn]] static void none() { llvm_unreachable("no debug records"); }
  DILocalVariable *getVariable() const { none(); }
  DIExpression *getExpression() const { none(); }
  DIExpression *getAddressExpression() const { none(); }
  Value *getAddress() const { none(); }
  Value *getVariableLocationOp(unsigned) const { none(); }
  DebugLoc getDebugLoc() const { none(); }
  bool isDbgValue() const { none(); }
  bool isDbgAssign() const { none(); }
  bool hasArgList() const { none(); }
  void replaceVariableLocationOp(Value *, Value *) { none(); }
  void setExpression(DIExpression *) { none(); }
  void eraseFromParent() { none(); }
};

/// LLVM 19: the #dbg_declare records describing \p V (none before 19).
inline SmallVector<DbgVariableRecord *, 1> findDVRDeclares(Value *) {
  return {};
}

/// LLVM 19: findDbgUsers also collects debug records (none before 19).
inline void findDbgUsers(SmallVectorImpl<DbgVariableIntrinsic *> &DbgInsts,
                         Value *V,
                         SmallVectorImpl<DbgVariableRecord *> *Records) {
  findDbgUsers(DbgInsts, V);
}

namespace at {
/// LLVM 19: the #dbg_assign records linked to \p Inst (none before 19).
inline SmallVector<DbgVariableRecord *, 1>
getDVRAssignmentMarkers(const Instruction *) {
  return {};
}
} // namespace at
#endif

#if !SCOPEALLOC_HAVE_DEBUG_INTRINSICS
/// Up to 19: the llvm.dbg.declare intrinsics describing \p V. After 19
/// there are none (only records, found by findDVRDeclares).
inline TinyPtrVector<DbgDeclareInst *> findDbgDeclares(Value *) { return {}; }

/// Up to 19: findDbgUsers of intrinsics and records; after 19, records
/// only (the intrinsic list stays empty).
inline void findDbgUsers(SmallVectorImpl<DbgVariableIntrinsic *> &, Value *V,
                         SmallVectorImpl<DbgVariableRecord *> *Records) {
  if (Records)
    findDbgUsers(V, *Records);
}
#endif

} // namespace llvm

namespace scopealloc {

//===-- IR ----------------------------------------------------------------===//

/// MDBuilder::createLikelyBranchWeights (LLVM 19): the weights of a branch
/// almost always taken, BranchProbabilityInfo's (1 << 20) - 1 : 1.
inline llvm::MDNode *createLikelyBranchWeights(llvm::LLVMContext &C) {
  return llvm::MDBuilder(C).createBranchWeights((1U << 20) - 1, 1);
}
/// MDBuilder::createUnlikelyBranchWeights (LLVM 19).
inline llvm::MDNode *createUnlikelyBranchWeights(llvm::LLVMContext &C) {
  return llvm::MDBuilder(C).createBranchWeights(1, (1U << 20) - 1);
}

/// Module::getDirectAccessExternalData (LLVM 17): whether external data is
/// assumed dso_local, the "direct-access-external-data" module flag, else
/// true for non-PIC code.
inline bool getDirectAccessExternalData(const llvm::Module &M) {
#if SCOPEALLOC_HAVE_DIRECT_ACCESS_EXTERNAL_DATA
  return M.getDirectAccessExternalData();
#else
  auto *Val = llvm::cast_or_null<llvm::ConstantAsMetadata>(
      M.getModuleFlag("direct-access-external-data"));
  if (Val && llvm::cast<llvm::ConstantInt>(Val->getValue())->getZExtValue() > 0)
    return true;
  return M.getPICLevel() == llvm::PICLevel::NotPIC;
#endif
}

/// IRBuilder::CreateThreadLocalAddress (LLVM 16): the address of \p TLS in
/// the current thread, named \p Name. Before 16 a thread-local global is its
/// own address (and keeps its own name: renaming it would rename the symbol).
inline llvm::Value *createThreadLocalAddress(llvm::IRBuilderBase &B,
                                             llvm::GlobalValue *TLS,
                                             const llvm::Twine &Name = "") {
#if SCOPEALLOC_HAVE_THREADLOCAL_ADDRESS
  llvm::Value *Address = B.CreateThreadLocalAddress(TLS);
  Address->setName(Name);
  return Address;
#else
  return TLS;
#endif
}

/// Module::getTargetTriple as a string (a Triple since 21, a string
/// before; `Triple(M.getTargetTriple())` reads the same in both).
inline std::string targetTripleString(const llvm::Module &M) {
#if SCOPEALLOC_HAVE_TRIPLE_TARGET_TRIPLE
  return M.getTargetTriple().str();
#else
  return M.getTargetTriple();
#endif
}

/// llvm.thread.pointer: overloaded on its type after 19
/// (llvm.thread.pointer.p0), not before.
inline llvm::Value *createThreadPointer(llvm::IRBuilderBase &B) {
#if SCOPEALLOC_HAVE_OVERLOADED_THREAD_POINTER
  return B.CreateIntrinsic(llvm::Intrinsic::thread_pointer, {B.getPtrTy()},
                           llvm::ArrayRef<llvm::Value *>());
#else
  return B.CreateIntrinsic(llvm::Intrinsic::thread_pointer,
                           llvm::ArrayRef<llvm::Type *>(),
                           llvm::ArrayRef<llvm::Value *>());
#endif
}

/// llvm.lifetime.start/end of the alloca \p AI, \p Size bytes: LLVM 22's
/// markers take only the pointer, older ones the size too.
inline llvm::CallInst *createLifetimeStart(llvm::IRBuilderBase &B,
                                           llvm::AllocaInst *AI,
                                           uint64_t Size) {
#if SCOPEALLOC_HAVE_POINTER_ONLY_LIFETIME
  return B.CreateLifetimeStart(AI);
#else
  return B.CreateLifetimeStart(AI, B.getInt64(Size));
#endif
}
inline llvm::CallInst *createLifetimeEnd(llvm::IRBuilderBase &B,
                                         llvm::AllocaInst *AI, uint64_t Size) {
#if SCOPEALLOC_HAVE_POINTER_ONLY_LIFETIME
  return B.CreateLifetimeEnd(AI);
#else
  return B.CreateLifetimeEnd(AI, B.getInt64(Size));
#endif
}

/// A CaptureTracker that is asked one question per capturing use: whether
/// the walk should stop there. LLVM 21 asks captured(Use, UseCaptureInfo)
/// for an Action, which includes uses that capture only whether the
/// pointer is null (an icmp with null); older releases ask captured(Use)
/// for a bool and never report those.
struct StopAtCaptureTracker : llvm::CaptureTracker {
  /// Whether to stop at \p U, which may capture the pointer.
  virtual bool stopAt(const llvm::Use *U) = 0;
#if SCOPEALLOC_HAVE_CAPTURE_COMPONENTS
  Action captured(const llvm::Use *U, llvm::UseCaptureInfo) override {
    return stopAt(U) ? Stop : Continue;
  }
#else
  bool captured(const llvm::Use *U) override { return stopAt(U); }
#endif
};

/// The name of one entry of cl::getRegisteredOptions() (a DenseMap after
/// 19, a StringMap before); its option is `.second` in both.
template <class EntryT>
llvm::StringRef registeredOptionName(const EntryT &Entry) {
#if SCOPEALLOC_HAVE_DENSEMAP_OPTION_REGISTRY
  return Entry.first;
#else
  return Entry.getKey();
#endif
}

/// AllocaInst::getAllocationSize (LLVM 16): the bytes \p AI allocates, or
/// nothing for a dynamic size. LLVM 15 has only the size in bits.
inline std::optional<llvm::TypeSize>
getAllocationSize(const llvm::AllocaInst &AI, const llvm::DataLayout &DL) {
#if SCOPEALLOC_HAVE_ALLOCATION_SIZE
  return AI.getAllocationSize(DL);
#else
  llvm::TypeSize Size = DL.getTypeAllocSize(AI.getAllocatedType());
  if (AI.isArrayAllocation()) {
    auto *C = llvm::dyn_cast<llvm::ConstantInt>(AI.getArraySize());
    if (!C)
      return std::nullopt;
    Size *= C->getZExtValue();
  }
  return Size;
#endif
}

/// BasicBlock::getFirstNonPHIOrDbgOrAlloca (LLVM 16): where code may go in
/// \p BB after its PHIs, EH pad, debug intrinsics and, in the entry block,
/// static allocas.
inline llvm::BasicBlock::iterator
getFirstNonPHIOrDbgOrAlloca(llvm::BasicBlock &BB) {
#if SCOPEALLOC_HAVE_FIRST_NON_PHI_OR_DBG_OR_ALLOCA
  return BB.getFirstNonPHIOrDbgOrAlloca();
#else
  llvm::Instruction *FirstNonPHI = BB.getFirstNonPHI();
  if (!FirstNonPHI)
    return BB.end();
  llvm::BasicBlock::iterator It = FirstNonPHI->getIterator();
  if (It->isEHPad())
    ++It;
  if (BB.isEntryBlock())
    while (It != BB.end() && (llvm::isa<llvm::AllocaInst>(*It) ||
                              llvm::isa<llvm::DbgInfoIntrinsic>(*It) ||
                              llvm::isa<llvm::PseudoProbeInst>(*It))) {
      if (auto *AI = llvm::dyn_cast<llvm::AllocaInst>(&*It))
        if (!AI->isStaticAlloca())
          break;
      ++It;
    }
  return It;
#endif
}

/// Whether the integrated assembler reads `.section name,"oG",...` with the
/// linked-to symbol before the group name, as GNU as 2.35 does: LLVM 18
/// (llvm-project PR 77407); before, the group comes first.
constexpr bool AssemblerParsesLinkedSymbolFirst = LLVM_VERSION_MAJOR >= 18;

//===-- Pass parameters ---------------------------------------------------===//

/// PassBuilder::checkParametrizedPassName (public since LLVM 17): whether
/// \p Name is \p PassName, with or without a <parameter-list>.
inline bool checkParametrizedPassName(llvm::StringRef Name,
                                      llvm::StringRef PassName) {
  if (!Name.consume_front(PassName))
    return false;
  return Name.empty() || (Name.front() == '<' && Name.back() == '>');
}

/// PassBuilder::parsePassParameters (public since LLVM 17): \p Parser
/// applied to the parameters of \p Name, which checkParametrizedPassName
/// accepted for \p PassName.
template <typename ParserT>
auto parsePassParameters(ParserT &&Parser, llvm::StringRef Name,
                         llvm::StringRef PassName)
    -> decltype(Parser(llvm::StringRef{})) {
  llvm::StringRef Params = Name;
  Params.consume_front(PassName);
  if (!Params.empty()) {
    Params.consume_front("<");
    Params.consume_back(">");
  }
  return Parser(Params);
}

//===-- Diagnostics -------------------------------------------------------===//

/// The argument of a DiagnosticHandler::DiagnosticHandlerTy callback:
/// `const DiagnosticInfo *` since LLVM 19, `const DiagnosticInfo &` before.
#if SCOPEALLOC_HAVE_DIAGNOSTIC_INFO_POINTER_CALLBACK
using DiagnosticHandlerArg = const llvm::DiagnosticInfo *;
inline const llvm::DiagnosticInfo &diagnosticOf(DiagnosticHandlerArg DI) {
  return *DI;
}
#else
using DiagnosticHandlerArg = const llvm::DiagnosticInfo &;
inline const llvm::DiagnosticInfo &diagnosticOf(DiagnosticHandlerArg DI) {
  return DI;
}
#endif

} // namespace scopealloc

//===-- The pass plugin interface -----------------------------------------===//

// Only where llvm/Passes/PassBuilder.h was included first: the plugin
// interface (llvm/Plugins/PassPlugin.h since 22, llvm/Passes/PassPlugin.h
// before) and OptimizerLast with the LTO phase.
#if defined(LLVM_PASSES_PASSBUILDER_H)
#if __has_include("llvm/Plugins/PassPlugin.h")
#include "llvm/Plugins/PassPlugin.h"
#else
#include "llvm/Passes/PassPlugin.h"
#endif
#include <functional>
namespace scopealloc {
/// PassBuilder::registerOptimizerLastEPCallback with the LTO phase the
/// pipeline is for when LLVM says it (20 and newer), std::nullopt before.
inline void registerOptimizerLast(
    llvm::PassBuilder &PB,
    std::function<void(llvm::ModulePassManager &, llvm::OptimizationLevel,
                       std::optional<llvm::ThinOrFullLTOPhase>)>
        Callback) {
#if SCOPEALLOC_HAVE_OPTIMIZER_LAST_PHASE
  PB.registerOptimizerLastEPCallback(
      [Callback](llvm::ModulePassManager &MPM, llvm::OptimizationLevel Level,
                 llvm::ThinOrFullLTOPhase Phase) {
        Callback(MPM, Level, Phase);
      });
#else
  PB.registerOptimizerLastEPCallback(
      [Callback](llvm::ModulePassManager &MPM, llvm::OptimizationLevel Level) {
        Callback(MPM, Level, std::nullopt);
      });
#endif
}
} // namespace scopealloc
#endif

//===-- clang's Driver library (scopealloc-clang) -------------------------===//

#if LLVM_VERSION_MAJOR < 16
#include "llvm/ADT/Optional.h"
#endif
namespace scopealloc {
/// One redirect of clang::driver::Command::Execute (and sys::ExecuteAndWait):
/// std::optional<StringRef> since LLVM 16, llvm::Optional before.
#if LLVM_VERSION_MAJOR >= 16
using CommandRedirect = std::optional<llvm::StringRef>;
#else
using CommandRedirect = llvm::Optional<llvm::StringRef>;
#endif
} // namespace scopealloc

// Only where clang/Driver/Driver.h was included first.

/// DiagnosticsEngine refers to DiagnosticOptions it does not own
/// (DiagnosticOptions &; TextDiagnosticPrinter likewise): clang 21. Before,
/// both share them (IntrusiveRefCntPtr, a pointer).
#define SCOPEALLOC_HAVE_UNOWNED_DIAGNOSTIC_OPTIONS (LLVM_VERSION_MAJOR >= 21)
/// ProcessWarningOptions takes the file system (for -Wsuppression-mapping=):
/// clang 20.
#define SCOPEALLOC_HAVE_WARNING_OPTIONS_VFS (LLVM_VERSION_MAJOR >= 20)

// The driver's option table (options::OPT_*): clang/Options/Options.h in
// namespace clang::options since clang 22; before, clang/Driver/Options.h
// in clang::driver::options. The sources name it from clang::driver.
#if defined(LLVM_CLANG_DRIVER_DRIVER_H)
#if __has_include("clang/Options/Options.h")
#include "clang/Options/Options.h"
namespace clang::driver {
namespace options = clang::options;
} // namespace clang::driver
#else
#include "clang/Driver/Options.h"
#endif
#endif

/// Driver::getConfigFiles (several files): clang 16; clang 15 reads one.
#if defined(LLVM_CLANG_DRIVER_DRIVER_H)
namespace scopealloc {
inline std::vector<std::string> configFiles(const clang::driver::Driver &D) {
#if LLVM_VERSION_MAJOR >= 16
  return {D.getConfigFiles().begin(), D.getConfigFiles().end()};
#else
  if (D.getConfigFile().empty())
    return {};
  return {D.getConfigFile()};
#endif
}
} // namespace scopealloc
#endif

/// clang::driver::expandResponseFiles: clang 17.
#define SCOPEALLOC_HAVE_DRIVER_EXPAND_RESPONSE_FILES (LLVM_VERSION_MAJOR >= 17)
#if defined(LLVM_CLANG_DRIVER_DRIVER_H) &&                                     \
    !SCOPEALLOC_HAVE_DRIVER_EXPAND_RESPONSE_FILES
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/StringSaver.h"
namespace clang::driver {
/// \p Args with its @file arguments expanded as clang's driver expands
/// them (GNU quoting; clang-cl mode would use Windows quoting).
inline llvm::Error
expandResponseFiles(llvm::SmallVectorImpl<const char *> &Args, bool ClangCLMode,
                    llvm::BumpPtrAllocator &Alloc) {
  llvm::cl::TokenizerCallback Tokenizer =
      ClangCLMode ? llvm::cl::TokenizeWindowsCommandLine
                  : llvm::cl::TokenizeGNUCommandLine;
#if LLVM_VERSION_MAJOR >= 16
  return llvm::cl::ExpansionContext(Alloc, Tokenizer).expandResponseFiles(Args);
#else
  llvm::StringSaver Saver(Alloc);
  if (!llvm::cl::ExpandResponseFiles(Saver, Tokenizer, Args))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot expand the response files");
  return llvm::Error::success();
#endif
}
} // namespace clang::driver
#endif

// Only where clang's TextDiagnosticPrinter.h and CompilerInvocation.h were
// included first (and Driver.h).
#if defined(LLVM_CLANG_DRIVER_DRIVER_H) &&                                     \
    defined(LLVM_CLANG_FRONTEND_TEXTDIAGNOSTICPRINTER_H) &&                    \
    defined(LLVM_CLANG_FRONTEND_COMPILERINVOCATION_H)
#include "llvm/Support/VirtualFileSystem.h"
namespace scopealloc {
/// The diagnostics of a driver built for \p Argv: its -W and colour options,
/// printed with \p Prefix ("clang: error: ..."), or not at all when
/// \p Prefix is empty. Keeps the options alive as long as the engine.
class DriverDiagnostics {
public:
  DriverDiagnostics(llvm::ArrayRef<const char *> Argv, llvm::StringRef Prefix)
      : Opts(clang::CreateAndPopulateDiagOpts(Argv)) {
    clang::DiagnosticConsumer *Client;
    if (Prefix.empty()) {
      Client = new clang::IgnoringDiagConsumer();
    } else {
#if SCOPEALLOC_HAVE_UNOWNED_DIAGNOSTIC_OPTIONS
      auto *Printer = new clang::TextDiagnosticPrinter(llvm::errs(), *Opts);
#else
      auto *Printer = new clang::TextDiagnosticPrinter(llvm::errs(), &*Opts);
#endif
      Printer->setPrefix(Prefix.str());
      Client = Printer;
    }
#if SCOPEALLOC_HAVE_UNOWNED_DIAGNOSTIC_OPTIONS
    Engine = std::make_unique<clang::DiagnosticsEngine>(
        new clang::DiagnosticIDs(), *Opts, Client);
#else
    Engine = std::make_unique<clang::DiagnosticsEngine>(
        new clang::DiagnosticIDs(), Opts, Client);
#endif
#if SCOPEALLOC_HAVE_WARNING_OPTIONS_VFS
    clang::ProcessWarningOptions(*Engine, *Opts,
                                 *llvm::vfs::getRealFileSystem(),
                                 /*ReportDiags=*/false);
#else
    clang::ProcessWarningOptions(*Engine, *Opts, /*ReportDiags=*/false);
#endif
  }
  clang::DiagnosticsEngine &engine() { return *Engine; }

private:
#if SCOPEALLOC_HAVE_UNOWNED_DIAGNOSTIC_OPTIONS
  std::unique_ptr<clang::DiagnosticOptions> Opts;
#else
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> Opts;
#endif
  std::unique_ptr<clang::DiagnosticsEngine> Engine;
};
} // namespace scopealloc
#endif

#endif // SCOPEALLOC_ANALYSIS_LLVMCOMPAT_H
