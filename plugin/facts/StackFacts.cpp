//===- StackFacts.cpp - Per-function facts for whole-program bounds -------===//
#include "facts/StackFacts.h"
#include "FactsFormat.h"
#include "LLVMCompat.h"
#include "OptionCategory.h"
#include "Scope.h"
#include "facts/LTODeferral.h"
#include "support/Diagnostics.h"
#include "transform/AllocaDemotion.h"

#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Mangler.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace scopealloc {

static cl::opt<bool> FactsOption(
    "scope-alloc-facts", cl::cat(scopealloc::optionCategory()),
    cl::desc("Write each function's stack and pool facts into section "
             ".scopealloc_facts, for scopealloc-bound"),
    cl::init(false));
static cl::opt<bool> FactsOnlyOption(
    "scope-alloc-facts-only", cl::cat(scopealloc::optionCategory()),
    cl::desc("Write the facts of -scope-alloc-facts and place no allocation "
             "(code that must not be rewritten, e.g. the runtime)"),
    cl::init(false));

bool stackFactsRequested() { return FactsOption || FactsOnlyOption; }
bool onlyStackFactsRequested() { return FactsOnlyOption; }

/// The prefix that tells a record's inline asm from the program's.
static constexpr StringLiteral AsmPrefix = ".pushsection .scopealloc_facts,";

//===----------------------------------------------------------------------===//
// Type signatures
//===----------------------------------------------------------------------===//

static void printSignature(raw_ostream &OS, Type *T,
                           SmallPtrSetImpl<StructType *> &Open) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    if (ST->isOpaque()) {
      OS << "opaque";
      return;
    }
    if (!Open.insert(ST).second) { // cannot happen with opaque pointers
      OS << "...";
      return;
    }
    OS << (ST->isPacked() ? "<{" : "{");
    if (ST->getNumElements()) {
      OS << ' ';
      ListSeparator LS;
      for (Type *E : ST->elements()) {
        OS << LS;
        printSignature(OS, E, Open);
      }
      OS << ' ';
    }
    OS << (ST->isPacked() ? "}>" : "}");
    Open.erase(ST);
    return;
  }
  if (auto *AT = dyn_cast<ArrayType>(T)) {
    OS << '[' << AT->getNumElements() << " x ";
    printSignature(OS, AT->getElementType(), Open);
    OS << ']';
    return;
  }
  if (auto *FT = dyn_cast<FunctionType>(T)) {
    printSignature(OS, FT->getReturnType(), Open);
    OS << " (";
    ListSeparator LS;
    for (Type *P : FT->params()) {
      OS << LS;
      printSignature(OS, P, Open);
    }
    if (FT->isVarArg())
      OS << LS << "...";
    OS << ')';
    return;
  }
  T->print(OS); // scalars, pointers, vectors of scalars
}

std::string typeSignature(const FunctionType *FT) {
  std::string S;
  raw_string_ostream OS(S);
  SmallPtrSet<StructType *, 4> Open;
  printSignature(OS, const_cast<FunctionType *>(FT), Open);
  return S;
}

//===----------------------------------------------------------------------===//
// Collecting
//===----------------------------------------------------------------------===//

static std::string symbolName(const GlobalValue &GV) {
  SmallString<64> Name;
  Mangler().getNameWithPrefix(Name, &GV, /*CannotUsePrivateLabel=*/false);
  return std::string(Name);
}

/// Whether every use of \p C ends in llvm.used, llvm.compiler.used or
/// llvm.global.annotations (section llvm.metadata): no program reference.
static bool onlyMetadataUses(const Constant &C) {
  for (const User *U : C.users()) {
    if (const auto *GV = dyn_cast<GlobalVariable>(U)) {
      if (GV->getSection() != "llvm.metadata")
        return false;
    } else if (const auto *CU = dyn_cast<Constant>(U)) {
      if (!onlyMetadataUses(*CU))
        return false;
    } else {
      return false;
    }
  }
  return true;
}

/// Address-taken in its module: a use other than as a callee, llvm.used or
/// an annotation.
static bool isAddressTaken(const Function &F) {
  for (const Use &U : F.uses()) {
    const User *Usr = U.getUser();
    if (const auto *CB = dyn_cast<CallBase>(Usr); CB && CB->isCallee(&U))
      continue;
    if (isa<BlockAddress>(Usr))
      continue;
    // In a global's initializer: a table, whoever reads it (llvm.used and
    // annotations aside).
    if (const auto *GV = dyn_cast<GlobalVariable>(Usr)) {
      if (GV->getSection() == "llvm.metadata")
        continue;
      return true;
    }
    if (const auto *C = dyn_cast<Constant>(Usr); C && onlyMetadataUses(*C))
      continue;
    return true;
  }
  return false;
}

/// Whether use \p U registers its function with a library that runs it
/// (LibraryCallbacks: pthread_create's routine, an atexit handler, ...).
static bool isRegistration(const Use &U) {
  const auto *CB = dyn_cast<CallBase>(U.getUser());
  const auto *Callee =
      CB ? dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts())
         : nullptr;
  if (!Callee || CB->isCallee(&U))
    return false;
  for (const facts::LibraryCallback &LC : facts::LibraryCallbacks)
    if (Callee->getName() == LC.Name && U.getOperandNo() == LC.Argument)
      return true;
  return false;
}

/// An RTOS's creation call whose entry is a function constant
/// (facts::TaskCreators): the task, with what of its name, stack array and
/// stack size the call gives as constants, for scopealloc-bound to bound
/// on its own stack.
static void addTaskCreation(const CallBase &CB, const Function &Callee,
                            FunctionFacts &Facts) {
  for (const facts::TaskCreator &TC : facts::TaskCreators) {
    if (Callee.getName() != TC.Name)
      continue;
    auto Arg = [&](int I) -> const Value * {
      return I >= 0 && unsigned(I) < CB.arg_size()
                 ? CB.getArgOperand(I)->stripPointerCasts()
                 : nullptr;
    };
    const auto *Entry = dyn_cast_or_null<Function>(Arg(TC.Entry));
    if (!Entry)
      return; // chosen at run time: the bound warns (CallGraph.cpp)
    FunctionFacts::TaskCreation T;
    T.Creator = TC.Name;
    T.Entry = symbolName(*Entry);
    // The name, the stack array and the stack size, where they are
    // constants: of the call's arguments, or of its attribute structure.
    auto Read = [&](auto Operand, int Name, int Stack, int Size,
                    uint64_t Unit) {
      StringRef Text;
      if (const Value *N = Operand(Name); N && getConstantStringInfo(N, Text))
        T.TaskName = Text.str();
      if (const Value *St = Operand(Stack))
        if (const auto *GV = dyn_cast<GlobalVariable>(getUnderlyingObject(St));
            GV && GV->hasName())
          T.StackSymbol = symbolName(*GV);
      if (const auto *Bytes = dyn_cast_or_null<ConstantInt>(Operand(Size)))
        T.StackBytes = Bytes->getZExtValue() * Unit;
    };
    Read(Arg, TC.TaskName, TC.Stack, TC.Size,
         TC.SizeInWords ? CB.getModule()->getDataLayout().getPointerSize()
                        : 1);
    // CMSIS-RTOS2: the attributes are a constant structure (STM32Cube's
    // `const osThreadAttr_t x_attributes = {.name, .stack_size, ...}`).
    if (const auto *AttrGV = dyn_cast_or_null<GlobalVariable>(Arg(TC.Attr));
        AttrGV && AttrGV->isConstant() && AttrGV->hasDefinitiveInitializer())
      if (const auto *Init =
              dyn_cast<ConstantAggregate>(AttrGV->getInitializer()))
        Read(
            [&](int I) -> const Value * {
              return I >= 0 && unsigned(I) < Init->getNumOperands()
                         ? Init->getOperand(I)->stripPointerCasts()
                         : nullptr;
            },
            TC.AttrName, TC.AttrStack, TC.AttrSize, 1);
    if (const DebugLoc &DL = CB.getDebugLoc())
      T.Line = DL.getLine();
    Facts.TaskCreations.push_back(std::move(T));
    return;
  }
}

/// Whether \p V's address reaches code the module does not show
/// (FlagAddressEscapes): an entry point whose address does may run at any
/// time, on any thread.
static bool addressEscapes(const Value &V) {
  for (const Use &U : V.uses()) {
    const User *Usr = U.getUser();
    if (const auto *CB = dyn_cast<CallBase>(Usr)) {
      if (CB->isCallee(&U) || isRegistration(U))
        continue;
      return true;
    }
    if (const auto *GA = dyn_cast<GlobalAlias>(Usr)) {
      if (addressEscapes(*GA))
        return true;
      continue;
    }
    if (isa<BlockAddress>(Usr) || isa<GlobalValue>(Usr))
      continue;
    if (const auto *C = dyn_cast<Constant>(Usr)) {
      if (!onlyMetadataUses(*C) && addressEscapes(*C))
        return true;
      continue;
    }
    if (const auto *SI = dyn_cast<StoreInst>(Usr);
        SI && SI->getPointerOperand() == U.get())
      continue;
    // Stored, returned, compared, cast to an integer...
    if (!isa<ICmpInst>(Usr))
      return true;
  }
  return false;
}

/// The functions a constant operand names, through constant expressions
/// and aggregates (not through global variables' initializers: the tool
/// finds those addresses in the image's data).
static void functionsIn(const Value *V,
                        SmallVectorImpl<const GlobalValue *> &Out,
                        SmallPtrSetImpl<const Constant *> &Seen) {
  const auto *C = dyn_cast<Constant>(V);
  if (!C || isa<GlobalVariable>(C) || isa<BlockAddress>(C) ||
      !Seen.insert(C).second)
    return;
  if (const auto *GA = dyn_cast<GlobalAlias>(C)) {
    if (isa_and_nonnull<Function>(GA->getAliaseeObject()))
      Out.push_back(GA);
    return;
  }
  if (const auto *F = dyn_cast<Function>(C)) {
    if (!F->isIntrinsic())
      Out.push_back(F);
    return;
  }
  if (isa<ConstantExpr>(C) || isa<ConstantAggregate>(C))
    for (const Use &Op : C->operands())
      functionsIn(Op.get(), Out, Seen);
}

/// Blocks in a CFG cycle: what runs there may run many times per call.
static SmallPtrSet<const BasicBlock *, 16> cyclicBlocks(const Function &F) {
  SmallPtrSet<const BasicBlock *, 16> Cyclic;
  for (scc_iterator<const Function *> I = scc_begin(&F); !I.isAtEnd(); ++I)
    if (I.hasCycle())
      for (const BasicBlock *BB : *I)
        Cyclic.insert(BB);
  return Cyclic;
}

/// The library function an intrinsic may become a call to, or "".
static StringRef libraryCallOf(const IntrinsicInst &II) {
  switch (II.getIntrinsicID()) {
  case Intrinsic::memcpy:
    return "memcpy";
  case Intrinsic::memmove:
    return "memmove";
  case Intrinsic::memset:
    return "memset";
  default:
    return "";
  }
}

static unsigned lineOf(const Instruction &I) {
  if (const DebugLoc &DL = I.getDebugLoc())
    return DL.getLine();
  return 0;
}

/// Whether a record may be relocated against \p GV: only what the module
/// defines. A relocation in a non-allocated section against a symbol that
/// a shared library defines is an error for GNU ld ("unresolvable
/// R_X86_64_64 relocation"); the tool finds those by name.
static bool relocatable(const GlobalValue &GV) { return !GV.isDeclaration(); }

namespace {
/// Calls and references, each symbol once, in first-seen order.
class SymbolList {
public:
  explicit SymbolList(std::vector<FunctionFacts::SymbolUse> &List)
      : List(List) {}
  void add(StringRef Name, bool Relocatable, uint64_t Flags = 0) {
    auto [It, New] = Index.try_emplace(Name, List.size());
    if (New)
      List.push_back({Name.str(), Relocatable, Flags});
    else
      List[It->second].Flags |= Flags;
  }

private:
  std::vector<FunctionFacts::SymbolUse> &List;
  StringMap<size_t> Index;
};
} // namespace

//===----------------------------------------------------------------------===//
// Calls from inline asm
//===----------------------------------------------------------------------===//

/// The mnemonics that call (push a return address or set a link register)
/// across the targets that take records, and those that only jump. A call
/// from inline asm is a call of the program the IR does not show.
static bool isAsmCallMnemonic(StringRef M) {
  static constexpr StringLiteral Calls[] = {
      "call",  "callq", "calll", "callw", // x86, RISC-V
      "bl",    "blx",   "blr",   "blraa", "blrab", "blraaz", "blrabz",
      "bl.w",                                    // ARM, Thumb, AArch64
      "jal",   "jalr",  "tail",                  // RISC-V, MIPS
      "jalrc", "bal",   "jialc", "jalx",         // MIPS
      "bctrl", "bla",                            // PowerPC
      "brasl", "bras",  "basr",  "balr",  "bas", // SystemZ
      "jirl"};                                   // LoongArch
  return is_contained(Calls, M);
}
/// Jumps that, to a function, are tail calls: that function runs on top of
/// the asm's caller, whose frame is still there.
static bool isAsmJumpMnemonic(StringRef M) {
  static constexpr StringLiteral Jumps[] = {"jmp", "jmpq", "b", "b.w", "j"};
  return is_contained(Jumps, M);
}
/// Calls whose target is a register, never a symbol.
static bool isAsmRegisterCall(StringRef M) {
  static constexpr StringLiteral Register[] = {
      "blr",   "blraa", "blrab", "blraaz", "blrabz", "jalr",
      "jalrc", "bctrl", "basr",  "balr",   "jirl",   "blx"};
  return is_contained(Register, M);
}

/// The IR operand (argument of \p CB) that asm operand number \p N stands
/// for, or null (an output, a label, out of range).
static const Value *asmOperand(const CallBase &CB, const InlineAsm &IA,
                               unsigned N) {
  unsigned Arg = 0, Number = 0;
  for (const InlineAsm::ConstraintInfo &C : IA.ParseConstraints()) {
    if (C.Type == InlineAsm::isClobber || C.Type == InlineAsm::isLabel)
      continue;
    bool TakesArg = C.Type == InlineAsm::isInput || C.isIndirect;
    if (Number == N)
      return TakesArg && Arg < CB.arg_size() ? CB.getArgOperand(Arg) : nullptr;
    ++Number;
    if (TakesArg)
      ++Arg;
  }
  return nullptr;
}

/// Statement \p S of an asm without its leading labels, which go to
/// \p Labels when given.
static StringRef dropLabels(StringRef S, SmallVectorImpl<StringRef> *Labels) {
  S = S.trim();
  while (true) {
    size_t Colon = S.find(':');
    if (Colon == StringRef::npos || Colon == 0 ||
        !all_of(S.take_front(Colon), [](char C) {
          return isAlnum(C) || C == '_' || C == '.' || C == '$';
        }))
      return S;
    if (Labels)
      Labels->push_back(S.take_front(Colon));
    S = S.drop_front(Colon + 1).trim();
  }
}

/// The calls \p IA makes (\p CB runs it): each function of the module that
/// a call or a jump names, by its symbol or as an operand ("call %P0" with
/// "i"(f)), is a call of the record, and a reference (the asm has its
/// address: plan: static keeps its frame on the bump, since the call sites
/// it places callees by do not include the asm); a symbol the module does not
/// have is a call by name (the bound finds it in the image, or says it has no
/// facts). A call whose target the asm does not name (a register, memory)
/// is an indirect call of type 'inline asm "<instruction>"', which no
/// function has: the bound of its callers is unbounded, and says so.
static void addAsmCalls(const CallBase &CB, const InlineAsm &IA,
                        SymbolList &Calls, SymbolList &Refs,
                        FunctionFacts &Facts) {
  StringRef Text = IA.getAsmString();
  if (Text.starts_with(AsmPrefix))
    return; // a record
  const Module &M = *CB.getModule();
  SmallVector<StringRef, 8> Statements, Labels;
  SplitString(Text, Statements, "\n;");
  // Labels the asm defines: calls to them stay inside it (call 1f; 1: pop).
  for (StringRef S : Statements)
    dropLabels(S, &Labels);
  for (StringRef S : Statements) {
    // Drop labels and comments.
    S = dropLabels(S, nullptr).split('#').first.split("//").first.trim();
    auto [Mnemonic, Rest] = getToken(S);
    std::string Lower = Mnemonic.lower();
    if (Lower == "notrack" || Lower == "bnd" || Lower == "rex64") {
      std::tie(Mnemonic, Rest) = getToken(Rest);
      Lower = Mnemonic.lower();
    }
    bool Call = isAsmCallMnemonic(Lower);
    if (!Call && !isAsmJumpMnemonic(Lower))
      continue;
    // The target is the last operand (jal ra, f).
    StringRef Target = Rest.trim();
    if (size_t Comma = Target.rfind(','); Comma != StringRef::npos)
      Target = Target.drop_front(Comma + 1).trim();
    // call *f@GOTPCREL(%rip) (x86-64): f, through its GOT slot, as the
    // inline fast path's frameless slow call does (RuntimeABI.cpp).
    if (Target.starts_with("*") && Target.ends_with("@GOTPCREL(%rip)"))
      Target = Target.drop_front(1);
    Target = Target.split('@').first.trim(); // f@PLT
    const Value *Named = nullptr;
    bool Symbol = false;
    if (Target.consume_front("${")) {
      unsigned N;
      if (!Target.consumeInteger(10, N))
        Named = asmOperand(CB, IA, N);
    } else if (Target.consume_front("$")) {
      unsigned N;
      if (!Target.consumeInteger(10, N))
        Named = asmOperand(CB, IA, N);
    } else if (!Target.empty() && !isAsmRegisterCall(Lower) &&
               (isAlpha(Target[0]) || Target[0] == '_' || Target[0] == '.') &&
               all_of(Target, [](char C) {
                 return isAlnum(C) || C == '_' || C == '.' || C == '$';
               })) {
      if (Target.starts_with(".L") || is_contained(Labels, Target))
        continue; // inside the asm
      Symbol = true;
      Named = M.getNamedValue(Target);
    } else if (!Target.empty() && isDigit(Target[0])) {
      continue; // a numeric local label (1f, 2b)
    }
    if (Named) {
      Named = Named->stripPointerCasts();
      if (const auto *GA = dyn_cast<GlobalAlias>(Named);
          GA && isa_and_nonnull<Function>(GA->getAliaseeObject())) {
        Calls.add(symbolName(*GA), relocatable(*GA));
        Refs.add(symbolName(*GA), relocatable(*GA));
        continue;
      }
      if (const auto *Fn = dyn_cast<Function>(Named)) {
        Calls.add(symbolName(*Fn), relocatable(*Fn));
        Refs.add(symbolName(*Fn), relocatable(*Fn));
        continue;
      }
    }
    if (Symbol && !Named) {
      // Not the module's: a function elsewhere, found by name. (A jump to a
      // name the module lacks is most likely the asm's own label in
      // another statement: left alone.)
      if (Call)
        Calls.add(Target, /*Relocatable=*/false);
      continue;
    }
    if (!Call)
      continue; // an indirect jump: the asm's own jump table, mostly
    ++Facts.IndirectCalls[("inline asm \"" + S + "\"").str()];
  }
}

FunctionFacts collectFacts(Function &F) {
  FunctionFacts Facts;
  Facts.Name = symbolName(F);
  if (isAddressTaken(F))
    Facts.Flags |= facts::FlagAddressTaken;
  if (addressEscapes(F))
    Facts.Flags |= facts::FlagAddressEscapes;
  if (F.hasFnAttribute(facts::EntryAttr))
    Facts.Flags |= facts::FlagEntry;
  if (!F.hasLocalLinkage())
    Facts.Flags |= facts::FlagExternal;
  Facts.Type = typeSignature(F.getFunctionType());
  if (const DISubprogram *SP = F.getSubprogram()) {
    Facts.File = SP->getFilename().str();
    Facts.Line = SP->getLine();
  }
  if (Attribute A = F.getFnAttribute(facts::RecursionBoundAttr);
      A.isStringAttribute())
    A.getValueAsString().getAsInteger(10, Facts.RecursionBound);

  SmallPtrSet<const BasicBlock *, 16> Cyclic = cyclicBlocks(F);
  SymbolList Calls(Facts.Calls), Refs(Facts.Refs);
  SmallPtrSet<const Constant *, 16> Seen;
  for (Instruction &I : instructions(F)) {
    if (auto *AI = dyn_cast<AllocaInst>(&I)) {
      if (AI->isStaticAlloca()) {
        // In the machine frame: .stack_sizes has it; its size says what a
        // smaller limit or budget could take out of the frame. Not those
        // of a pointer's size or less (the pass's own slots among them):
        // moved, they would leave a pointer behind. Pinned ones always:
        // a budget counts them first.
        const DataLayout &DL = F.getParent()->getDataLayout();
        std::optional<TypeSize> Size = getAllocationSize(*AI, DL);
        uint64_t Flags = 0;
        if (AI->getMetadata(ScopeMetadataName)) {
          if (Expected<Scope> S = readScope(*AI))
            Flags = S->requiresStack() ? facts::StackAllocaPinned : 0;
          else
            consumeError(S.takeError());
        }
        if (Size && !Size->isScalable() && Size->getFixedValue() &&
            (Flags || Size->getFixedValue() > DL.getPointerSize())) {
          SourceVariable SV = findSourceVariable(*AI);
          Facts.StackAllocas.push_back(
              {Size->getFixedValue(), AI->getAlign().value(),
               describeValue(*AI), SV.Var ? SV.Var->getLine() : lineOf(*AI),
               Flags});
        }
        continue;
      }
      FunctionFacts::Dynamic D;
      D.Place = facts::PlaceStack;
      if (std::optional<TypeSize> Size =
              getAllocationSize(*AI, F.getParent()->getDataLayout());
          Size && !Size->isScalable())
        D.ConstantBytes = Size->getFixedValue();
      D.Align = AI->getAlign().value();
      D.Flags = Cyclic.count(AI->getParent()) ? facts::DynamicInCycle : 0;
      D.Name = describeValue(*AI);
      SourceVariable SV = findSourceVariable(*AI);
      D.Line = SV.Var ? SV.Var->getLine() : lineOf(*AI);
      Facts.Dynamics.push_back(std::move(D));
      continue;
    }
    auto *CB = dyn_cast<CallBase>(&I);
    if (CB) {
      Value *Callee = CB->getCalledOperand()->stripPointerCasts();
      if (auto *II = dyn_cast<IntrinsicInst>(CB)) {
        if (StringRef Lib = libraryCallOf(*II); !Lib.empty())
          Calls.add(Lib, /*Relocatable=*/false);
      } else if (auto *IA = dyn_cast<InlineAsm>(Callee)) {
        addAsmCalls(*CB, *IA, Calls, Refs, Facts);
      } else if (auto *GA = dyn_cast<GlobalAlias>(Callee);
                 GA && isa_and_nonnull<Function>(GA->getAliaseeObject())) {
        Calls.add(symbolName(*GA), relocatable(*GA));
      } else if (auto *Target = dyn_cast<Function>(Callee)) {
        Calls.add(symbolName(*Target), relocatable(*Target),
                  Target->hasExternalWeakLinkage() ? facts::CallWeak : 0);
        // A function the library call runs (a thread's start, a qsort
        // comparator, a signal or exit handler): scopealloc-bound follows
        // it from the call, or makes it an entry point.
        for (const facts::LibraryCallback &LC : facts::LibraryCallbacks) {
          if (Target->getName() != LC.Name || LC.Argument >= CB->arg_size())
            continue;
          auto *Run = dyn_cast<Function>(
              CB->getArgOperand(LC.Argument)->stripPointerCasts());
          if (Run)
            Refs.add(symbolName(*Run), relocatable(*Run), LC.Kind);
          else if (LC.Kind == facts::RefThreadStart)
            Facts.Flags |= facts::FlagUnknownThreadStart;
        }
        addTaskCreation(*CB, *Target, Facts);
      } else {
        ++Facts.IndirectCalls[typeSignature(CB->getFunctionType())];
      }
    }
    for (Use &U : I.operands()) {
      if (CB && CB->isCallee(&U))
        continue;
      SmallVector<const GlobalValue *, 2> Named;
      functionsIn(U.get(), Named, Seen);
      for (const GlobalValue *GV : Named)
        Refs.add(symbolName(*GV), relocatable(*GV));
    }
  }
  // The stack protector's failure call is added by code generation.
  if (F.hasFnAttribute(Attribute::StackProtect) ||
      F.hasFnAttribute(Attribute::StackProtectStrong) ||
      F.hasFnAttribute(Attribute::StackProtectReq))
    Calls.add("__stack_chk_fail", /*Relocatable=*/false);
  return Facts;
}

/// The source variable a demoted allocation holds (its debug records now
/// describe the runtime call's result), else its IR name.
static std::string allocationName(const DemotedDynamic &Dyn) {
  if (Dyn.Alloc) {
    for (DbgVariableRecord *DVR : findDVRDeclares(Dyn.Alloc))
      return DVR->getVariable()->getName().str();
    for (DbgDeclareInst *DDI : findDbgDeclares(Dyn.Alloc))
      return DDI->getVariable()->getName().str();
  }
  return Dyn.Name.empty() ? std::string("<unnamed>") : Dyn.Name;
}

void addPoolFacts(FunctionFacts &Facts, const Function &F,
                  const FunctionDemotion &D) {
  SmallPtrSet<const BasicBlock *, 16> Cyclic = cyclicBlocks(F);
  for (const PoolFrame &P : D.Pools) {
    if (P.Frame && P.FrameSize)
      Facts.Pools.push_back({P.Pool, P.FrameSize, P.FrameAlign.value()});
    for (const DemotedDynamic &Dyn : P.Dynamic) {
      FunctionFacts::Dynamic Rec;
      Rec.Place = facts::PlacePool;
      Rec.Pool = P.Pool;
      if (auto *C = dyn_cast_or_null<ConstantInt>(Dyn.Bytes))
        Rec.ConstantBytes = C->getZExtValue();
      Rec.Align = Dyn.Alignment.value();
      if (Dyn.Alloc) {
        Rec.Flags =
            Cyclic.count(Dyn.Alloc->getParent()) ? facts::DynamicInCycle : 0;
        Rec.Line = lineOf(*Dyn.Alloc);
      }
      Rec.Name = allocationName(Dyn);
      Facts.Dynamics.push_back(std::move(Rec));
    }
  }
}

//===----------------------------------------------------------------------===//
// Encoding
//===----------------------------------------------------------------------===//

namespace {
/// Bytes and relocated addresses, in order; knows its size.
class Encoder {
public:
  explicit Encoder(unsigned AddrSize) : AddrSize(AddrSize) {}

  void byte(uint8_t B) { bytes().push_back(char(B)); }
  void raw(StringRef S) { bytes().append(S.begin(), S.end()); }
  void uleb(uint64_t V) {
    do {
      uint8_t B = V & 0x7f;
      V >>= 7;
      byte(V ? B | 0x80 : B);
    } while (V);
  }
  void str(StringRef S) {
    uleb(S.size());
    raw(S);
  }
  /// An address relocated against \p Symbol; zero when Symbol is empty.
  void addr(StringRef Symbol) {
    if (Symbol.empty()) {
      bytes().append(AddrSize, '\0');
      return;
    }
    Pieces.push_back({"", Symbol.str()});
  }
  void field(uint8_t Tag, const Encoder &Payload) {
    uleb(Tag);
    uleb(Payload.size());
    for (const Piece &P : Payload.Pieces) {
      if (P.Symbol.empty())
        raw(P.Bytes);
      else
        Pieces.push_back(P);
    }
  }
  uint64_t size() const {
    uint64_t N = 0;
    for (const Piece &P : Pieces)
      N += P.Symbol.empty() ? P.Bytes.size() : AddrSize;
    return N;
  }

  /// One line per piece: .byte lists and .quad/.long <symbol>.
  void print(raw_ostream &OS) const {
    for (const Piece &P : Pieces) {
      if (!P.Symbol.empty()) {
        OS << (AddrSize == 8 ? ".quad " : ".long ") << quoted(P.Symbol) << '\n';
        continue;
      }
      for (size_t I = 0; I < P.Bytes.size(); I += 32) {
        OS << ".byte ";
        ListSeparator LS(",");
        for (size_t J = I; J < std::min(P.Bytes.size(), I + 32); ++J)
          OS << LS << unsigned(uint8_t(P.Bytes[J]));
        OS << '\n';
      }
    }
  }

  /// A symbol as the assembler reads it: bare when it can be, else quoted.
  static std::string quoted(StringRef Symbol) {
    bool Bare = !Symbol.empty() && !isDigit(Symbol.front()) &&
                all_of(Symbol, [](char C) {
                  return isAlnum(C) || C == '_' || C == '.' || C == '$';
                });
    if (Bare)
      return Symbol.str();
    std::string Q = "\"";
    for (char C : Symbol) {
      if (C == '"' || C == '\\')
        Q += '\\';
      Q += C;
    }
    return Q + "\"";
  }

private:
  struct Piece {
    std::string Bytes;  ///< literal bytes, or
    std::string Symbol; ///< an address relocated against this symbol
  };
  std::string &bytes() {
    if (Pieces.empty() || !Pieces.back().Symbol.empty())
      Pieces.push_back({});
    return Pieces.back().Bytes;
  }

  unsigned AddrSize;
  std::vector<Piece> Pieces;
};
} // namespace

std::string recordAssembly(const FunctionFacts &Facts, const Function &F) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  unsigned AddrSize = DL.getPointerSize(F.getAddressSpace());
  Encoder Body(AddrSize);
  Body.addr(Facts.Name);
  auto Field = [&](uint8_t Tag, auto Fill) {
    Encoder Payload(AddrSize);
    Fill(Payload);
    Body.field(Tag, Payload);
  };
  Field(facts::TagName, [&](Encoder &E) { E.raw(Facts.Name); });
  Field(facts::TagFlags, [&](Encoder &E) { E.uleb(Facts.Flags); });
  Field(facts::TagType, [&](Encoder &E) { E.raw(Facts.Type); });
  if (!Facts.File.empty())
    Field(facts::TagSource, [&](Encoder &E) {
      E.str(Facts.File);
      E.uleb(Facts.Line);
    });
  if (Facts.RecursionBound)
    Field(facts::TagRecursionBound,
          [&](Encoder &E) { E.uleb(Facts.RecursionBound); });
  for (const FunctionFacts::StackAlloca &A : Facts.StackAllocas)
    Field(facts::TagStackAlloca, [&](Encoder &E) {
      E.uleb(A.Bytes);
      E.uleb(A.Align);
      E.str(A.Name);
      E.uleb(A.Line);
      E.uleb(A.Flags);
    });
  for (const FunctionFacts::Pool &P : Facts.Pools)
    Field(facts::TagPool, [&](Encoder &E) {
      E.str(P.Name);
      E.uleb(P.FrameBytes);
      E.uleb(P.Align);
    });
  for (const FunctionFacts::Dynamic &D : Facts.Dynamics)
    Field(facts::TagDynamic, [&](Encoder &E) {
      E.uleb(D.Place);
      E.str(D.Pool);
      E.uleb(D.ConstantBytes);
      E.uleb(D.Align);
      E.uleb(D.Flags);
      E.str(D.Name);
      E.uleb(D.Line);
    });
  for (const FunctionFacts::SymbolUse &C : Facts.Calls)
    Field(facts::TagCall, [&](Encoder &E) {
      E.addr(C.Relocatable ? C.Name : "");
      E.str(C.Name);
      E.uleb(C.Flags);
    });
  for (const auto &Call : Facts.IndirectCalls)
    Field(facts::TagIndirectCall, [&](Encoder &E) {
      E.str(Call.first);
      E.uleb(Call.second);
    });
  for (const FunctionFacts::SymbolUse &R : Facts.Refs)
    Field(facts::TagRef, [&](Encoder &E) {
      E.addr(R.Relocatable ? R.Name : "");
      E.str(R.Name);
      E.uleb(R.Flags);
    });
  for (const FunctionFacts::TaskCreation &T : Facts.TaskCreations)
    Field(facts::TagTaskCreate, [&](Encoder &E) {
      E.str(T.Creator);
      E.str(T.TaskName);
      E.str(T.Entry);
      E.str(T.StackSymbol);
      E.uleb(T.StackBytes);
      E.uleb(T.Line);
    });

  std::string Text;
  raw_string_ostream OS(Text);
  // Linked to the function's section (SHF_LINK_ORDER, like .stack_sizes),
  // and in its COMDAT group, so that the record goes wherever the function
  // goes: dropped by --gc-sections, deduplicated with the group.
  std::string Sym = Encoder::quoted(Facts.Name);
  OS << AsmPrefix;
  // The linked-to symbol comes before the group (GNU as 2.35, LLVM 18);
  // older LLVM assemblers take the group first.
  if (const Comdat *C = F.getComdat()) {
    std::string Group = Encoder::quoted(C->getName()) + ",comdat";
    if (AssemblerParsesLinkedSymbolFirst)
      OS << "\"oG\",%progbits," << Sym << ',' << Group << '\n';
    else
      OS << "\"oG\",%progbits," << Group << ',' << Sym << '\n';
  } else
    OS << "\"o\",%progbits," << Sym << '\n';
  OS << ".byte ";
  for (char C : facts::Magic)
    OS << unsigned(uint8_t(C)) << ',';
  OS << unsigned(facts::Version) << ',' << AddrSize << ",0,0\n";
  OS << ".long " << Body.size() << '\n'; // in the target's byte order
  Body.print(OS);
  OS << ".popsection";
  // '$' introduces an operand in inline asm.
  std::string Escaped;
  for (char C : Text) {
    if (C == '$')
      Escaped += '$';
    Escaped += C;
  }
  return Escaped;
}

//===----------------------------------------------------------------------===//
// Emitting
//===----------------------------------------------------------------------===//

/// Targets whose assembler reads the directives of a record.
static bool targetTakesRecords(const Module &M) {
  Triple T(M.getTargetTriple());
  if (!T.isOSBinFormatELF())
    return false;
  return T.isX86() || T.isARM() || T.isThumb() || T.isAArch64() ||
         T.isRISCV() || T.isPPC() || T.isSystemZ() || T.isMIPS() ||
         T.isLoongArch();
}

static bool isRecord(const Instruction &I) {
  const auto *CI = dyn_cast<CallInst>(&I);
  if (!CI)
    return false;
  const auto *IA = dyn_cast<InlineAsm>(CI->getCalledOperand());
  return IA && StringRef(IA->getAsmString()).starts_with(AsmPrefix);
}

StackFacts::StackFacts(Module &M, bool AtLink)
    : M(M), AtLink(AtLink),
      Enabled(targetTakesRecords(M) &&
              (AtLink ||
               // Before an LTO link functions are not final (cross-module
               // inlining would copy records into their callers): the
               // records of an LTO build come from the LTO backend.
               (stackFactsRequested() && !isLTOPreLinkModule(M)))) {}

void StackFacts::addDemotion(Function &F, const FunctionDemotion &D) {
  if (!Enabled || D.empty())
    return;
  addPoolFacts(Demotions[&F], F, D);
}

bool StackFacts::emit() {
  if (!Enabled)
    return false;
  bool Changed = false;
  // Records of an earlier run (opt, then clang on its output) go: each
  // function gets exactly one, describing it as it is now.
  for (Function &F : M) {
    for (Instruction &I : make_early_inc_range(instructions(F)))
      if (isRecord(I)) {
        I.eraseFromParent();
        Changed = true;
      }
  }
  LLVMContext &Ctx = M.getContext();
  FunctionType *AsmTy = FunctionType::get(Type::getVoidTy(Ctx), false);
  for (Function &F : M) {
    // available_externally bodies are not emitted.
    if (F.isDeclaration() || F.hasAvailableExternallyLinkage())
      continue;
    if (AtLink && !F.hasFnAttribute(FactsRequestedAttr))
      continue;
    FunctionFacts Facts = collectFacts(F);
    if (auto It = Demotions.find(&F); It != Demotions.end()) {
      Facts.Pools = It->second.Pools;
      append_range(Facts.Dynamics, It->second.Dynamics);
    }
    if (onlyStackFactsRequested())
      Facts.Flags |= facts::FlagFactsOnly;
    InlineAsm *Record = InlineAsm::get(AsmTy, recordAssembly(Facts, F), "",
                                       /*hasSideEffects=*/true);
    // After the entry allocas, which stay first.
    BasicBlock::iterator At = F.getEntryBlock().getFirstInsertionPt();
    while (isa<AllocaInst>(*At))
      ++At;
    CallInst::Create(AsmTy, Record, "", &*At);
    Changed = true;
  }
  return Changed;
}

PreservedAnalyses emitStackFactsOnly(Module &M) {
  return StackFacts(M).emit() ? PreservedAnalyses::none()
                              : PreservedAnalyses::all();
}

} // namespace scopealloc
