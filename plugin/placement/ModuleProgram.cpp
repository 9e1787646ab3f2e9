//===- ModuleProgram.cpp - The whole-program module as a call graph -------===//
#include "placement/ModuleProgram.h"
#include "OptionCategory.h"
#include "facts/StackFacts.h"
#include "policy/StackPolicy.h"
#include "scopealloc/abi_constants.h"
#include "transform/RuntimeABI.h"

#include "LLVMCompat.h" // llvm/TargetParser/Triple.h
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

static cl::opt<int64_t> FrameOverheadOption(
    "scope-alloc-fit-frame-overhead", cl::Hidden,
    cl::cat(scopealloc::optionCategory()), cl::init(-1),
    cl::value_desc("bytes"),
    cl::desc("Bytes the stack-bound fit adds to every frame for the return "
             "address and saved registers (default: per target, "
             "docs/bound-fit.md)"));

static cl::opt<int64_t> RuntimeStackOption(
    "scope-alloc-fit-runtime-stack", cl::Hidden,
    cl::cat(scopealloc::optionCategory()), cl::init(-1),
    cl::value_desc("bytes"),
    cl::desc("Stack the stack-bound fit counts below a function that takes "
             "memory from a pool, for the runtime's slow path (default: "
             "scopealloc-bound's assumption on hosted targets, 256 bytes on "
             "freestanding ones, docs/bound-fit.md)"));

namespace scopealloc {

/// Whether code generation may keep \p F's values in floating-point or
/// vector registers, and so save the callee-saved ones (d8-d15 on ARM and
/// AArch64): any floating-point or vector value in it.
static bool usesFPOrVectorRegisters(const Function &F) {
  auto FPOrVector = [](Type *T) {
    return T->isFPOrFPVectorTy() || T->isVectorTy();
  };
  for (const Argument &A : F.args())
    if (FPOrVector(A.getType()))
      return true;
  if (FPOrVector(F.getReturnType()))
    return true;
  for (const Instruction &I : instructions(F)) {
    if (FPOrVector(I.getType()))
      return true;
    for (const Value *Op : I.operands())
      if (FPOrVector(Op->getType()))
        return true;
  }
  return false;
}

uint64_t fitFrameOverhead(const Function &F) {
  if (FrameOverheadOption >= 0)
    return FrameOverheadOption;
  // What a frame holds beyond its allocas when code generation saves every
  // callee-saved register the ABI has that the function can use (spill
  // slots beyond that are not counted: scopealloc-bound --check sees them).
  const Module &M = *F.getParent();
  TargetStack S = targetStack(Triple(M.getTargetTriple()).getArch(),
                              M.getDataLayout().getPointerSize());
  return usesFPOrVectorRegisters(F) ? S.SavedFPRegisters : S.SavedRegisters;
}

/// The stack's natural alignment, at most 16, and 16 when the data layout
/// does not say.
static Align stackAlignment(const DataLayout &DL) {
  MaybeAlign Natural = DL.getStackAlignment();
  return Natural ? std::min(*Natural, Align(16)) : Align(16);
}

ModuleProgram::ModuleProgram(Module &M, const bound::Settings &Declared,
                             const PlannedFunctions &Plans)
    : M(M), S(Declared), Plans(Plans),
      Target(targetStack(Triple(M.getTargetTriple()).getArch(),
                         M.getDataLayout().getPointerSize())),
      StackAlign(stackAlignment(M.getDataLayout())) {
  S.CallOverhead = Target.CallOverhead;
  S.RedZone = Target.RedZone;
  assumeRuntimeStack();
  buildImage();
}

/// The stack below a call into the runtime. The built-in table's sizes
/// are the hosted runtime's; a freestanding runtime carries facts, with
/// small frames, which the link's check counts: here its measured size,
/// and its API (scopealloc_*) as code outside the bitcode.
void ModuleProgram::assumeRuntimeStack() {
  bool Freestanding = Triple(M.getTargetTriple()).getOS() == Triple::UnknownOS;
  if (Freestanding) {
    SmallVector<StringRef, 8> API;
    for (const auto &A : S.Assumed)
      if (A.getKey().starts_with(SCOPEALLOC_API_PREFIX))
        API.push_back(A.getKey());
    for (StringRef Name : API)
      S.Assumed.erase(Name);
  }
  std::optional<uint64_t> Bytes;
  if (RuntimeStackOption >= 0)
    Bytes = RuntimeStackOption;
  else if (Freestanding)
    Bytes = Target.FreestandingRuntime;
  if (Bytes)
    for (const char *Name : {SCOPEALLOC_SYM_ALLOC, SCOPEALLOC_SYM_FRAME_SLOW,
                             SCOPEALLOC_SYM_POOL_ALLOC}) {
      S.Assumed[Name] = *Bytes;
      S.AssumedFrom[Name] = "the runtime's slow path";
    }
}

/// Addresses: the I-th defined function is at (I + 1) * 16.
static uint64_t addressOf(unsigned I) { return uint64_t(I + 1) * 16; }

Function *ModuleProgram::functionAt(uint64_t Address) const {
  if (!Address || Address % 16 || Address / 16 > Functions.size())
    return nullptr;
  return Functions[Address / 16 - 1];
}

const FunctionFacts &ModuleProgram::record(const Function &F) const {
  return Img.Records[RecordOf.lookup(&F)];
}

void ModuleProgram::buildImage() {
  Img.Machine = Triple(M.getTargetTriple()).getArchName().str();
  Img.AddressSize = M.getDataLayout().getPointerSize();
  Img.Hosted = Triple(M.getTargetTriple()).getOS() != Triple::UnknownOS;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    uint64_t Address = addressOf(Functions.size());
    Functions.push_back(&F);
    FunctionFacts Facts = collectFacts(F);
    Facts.Address = Address;
    keepStackDynamics(F, Facts);
    RecordOf[&F] = Img.Records.size();
    addSymbol(Facts.Name, Address, F.hasLocalLinkage());
    Img.Records.push_back(std::move(Facts));
    if (auto It = Plans.find(&F); It != Plans.end())
      for (const AllocaDecision &D : It->second.Decisions)
        if (D.Action == AllocaDecision::Demote)
          addRuntimeCall(F, D.Pool);
  }
  for (GlobalAlias &GA : M.aliases())
    if (auto *F = dyn_cast_or_null<Function>(GA.getAliaseeObject()))
      if (auto It = RecordOf.find(F); It != RecordOf.end())
        addSymbol(GA.getName().str(), Img.Records[It->second].Address,
                  GA.hasLocalLinkage());
  // Constructors and destructors are entry points, as in an image.
  for (auto [Table, Section] : {std::pair{"llvm.global_ctors", ".init_array"},
                                std::pair{"llvm.global_dtors", ".fini_array"}})
    if (GlobalVariable *GV = M.getNamedGlobal(Table))
      if (auto *Array = dyn_cast_or_null<ConstantArray>(
              GV->hasInitializer() ? GV->getInitializer() : nullptr))
        for (Value *Op : Array->operands())
          if (auto *Entry = dyn_cast<ConstantStruct>(Op))
            if (auto *F = dyn_cast<Function>(
                    Entry->getOperand(1)->stripPointerCasts()))
              if (auto It = RecordOf.find(F); It != RecordOf.end())
                Img.Startup.push_back(
                    {Section, Img.Records[It->second].Address});
}

void ModuleProgram::addSymbol(std::string Name, uint64_t Address, bool Local) {
  Img.FunctionNames[Address].push_back(Name);
  Img.AllFunctions[Name].push_back(Address);
  if (!Local)
    Img.GlobalFunctions[Name] = Address;
}

/// The dynamic allocations of \p F's record that stay on the stack
/// (collectFacts lists each dynamic alloca, in order).
void ModuleProgram::keepStackDynamics(Function &F, FunctionFacts &Facts) const {
  auto It = Plans.find(&F);
  if (It == Plans.end())
    return;
  SmallPtrSet<const AllocaInst *, 4> Demoted;
  for (const AllocaDecision &D : It->second.Decisions)
    if (D.Action == AllocaDecision::Demote)
      Demoted.insert(D.Alloca);
  std::vector<FunctionFacts::Dynamic> Kept;
  unsigned Next = 0;
  for (Instruction &I : instructions(F))
    if (auto *AI = dyn_cast<AllocaInst>(&I); AI && !AI->isStaticAlloca()) {
      if (Next < Facts.Dynamics.size() && !Demoted.count(AI))
        Kept.push_back(Facts.Dynamics[Next]);
      ++Next;
    }
  Facts.Dynamics = std::move(Kept);
}

/// The runtime function a frame of \p F that takes memory from \p Pool
/// calls when the fast path does not serve it (RuntimeABI.h): its stack
/// counts below \p F, as scopealloc-bound counts it. Whether the call
/// was added.
bool ModuleProgram::addRuntimeCall(Function &F, StringRef Pool) {
  StringRef Name = !Pool.empty() ? SCOPEALLOC_SYM_POOL_ALLOC
                   : RuntimeABI::canInlineDefaultPool(F)
                       ? SCOPEALLOC_SYM_FRAME_SLOW
                       : SCOPEALLOC_SYM_ALLOC;
  std::vector<FunctionFacts::SymbolUse> &Calls =
      Img.Records[RecordOf.lookup(&F)].Calls;
  if (any_of(Calls, [&](const auto &C) { return C.Name == Name; }))
    return false;
  Calls.push_back({Name.str(), /*Relocatable=*/false, 0, 0});
  return true;
}

void ModuleProgram::removeRuntimeCall(Function &F) {
  Img.Records[RecordOf.lookup(&F)].Calls.pop_back();
}

/// The allocas of \p F that stay on the stack: static ones with a
/// compile-time size.
static SmallVector<AllocaInst *, 8>
staticStackAllocas(Function &F, const PlannedFunctions &Plans) {
  SmallVector<AllocaInst *, 8> Out;
  if (auto It = Plans.find(&F); It != Plans.end()) {
    for (const AllocaDecision &D : It->second.Decisions)
      if (D.Action != AllocaDecision::Demote && D.Alloca->isStaticAlloca())
        Out.push_back(D.Alloca);
    return Out;
  }
  for (Instruction &I : instructions(F))
    if (auto *AI = dyn_cast<AllocaInst>(&I); AI && AI->isStaticAlloca())
      Out.push_back(AI);
  return Out;
}

/// The frame estimate of \p F: its allocas that stay, each at its
/// alignment, plus the target's per-frame overhead, at the stack's
/// alignment; as a frame size, without the call's own overhead (the
/// return address x86 pushes), which the bound rules add.
uint64_t ModuleProgram::frameSize(Function &F) {
  auto [It, New] = FrameCache.try_emplace(&F, 0);
  if (!New)
    return It->second;
  const DataLayout &DL = M.getDataLayout();
  uint64_t Bytes = 0;
  for (AllocaInst *AI : staticStackAllocas(F, Plans)) {
    std::optional<TypeSize> TS = getAllocationSize(*AI, DL);
    if (!TS || TS->isScalable())
      continue;
    Bytes = alignTo(Bytes, AI->getAlign()) + TS->getFixedValue();
  }
  uint64_t Own = alignTo(Bytes + fitFrameOverhead(F), StackAlign);
  It->second = Own > S.CallOverhead ? Own - S.CallOverhead : 0;
  return It->second;
}

/// The call graph of the plan as it stands. Code outside the bitcode
/// without an assumed size (native start-up code, a runtime archive the
/// link adds) counts 0 here, not as unbounded: only the link's check
/// sees its frames.
bound::CallGraph ModuleProgram::graph() {
  for (unsigned I = 0; I < Functions.size(); ++I)
    Img.StackSizes[addressOf(I)] = frameSize(*Functions[I]);
  bound::CallGraph G = bound::buildCallGraph(Img, S);
  OutsideNodes.clear();
  for (unsigned I = 0; I < G.Nodes.size(); ++I) {
    bound::Node &N = G.Nodes[I];
    auto NoFacts = [](const bound::Cause &C) {
      return C.Kind == bound::Cause::NoFacts;
    };
    if (N.Facts || N.TargetSet || none_of(N.Causes, NoFacts))
      continue;
    erase_if(N.Causes, NoFacts);
    N.Assumed = 0;
    OutsideNodes.insert(I);
  }
  return G;
}

} // namespace scopealloc
