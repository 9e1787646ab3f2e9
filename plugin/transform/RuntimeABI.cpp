//===- RuntimeABI.cpp - Calls into the ScopeAlloc runtime -----------------===//
#include "transform/RuntimeABI.h"
#include "LLVMCompat.h"
#include "OptionCategory.h"
#include "Scope.h"
#include "support/Diagnostics.h"

#include "scopealloc/abi_constants.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace scopealloc {

// The TLS model of the __scopealloc_tls_pool declaration the inline fast
// path creates. Initial-exec reads the pool at a fixed offset from the
// thread pointer, also in PIC code of shared objects (general-dynamic would
// call __tls_get_addr in every demoted frame); it needs the runtime's
// thread-locals in static TLS, which holds when libscopealloc_rt.so is
// loaded at start-up and for dlopen while glibc's static TLS surplus has
// room for them (about 200 bytes). global-dynamic is the fallback for a
// library dlopen'ed into a process whose surplus is exhausted ("cannot
// allocate memory in static TLS block").
static cl::opt<GlobalValue::ThreadLocalMode> TLSModelOpt(
    "scope-alloc-tls-model", cl::Hidden, cl::cat(scopealloc::optionCategory()),
    cl::desc("TLS model of the inline fast path's __scopealloc_tls_pool "
             "declaration"),
    cl::values(clEnumValN(GlobalValue::InitialExecTLSModel, "initial-exec",
                          "one thread-pointer-relative load (default)"),
               clEnumValN(GlobalValue::GeneralDynamicTLSModel, "global-dynamic",
                          "__tls_get_addr: for libraries dlopen'ed into "
                          "processes without static TLS room")),
    cl::init(GlobalValue::InitialExecTLSModel));

// Exact allocation counts at compile time: the inline fast path adds one to
// the pool's `allocs` for every frame it bumps (a load and a store per
// frame). Without it the runtime counts only the frames of its slow path,
// unless exact counts are on at run time (scopealloc_set_exact_stats,
// SCOPEALLOC_STATS=1), which sends every frame there.
static cl::opt<bool> CountInlineFrames(
    "scope-alloc-count-inline-frames", cl::Hidden,
    cl::cat(scopealloc::optionCategory()),
    cl::desc("Count every frame the inline fast path bumps in the pool's "
             "allocs (exact statistics without SCOPEALLOC_STATS=1, at the "
             "cost of a counter update per frame)"),
    cl::init(false));

// The convention of the inline fast path's slow branch on x86-64 and
// AArch64. It must be what the linked runtime defines: a runtime whose
// compiler cannot be trusted with preserve_most (GCC, clang < 17) leaves
// __scopealloc_frame_slow undefined, so a mismatch fails to link. The
// default is set by the configuration that picks the runtime's compiler:
// frameless (x86-64 ELF; preserve-most elsewhere and for a function that
// holds x87 values), or standard. frameless because a call in the IR makes
// the whole function set up a stack frame, even when only the cold branch
// calls: LLVM's shrink-wrapping cannot tell that the frame the call returns
// is not on the stack (docs/internals.md).
#ifndef SCOPEALLOC_SLOW_PATH_DEFAULT_STANDARD
#define SCOPEALLOC_SLOW_PATH_DEFAULT_STANDARD 0
#endif
static cl::opt<SlowPath> SlowPathOpt(
    "scope-alloc-slow-path", cl::cat(scopealloc::optionCategory()),
    cl::desc("Convention of the inline fast path's slow call on x86-64 and "
             "AArch64 (default: the one the runtime was built with)"),
    cl::values(clEnumValN(SlowPath::PreserveMost, "preserve-most",
                          "__scopealloc_frame_slow, preserve_most: no "
                          "spills around it (runtime built by clang >= 17)"),
               clEnumValN(SlowPath::Standard, "standard",
                          "__scopealloc_mark and __scopealloc_alloc, the C "
                          "convention (any runtime)"),
               clEnumValN(SlowPath::Frameless, "frameless",
                          "x86-64 ELF: an inline asm call of "
                          "__scopealloc_frame_thunk, which keeps the function "
                          "free of a stack frame of its own (elsewhere: "
                          "preserve-most)")),
    cl::init(SCOPEALLOC_SLOW_PATH_DEFAULT_STANDARD ? SlowPath::Standard
                                                   : SlowPath::Frameless));

// Where a guard can do the limit check's job (a small frame, hosted Linux,
// whose runtime maps a guard region above every arena and handles its
// faults), guarded skips the comparison with the bound, as SafeStack does
// and as stack probes skip frames smaller than a guard page, and probes the
// guard with a marker byte instead. checked (the default) compares: measured
// alone, that compare-and-branch costs nothing on the CI machines, while the
// marker store costs about 8% of a 2 KiB frame's call (docs/performance.md).
static cl::opt<FastPathCheck> FastPathOpt(
    "scope-alloc-fast-path", cl::cat(scopealloc::optionCategory()),
    cl::desc("How the inline fast path keeps a default-pool frame inside "
             "the arena"),
    cl::values(
        clEnumValN(FastPathCheck::Guarded, "guarded",
                   "frames up to " SCOPEALLOC_ABI_STR(
                       SCOPEALLOC_GUARDED_FRAME_MAX) " bytes rely on the "
                                                     "arena's guard region "
                                                     "on hosted Linux"),
        clEnumValN(FastPathCheck::Checked, "checked",
                   "every frame is compared with the pool's bound "
                   "(default)")),
    cl::init(FastPathCheck::Checked));

StringRef spell(FastPathCheck C) {
  return C == FastPathCheck::Checked ? "checked" : "guarded";
}

std::optional<FastPathCheck> explicitFastPathCheck() {
  if (!FastPathOpt.getNumOccurrences())
    return std::nullopt;
  return FastPathOpt.getValue();
}

/// \p F's fast-path check: the one its compile step recorded for the LTO
/// link, else the option's.
static FastPathCheck fastPathCheckFor(const Function &F) {
  Attribute A = F.getFnAttribute(FastPathAttr);
  if (!A.isStringAttribute())
    return FastPathOpt;
  StringRef V = A.getValueAsString();
  if (V == spell(FastPathCheck::Guarded))
    return FastPathCheck::Guarded;
  if (V != spell(FastPathCheck::Checked))
    reportWarning(F, nullptr,
                  Twine("unknown \"") + FastPathAttr + "\"=\"" + V +
                      "\": the fast path compares every frame with the bound");
  return FastPathCheck::Checked;
}

StringRef spell(SlowPath P) {
  if (P == SlowPath::Frameless)
    return "frameless";
  return P == SlowPath::Standard ? "standard" : "preserve-most";
}

std::optional<SlowPath> explicitSlowPath() {
  if (!SlowPathOpt.getNumOccurrences())
    return std::nullopt;
  return SlowPathOpt.getValue();
}

/// \p F's convention: the one its compile step recorded for the LTO link,
/// else the option's.
static SlowPath slowPathFor(const Function &F) {
  Attribute A = F.getFnAttribute(SlowPathAttr);
  if (!A.isStringAttribute())
    return SlowPathOpt;
  StringRef V = A.getValueAsString();
  if (V == spell(SlowPath::PreserveMost))
    return SlowPath::PreserveMost;
  if (V == spell(SlowPath::Frameless))
    return SlowPath::Frameless;
  if (V != spell(SlowPath::Standard))
    reportWarning(F, nullptr,
                  Twine("unknown \"") + SlowPathAttr + "\"=\"" + V +
                      "\": the slow path uses the standard convention");
  return SlowPath::Standard;
}

/// Whether the compiler running the pass can assemble inline asm for \p T:
/// flang's -fc1, for one, registers no assembler parser, and its code
/// generator stops on any inline asm.
static bool canAssembleInlineAsm(const Triple &T) {
  std::string Error;
#if LLVM_VERSION_MAJOR >= 22
  const Target *Target = TargetRegistry::lookupTarget(T, Error);
#else
  const Target *Target = TargetRegistry::lookupTarget(T.str(), Error);
#endif
  return Target && Target->hasMCAsmParser();
}

/// Whether \p F's slow branch can be the frameless asm call: x86-64 ELF,
/// an assembler for inline asm in this compiler, and no x87 value (the
/// thunk's callee may use the x87 stack, which the asm cannot hand over
/// empty).
static bool framelessSlowCall(const Function &F) {
  Triple T(F.getParent()->getTargetTriple());
  if (T.getArch() != Triple::x86_64 || !T.isOSBinFormatELF() ||
      !canAssembleInlineAsm(T))
    return false;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB) {
      if (I.getType()->isX86_FP80Ty())
        return false;
      for (const Value *Op : I.operands())
        if (Op->getType()->isX86_FP80Ty())
          return false;
    }
  return true;
}

/// Whether \p F's indirect calls must go through a thunk that stops
/// speculation (-mretpoline, -mretpoline-external-thunk,
/// -mspeculative-load-hardening, -mlvi-cfi): an indirect call written in
/// inline asm would not.
static bool hardensIndirectCalls(const Function &F) {
  StringRef Features = F.getFnAttribute("target-features").getValueAsString();
  return Features.contains("+retpoline-indirect-calls") ||
         Features.contains("+lvi-cfi");
}

/// The frameless slow call (thread_arena.c, __scopealloc_frame_thunk_regs):
/// an asm call rather than an IR call, so that the function needs no stack
/// frame for it. Size and alignment go in rax and rdx, {mark, frame} come
/// back there; the thunk keeps every other register. The stack pointer
/// never moves inside the function's own instructions, so the function's
/// CFI is right at each of them (an asynchronous cancel or a signal
/// handler's unwinder may stop at any), whether its CFA is based on rsp or
/// on a frame pointer. The call writes its return address over the red
/// zone's top word: the asm keeps that word in r11 and puts it back; the
/// thunk steps over the rest of the red zone. Under retpoline the call is
/// direct (through the PLT when the runtime is shared: the function then
/// keeps nothing in the red zone, which a lazy-binding resolver would
/// overwrite). The vector registers, flags and x87 status are clobbered, as
/// preserve_most leaves them.
static CallInst *createFramelessSlowCall(IRBuilder<> &B, uint64_t Size,
                                         Align Alignment, Type *FrameTy) {
  Function &F = *B.GetInsertBlock()->getParent();
  const bool Direct = hardensIndirectCalls(F);
  std::string Asm, Constraints = "={rax},={rdx},0,1,~{r11}";
  if (Direct) {
    Asm = "call " SCOPEALLOC_SYM_FRAME_THUNK_REGS "@PLT";
    Constraints += ",~{r10}";
    F.addFnAttr(Attribute::NoRedZone);
    OptimizationRemarkEmitter ORE(&F);
    ORE.emit([&] {
      return OptimizationRemarkAnalysis("scope-alloc", "SlowPathDirectCall",
                                        &F)
             << "the frameless slow path calls " SCOPEALLOC_SYM_FRAME_THUNK_REGS
                " directly, not through its GOT slot: indirect calls are "
                "hardened (retpoline or LVI); the function keeps no red zone";
    });
  } else {
    Asm = "mov -8(%rsp), %r11\n\tcall *" SCOPEALLOC_SYM_FRAME_THUNK_REGS
          "@GOTPCREL(%rip)\n\tmov %r11, -8(%rsp)";
  }
  for (unsigned R = 0; R < 32; ++R)
    Constraints += ",~{xmm" + std::to_string(R) + "}";
  for (unsigned R = 0; R < 8; ++R)
    Constraints += ",~{k" + std::to_string(R) + "}";
  Constraints += ",~{memory},~{dirflag},~{fpsr},~{flags}";
  Type *IntPtr = B.getInt64Ty();
  auto *IA = InlineAsm::get(FunctionType::get(FrameTy, {IntPtr, IntPtr}, false),
                            Asm, Constraints, /*hasSideEffects=*/true);
  CallInst *Call =
      B.CreateCall(IA, {ConstantInt::get(IntPtr, Size),
                        ConstantInt::get(IntPtr, Alignment.value())});
  Call->addFnAttr(Attribute::NoUnwind);
  return Call;
}

static constexpr const char *PoolTypeName = "scopealloc.pool";
static constexpr const char *TLSPoolName = SCOPEALLOC_SYM_TLS_POOL;
/// The private constant that keeps the ABI version reference alive.
static constexpr const char *ABICheckName = "scopealloc.abi.check";

IntegerType *RuntimeABI::sizeType() const {
  return M.getDataLayout().getIntPtrType(M.getContext());
}

static StringRef calleeName(const CallInst &CI) {
  const Function *Callee = CI.getCalledFunction();
  return Callee ? Callee->getName() : StringRef();
}

bool RuntimeABI::changesDefaultPool(const CallInst &CI) const {
  StringRef Name = calleeName(CI);
  return Name == SCOPEALLOC_SYM_ALLOC || Name == SCOPEALLOC_SYM_RELEASE;
}

bool RuntimeABI::isRelease(const CallInst &CI) const {
  return calleeName(CI) == SCOPEALLOC_SYM_RELEASE;
}

FunctionCallee RuntimeABI::function(StringRef Name, Type *Ret,
                                    ArrayRef<Type *> Params) {
  FunctionType *Ty = FunctionType::get(Ret, Params, false);
  assert((!runtimeFunctionType(Name) || runtimeFunctionType(Name) == Ty) &&
         "runtime function used with another type than checkModule's");
  referenceABIVersion();
  FunctionCallee Callee = M.getOrInsertFunction(Name, Ty);
  // The runtime never unwinds: exhaustion aborts or longjmps out.
  if (auto *Fn = dyn_cast<Function>(Callee.getCallee()))
    Fn->setDoesNotThrow();
  return Callee;
}

CallInst *RuntimeABI::noteFrame(IRBuilder<> &B, Value *Frame, Value *Desc) {
  return B.CreateCall(function(SCOPEALLOC_SYM_NOTE_FRAME, B.getVoidTy(),
                               {B.getPtrTy(), B.getPtrTy()}),
                      {Frame, Desc});
}

void RuntimeABI::referenceABIVersion() {
  if (M.getNamedGlobal(ABICheckName))
    return;
  // A strong reference to the runtime's __scopealloc_abi_v<N>, kept through
  // llvm.used (and the linker's section GC) by a private pointer to it, as
  // ASan's __asan_version_mismatch_check_v<N>: a runtime of another ABI
  // version fails the link with the versioned name undefined.
  LLVMContext &C = M.getContext();
  Constant *Version = M.getOrInsertGlobal(SCOPEALLOC_ABI_VERSION_SYMBOL_NAME,
                                          Type::getInt8Ty(C));
  if (auto *GV = dyn_cast<GlobalVariable>(Version))
    GV->setConstant(true);
  auto *Check = new GlobalVariable(
      M, PointerType::getUnqual(C),
      /*isConstant=*/true, GlobalValue::PrivateLinkage, Version, ABICheckName);
  appendToUsed(M, {Check});
}

/// struct scopealloc_pool of <scopealloc/scopealloc.h>; the field numbers
/// the inline fast path touches (scopealloc.h asserts them).
enum PoolField : unsigned {
  Cur = SCOPEALLOC_POOL_FIELD_CUR,
  Bound = SCOPEALLOC_POOL_FIELD_BOUND,
  Allocs = SCOPEALLOC_POOL_FIELD_ALLOCS
};

SmallVector<Type *, 12> RuntimeABI::poolFields() const {
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C);
  Type *U64 = Type::getInt64Ty(C);
  // cur, limit, high, base, bound, reserve_end, name, unrounded, allocs,
  // failures, owner, next
  SmallVector<Type *, 12> Fields = {Ptr, Ptr, Ptr, Ptr, Ptr, Ptr,
                                    Ptr, Ptr, U64, U64, Ptr, Ptr};
  assert(Fields.size() == SCOPEALLOC_POOL_FIELD_COUNT &&
         Fields[PoolField::Cur] == Ptr && Fields[PoolField::Bound] == Ptr &&
         Fields[PoolField::Allocs] == U64 && "pool fields out of date");
  return Fields;
}

StructType *RuntimeABI::poolType() {
  LLVMContext &C = M.getContext();
  StructType *PoolTy = StructType::getTypeByName(C, PoolTypeName);
  if (!PoolTy)
    PoolTy = StructType::create(C, PoolTypeName);
  if (PoolTy->isOpaque())
    PoolTy->setBody(poolFields());
  // checkModule rejected any other body before anything was rewritten.
  assert(PoolTy->elements() == ArrayRef<Type *>(poolFields()) &&
         "conflicting %scopealloc.pool");
  return PoolTy;
}

bool RuntimeABI::isPoolType(Type *Ty) const {
  // C's struct scopealloc_pool (%struct.scopealloc_pool from clang) or ours;
  // an opaque struct when the module only declares the pool.
  auto *ST = dyn_cast<StructType>(Ty);
  return ST &&
         (ST->isOpaque() || (!ST->isPacked() &&
                             ST->elements() == ArrayRef<Type *>(poolFields())));
}

FunctionType *RuntimeABI::runtimeFunctionType(StringRef Name) const {
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C);
  Type *Void = Type::getVoidTy(C);
  Type *Size = sizeType();
  auto Fn = [](Type *Ret, ArrayRef<Type *> Params) {
    return FunctionType::get(Ret, Params, /*isVarArg=*/false);
  };
  return StringSwitch<FunctionType *>(Name)
      .Case(SCOPEALLOC_SYM_MARK, Fn(Ptr, {}))
      .Case(SCOPEALLOC_SYM_ALLOC, Fn(Ptr, {Size, Size}))
      .Case(SCOPEALLOC_SYM_RELEASE, Fn(Void, {Ptr}))
      .Case(SCOPEALLOC_SYM_FRAME_SLOW,
            Fn(StructType::get(C, {Ptr, Ptr}), {Size, Size}))
      .Case(SCOPEALLOC_SYM_POOL_MARK, Fn(Ptr, {Ptr}))
      .Case(SCOPEALLOC_SYM_POOL_ALLOC, Fn(Ptr, {Ptr, Size, Size}))
      .Case(SCOPEALLOC_SYM_POOL_RELEASE, Fn(Void, {Ptr, Ptr}))
      .Case(SCOPEALLOC_SYM_NOTE_FRAME, Fn(Void, {Ptr, Ptr}))
      .Default(nullptr);
}

/// Whether \p Have may stand for the runtime function type \p Want: the same
/// type, or for __scopealloc_frame_slow the two-register return that C
/// gives a struct of two pointers on AArch64 ([2 x i64]).
static bool sameRuntimeFunction(FunctionType *Have, FunctionType *Want,
                                const DataLayout &DL) {
  if (Have == Want)
    return true;
  auto *Ret = dyn_cast<StructType>(Want->getReturnType());
  auto *HaveRet = dyn_cast<ArrayType>(Have->getReturnType());
  return Ret && HaveRet && Have->params() == Want->params() &&
         !Have->isVarArg() && HaveRet->getNumElements() == 2 &&
         HaveRet->getElementType() == DL.getIntPtrType(Have->getContext());
}

static std::string typeText(const Type *Ty) {
  std::string S;
  raw_string_ostream OS(S);
  Ty->print(OS);
  return S;
}

static std::string bodyText(const StructType *ST) {
  std::string S;
  raw_string_ostream OS(S);
  if (ST->isOpaque())
    return "opaque";
  OS << (ST->isPacked() ? "<{ " : "{ ");
  ListSeparator LS;
  for (Type *T : ST->elements())
    OS << LS << *T;
  OS << (ST->isPacked() ? " }>" : " }");
  return S;
}

static std::string kindText(const GlobalValue &GV) {
  if (isa<Function>(GV))
    return "a function";
  if (isa<GlobalAlias>(GV))
    return "an alias";
  if (isa<GlobalIFunc>(GV))
    return "an ifunc";
  return "a global variable";
}

bool RuntimeABI::checkModule() {
  bool OK = true;
  std::string PoolBody = "{ ";
  {
    raw_string_ostream OS(PoolBody);
    ListSeparator LS;
    for (Type *T : poolFields())
      OS << LS << *T;
    OS << " }";
  }
  std::string PoolDesc = "struct scopealloc_pool '" + PoolBody +
                         "' (runtime ABI version " +
                         std::to_string(SCOPEALLOC_ABI_VERSION) + ")";
  auto Conflict = [&](const Twine &What, const Twine &Why,
                      const Twine &Expected) {
    reportModuleError(M, What + " conflicts with the ScopeAlloc runtime: " +
                             Why + "; expected " + Expected +
                             ". No function of the module was rewritten");
    OK = false;
  };

  // Identified struct types are per context; the pass gives the body to an
  // opaque one.
  if (StructType *ST = StructType::getTypeByName(M.getContext(), PoolTypeName);
      ST && !ST->isOpaque() &&
      (ST->isPacked() || ST->elements() != ArrayRef<Type *>(poolFields())))
    Conflict("type %" + Twine(PoolTypeName),
             "its body is '" + bodyText(ST) + "'", PoolDesc);

  // The calling thread's default pool.
  if (GlobalValue *GV = M.getNamedValue(TLSPoolName)) {
    auto *Var = dyn_cast<GlobalVariable>(GV);
    std::string Expected = "an external thread_local global holding " +
                           PoolDesc +
                           ", as <scopealloc/scopealloc.h> declares it";
    std::string Name = "@" + std::string(TLSPoolName);
    if (!Var)
      Conflict(Name, "it is " + kindText(*GV), Expected);
    else if (!Var->isThreadLocal())
      Conflict(Name, "it is not thread_local", Expected);
    else if (Var->getAddressSpace() != 0)
      Conflict(Name, "it is in address space " + Twine(Var->getAddressSpace()),
               Expected);
    else if (!isPoolType(Var->getValueType()))
      Conflict(Name, "its type is '" + typeText(Var->getValueType()) + "'",
               Expected);
  }

  for (GlobalValue &GV : M.global_values()) {
    StringRef Name = GV.getName();
    if (!Name.starts_with(SCOPEALLOC_SYMBOL_PREFIX))
      continue;
    std::string IRName = "@" + Name.str();
    if (FunctionType *Want = runtimeFunctionType(Name)) {
      std::string Expected = "a function of type '" + typeText(Want) + "'" +
                             " (<scopealloc/scopealloc.h> declares it)";
      auto *F = dyn_cast<Function>(&GV);
      if (!F)
        Conflict(IRName, "it is " + kindText(GV), Expected);
      else if (!sameRuntimeFunction(F->getFunctionType(), Want,
                                    M.getDataLayout()))
        Conflict(IRName,
                 "it is declared with type '" + typeText(F->getFunctionType()) +
                     "'",
                 Expected);
      continue;
    }
    // A named pool: the application's SCOPEALLOC_DEFINE_POOL, which this
    // module may define or declare.
    if (!Name.starts_with(SCOPEALLOC_POOL_SYMBOL_PREFIX))
      continue;
    std::string Expected = "a global (not thread_local) holding " + PoolDesc +
                           ", as SCOPEALLOC_DEFINE_POOL defines it";
    auto *Var = dyn_cast<GlobalVariable>(&GV);
    if (!Var)
      Conflict(IRName, "it is " + kindText(GV), Expected);
    else if (Var->isThreadLocal())
      Conflict(IRName, "it is thread_local", Expected);
    else if (Var->getAddressSpace() != 0)
      Conflict(IRName,
               "it is in address space " + Twine(Var->getAddressSpace()),
               Expected);
    else if (!isPoolType(Var->getValueType()))
      Conflict(IRName, "its type is '" + typeText(Var->getValueType()) + "'",
               Expected);
  }
  return OK;
}

GlobalVariable *RuntimeABI::poolGlobal(StringRef Pool) {
  std::string Symbol = poolSymbolName(Pool);
  if (GlobalVariable *GV = M.getGlobalVariable(Symbol, /*AllowLocal=*/true))
    return GV;
  return new GlobalVariable(M, poolType(), /*isConstant=*/false,
                            GlobalValue::ExternalLinkage, nullptr, Symbol);
}

/// Whether \p M is for an Arm bare-metal target: no OS, no TLS, where the
/// freestanding runtime's default pool is the application's global pool
/// `workspace` at a fixed address, whose state a task switch swaps in
/// place (task_arena.c).
static bool isArmBareMetal(const Module &M) {
  Triple T(M.getTargetTriple());
  return T.getOS() == Triple::UnknownOS &&
         (T.getArch() == Triple::thumb || T.getArch() == Triple::arm) &&
         T.isOSBinFormatELF();
}

bool RuntimeABI::canInlineDefaultPool(const Function &F) {
  // Bare-metal triples (OS "none" or missing) have no TLS to put the pool in.
  // On Arm (Cortex-M) the inline bump reads the fixed pool `workspace`
  // instead; elsewhere (RISC-V, AArch64, no triple) the runtime serves the
  // default pool by call.
  if (Triple(F.getParent()->getTargetTriple()).getOS() == Triple::UnknownOS &&
      !isArmBareMetal(*F.getParent()))
    return false;
  // The runtime poisons released memory for these; a store would not.
  return !F.hasFnAttribute(Attribute::SanitizeAddress) &&
         !F.hasFnAttribute(Attribute::SanitizeHWAddress) &&
         !F.hasFnAttribute(Attribute::SanitizeMemTag) &&
         !F.isPresplitCoroutine(); // a coroutine may resume on another thread
}

bool RuntimeABI::isGuardedFrame(const Function &F, uint64_t Size,
                                Align Alignment) {
  // Only the hosted Linux runtime maps the guard and handles its faults,
  // and its handler knows the marker store of these two architectures.
  Triple T(F.getParent()->getTargetTriple());
  if (!T.isOSLinux() ||
      (T.getArch() != Triple::x86_64 && T.getArch() != Triple::aarch64) ||
      fastPathCheckFor(F) != FastPathCheck::Guarded)
    return false;
  // With more than the granule's alignment the frame would not start at cur,
  // and the marker would not bound what it skipped.
  return Alignment.value() <= SCOPEALLOC_DEFAULT_POOL_GRANULE &&
         alignTo(std::max<uint64_t>(Size, 1),
                 Align(SCOPEALLOC_DEFAULT_POOL_GRANULE)) <=
             SCOPEALLOC_GUARDED_FRAME_MAX;
}

RuntimeABI::InlineFrame
RuntimeABI::inlineFrame(Instruction *Before, uint64_t Size, Align Alignment) {
  LLVMContext &C = M.getContext();
  referenceABIVersion();
  StructType *PoolTy = poolType();
  // Bare metal (Arm): the default pool is the global pool `workspace`,
  // whose fields the running task's state occupies (the task switch copies
  // it in place), so one address reaches the current arena.
  const bool BareMetal = isArmBareMetal(M);
  GlobalVariable *TLS = nullptr;
  if (BareMetal) {
    TLS = poolGlobal(DefaultPoolName);
  } else if (!(TLS = M.getGlobalVariable(TLSPoolName, /*AllowLocal=*/true))) {
    TLS = new GlobalVariable(M, PoolTy, /*isConstant=*/false,
                             GlobalValue::ExternalLinkage, nullptr, TLSPoolName,
                             nullptr, TLSModelOpt);
  }
  IntegerType *IntPtr = sizeType();
  Type *Ptr = PointerType::getUnqual(C);
  const DataLayout &DL = M.getDataLayout();
  Align PtrAlign = DL.getPointerABIAlignment(0);
  // Every allocation starts at least 8-aligned, as the runtime's do; a frame
  // is never empty, so an arena-less thread (cur == bound == NULL) goes
  // cold. While the fast path is open the pool's top is a multiple of the
  // granule, and the fast path keeps it one by rounding the frame's size up
  // to it, as the runtime then rounds its allocations: a frame aligned to at
  // most the granule starts at cur. The slow path gets the frame as it is
  // (with exact counts on, the runtime neither rounds nor needs to).
  // Bare metal: the fixed pool's top is a multiple of 8 (the runtime rounds
  // its frames' ends to SCOPEALLOC_MIN_ALIGN there, as scopealloc-bound
  // counts every bump), so frames aligned to at most 8 start at cur.
  const Align Granule(BareMetal ? SCOPEALLOC_MIN_ALIGN
                                : SCOPEALLOC_DEFAULT_POOL_GRANULE);
  Alignment = std::max(Alignment, Align(SCOPEALLOC_MIN_ALIGN));
  Size = std::max<uint64_t>(Size, 1);
  const uint64_t FastSize = alignTo(Size, Granule);

  // Stores are plain-width atomics (monotonic: an ordinary mov) because
  // other threads read these fields for process statistics. Loads are
  // unordered: only this thread writes `cur`, and the one other writer of
  // `bound` (scopealloc_set_exact_stats storing NULL) needs no ordering,
  // only an untorn value; unlike monotonic, an unordered load folds into
  // x86's compare (`cmp %fs:32(%r), %end`: one instruction less per
  // frame). Bare metal has one thread: plain accesses (Cortex-M0 has no
  // atomic instructions, and LLVM would call __atomic_load_4 for an atomic
  // load there); the fences below order them against the frame's accesses
  // for interrupt handlers.
  auto Load = [&](IRBuilder<> &B, Type *Ty, Value *Addr, Align A,
                  const Twine &Name) {
    LoadInst *L = B.CreateAlignedLoad(Ty, Addr, A, Name);
    if (!BareMetal)
      L->setAtomic(AtomicOrdering::Unordered);
    return L;
  };
  auto Store = [&](IRBuilder<> &B, Value *V, Value *Addr, Align A) {
    StoreInst *S = B.CreateAlignedStore(V, Addr, A);
    if (!BareMetal)
      S->setAtomic(AtomicOrdering::Monotonic);
  };

  IRBuilder<> B(Before);
  Value *Pool = BareMetal ? static_cast<Value *>(TLS)
                          : createThreadLocalAddress(B, TLS, "scopealloc.pool");
  Value *Cur = Load(B, Ptr, Pool, PtrAlign, "scopealloc.cur");
  // The bound is the pool's high-water mark, not its committed limit
  // (high <= limit always): a frame that would set a new peak takes the slow
  // path, which records it, so the fast path never updates the peak. Once a
  // thread's usual depth has been reached, every frame fits under it. With
  // exact counts on, the runtime sets it to NULL: every frame goes cold.
  Value *BoundAddr = B.CreateStructGEP(PoolTy, Pool, PoolField::Bound);
  Value *Bound = Load(B, Ptr, BoundAddr, PtrAlign, "scopealloc.bound");
  // frame = align_up(cur) (cur itself up to the granule); fits when
  // frame + size <= bound. Pointers stay pointers (ptrmask, not inttoptr)
  // so alias analysis keeps provenance. An arena-less thread has cur ==
  // bound == NULL: frame + size > NULL.
  Value *Frame0 = Cur;
  if (Alignment > Granule)
    Frame0 = B.CreateIntrinsic(
        Intrinsic::ptrmask, {Ptr, IntPtr},
        {B.CreateGEP(B.getInt8Ty(), Cur,
                     ConstantInt::get(IntPtr, Alignment.value() - 1)),
         ConstantInt::get(IntPtr, -Alignment.value())});
  Value *End =
      B.CreateGEP(B.getInt8Ty(), Frame0, ConstantInt::get(IntPtr, FastSize),
                  "scopealloc.end");
  const bool Guarded = isGuardedFrame(*Before->getFunction(), Size, Alignment);
  // A guarded frame asks the bound only whether the fast path is open.
  Value *Fits = Guarded ? B.CreateIsNotNull(Bound, "scopealloc.open")
                        : B.CreateICmpULE(End, Bound, "scopealloc.fits");

  Instruction *FastTerm, *SlowTerm;
  SplitBlockAndInsertIfThenElse(Fits, Before, &FastTerm, &SlowTerm,
                                createLikelyBranchWeights(C));
  FastTerm->getParent()->setName("scopealloc.fast");
  SlowTerm->getParent()->setName("scopealloc.slow");
  Before->getParent()->setName("scopealloc.frame.ready");

  IRBuilder<> Fast(FastTerm);
  Value *FastFrame = Frame0;
  if (Guarded) {
    // The probe: the byte just above the frame, written before cur moves, so
    // that a frame running into the guard faults while cur still holds the
    // frame's start (the runtime's report then knows the size) and a
    // signal handler that runs meanwhile bumps from below it. Volatile: it
    // must stay, stay first, and stay one store. The runtime finds the
    // peak as the highest nonzero byte above `high`: nothing else is ever
    // written at or above the highest frame's top.
    Fast.CreateStore(Fast.getInt8(SCOPEALLOC_GUARD_MARKER), End,
                     /*isVolatile=*/true);
  }
  Store(Fast, End, Pool, PtrAlign);
  if (BareMetal) {
    // An interrupt handler takes its frames from cur: no access to the frame
    // may move above the store that claims it (a compiler barrier; no
    // instruction).
    Fast.CreateFence(AtomicOrdering::SequentiallyConsistent,
                     SyncScope::SingleThread);
  }
  if (CountInlineFrames) {
    Value *AllocsAddr = Fast.CreateStructGEP(PoolTy, Pool, PoolField::Allocs);
    Type *U64 = Fast.getInt64Ty();
    Align U64Align = DL.getABITypeAlign(U64);
    Value *Allocs = Load(Fast, U64, AllocsAddr, U64Align, "scopealloc.allocs");
    if (DL.getPointerSize() < 8) // no 64-bit atomic mov on 32-bit targets
      cast<LoadInst>(Allocs)->setAtomic(AtomicOrdering::NotAtomic);
    Value *MoreAllocs = Fast.CreateAdd(Allocs, ConstantInt::get(U64, 1));
    StoreInst *StoreAllocs =
        Fast.CreateAlignedStore(MoreAllocs, AllocsAddr, U64Align);
    if (DL.getPointerSize() >= 8)
      StoreAllocs->setAtomic(AtomicOrdering::Monotonic);
  }

  IRBuilder<> Slow(SlowTerm);
  Value *SlowMark, *SlowFrame;
  // A frame aligned to at most 8 is its own mark: one value live through
  // the function (one register, no copy on the fast path, where frame and
  // mark are both cur). The runtimes keep the default pool's top a multiple
  // of 8 (hosted: 16, or 8 with exact counts; bare metal: 8), so the slow
  // path's frame starts at the top it found. Larger alignments keep the
  // mark: their padding would be left allocated above the caller's top.
  const bool FrameIsMark = Alignment <= Align(SCOPEALLOC_MIN_ALIGN);
  auto unpackSlowFrame = [&](CallInst *Call) {
    SlowMark = FrameIsMark ? nullptr : Slow.CreateExtractValue(Call, 0);
    SlowFrame = Slow.CreateExtractValue(Call, 1);
    if (FrameIsMark)
      SlowMark = SlowFrame;
  };
  Triple::ArchType Arch = Triple(M.getTargetTriple()).getArch();
  // Without nonlazybind the call may go through a lazy PLT stub, whose
  // resolver keeps only the argument registers: the standard convention.
  bool PreserveMostArch =
      Arch == Triple::x86_64 ||
      (Arch == Triple::aarch64 && SCOPEALLOC_HAVE_AARCH64_NONLAZYBIND);
  SlowPath Convention = slowPathFor(*Before->getFunction());
  if (Convention == SlowPath::Frameless &&
      framelessSlowCall(*Before->getFunction())) {
    Type *FrameTy = StructType::get(C, {Ptr, Ptr});
    CallInst *Call = createFramelessSlowCall(Slow, Size, Alignment, FrameTy);
    unpackSlowFrame(Call);
  } else if (PreserveMostArch && Convention != SlowPath::Standard) {
    // One call that clobbers (almost) no register: the fast path keeps its
    // values in caller-saved registers instead of spilling them around it.
    Type *FrameTy = StructType::get(C, {Ptr, Ptr});
    FunctionCallee SlowFn =
        function(SCOPEALLOC_SYM_FRAME_SLOW, FrameTy, {IntPtr, IntPtr});
    auto *SlowDecl = cast<Function>(SlowFn.getCallee());
    SlowDecl->setCallingConv(CallingConv::PreserveMost);
    // Called through the GOT, never a lazy PLT stub: glibc's lazy-binding
    // resolver saves only the argument registers, so the first call into the
    // shared runtime would clobber registers (r10, r11 on x86-64; x9-x15 on
    // AArch64) that preserve_most promises to keep. Static links relax the
    // GOT call to a direct one.
    SlowDecl->addFnAttr(Attribute::NonLazyBind);
    CallInst *Call =
        Slow.CreateCall(SlowFn, {ConstantInt::get(IntPtr, Size),
                                 ConstantInt::get(IntPtr, Alignment.value())});
    Call->setCallingConv(CallingConv::PreserveMost);
    unpackSlowFrame(Call);
  } else if (FrameIsMark) {
    // One call, and one value live through the function: the frame is its
    // own mark. Where the top is not a multiple of 8 (a pool over unaligned
    // memory, a runtime before the fast path), the release leaves the few
    // bytes of padding below the frame allocated until the caller's own
    // release, as a frame of the caller would hold them.
    SlowFrame = alloc(Slow, "", ConstantInt::get(IntPtr, Size), Alignment);
    SlowMark = SlowFrame;
  } else {
    SlowMark = mark(Slow, "");
    SlowFrame = alloc(Slow, "", ConstantInt::get(IntPtr, Size), Alignment);
  }

  B.SetInsertPoint(&*Before->getParent()->begin());
  PHINode *Mark = B.CreatePHI(Ptr, 2, "scopealloc.mark");
  Mark->addIncoming(Cur, FastTerm->getParent());
  Mark->addIncoming(SlowMark, SlowTerm->getParent());
  PHINode *Frame = B.CreatePHI(Ptr, 2, "scopealloc.frame");
  Frame->addIncoming(FastFrame, FastTerm->getParent());
  Frame->addIncoming(SlowFrame, SlowTerm->getParent());
  B.SetInsertPoint(Before);
  B.CreateAlignmentAssumption(DL, Frame, Alignment.value());
  return {Pool, Mark, Frame};
}

StoreInst *RuntimeABI::inlineRelease(IRBuilder<> &B, const InlineFrame &Frame) {
  // Bare metal: nothing of the frame may be accessed below the store that
  // hands it to the next interrupt handler (a compiler barrier).
  const bool BareMetal = isArmBareMetal(M);
  if (BareMetal)
    B.CreateFence(AtomicOrdering::SequentiallyConsistent,
                  SyncScope::SingleThread);
  StoreInst *Store = B.CreateAlignedStore(
      Frame.Mark, Frame.Pool, M.getDataLayout().getPointerABIAlignment(0));
  if (!BareMetal)
    Store->setAtomic(AtomicOrdering::Monotonic);
  return Store;
}

CallInst *RuntimeABI::mark(IRBuilder<> &B, StringRef Pool) {
  Type *Ptr = B.getPtrTy();
  if (Pool.empty())
    return B.CreateCall(function(SCOPEALLOC_SYM_MARK, Ptr, {}));
  return B.CreateCall(function(SCOPEALLOC_SYM_POOL_MARK, Ptr, {Ptr}),
                      {poolGlobal(Pool)});
}

CallInst *RuntimeABI::alloc(IRBuilder<> &B, StringRef Pool, Value *Bytes,
                            Align Alignment) {
  Type *Ptr = B.getPtrTy();
  IntegerType *Size = sizeType();
  Value *AlignArg = ConstantInt::get(Size, Alignment.value());
  CallInst *CI;
  if (Pool.empty())
    CI = B.CreateCall(function(SCOPEALLOC_SYM_ALLOC, Ptr, {Size, Size}),
                      {Bytes, AlignArg});
  else
    CI = B.CreateCall(
        function(SCOPEALLOC_SYM_POOL_ALLOC, Ptr, {Ptr, Size, Size}),
        {poolGlobal(Pool), Bytes, AlignArg});
  // Codegen may rely on the alignment the alloca had.
  CI->addRetAttr(Attribute::getWithAlignment(B.getContext(), Alignment));
  CI->addRetAttr(Attribute::NonNull);
  return CI;
}

CallInst *RuntimeABI::release(IRBuilder<> &B, StringRef Pool, Value *Mark) {
  Type *Ptr = B.getPtrTy();
  if (Pool.empty())
    return B.CreateCall(function(SCOPEALLOC_SYM_RELEASE, B.getVoidTy(), {Ptr}),
                        {Mark});
  return B.CreateCall(
      function(SCOPEALLOC_SYM_POOL_RELEASE, B.getVoidTy(), {Ptr, Ptr}),
      {poolGlobal(Pool), Mark});
}

} // namespace scopealloc
