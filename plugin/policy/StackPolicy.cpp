//===- StackPolicy.cpp - Which allocations may stay on the stack ----------===//
#include "policy/StackPolicy.h"
#include "Scope.h"
#include "support/Diagnostics.h"

#include "LLVMCompat.h" // llvm/TargetParser/Triple.h
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "scope-alloc-policy"

using namespace llvm;

namespace scopealloc {

ArrayRef<BuiltinTag> builtinTags() {
  static const BuiltinTag Tags[] = {
      {"hosted",
       {1024, std::nullopt, DynamicRule::Demote, std::nullopt, std::nullopt},
       "desktop and server CPUs: MiB-sized stacks, the customary 1024-byte "
       "limit"},
      {"cortex-m",
       {256, 2048, DynamicRule::Demote, std::nullopt, std::nullopt},
       "Cortex-M class microcontrollers: a few KiB of stack for everything"},
      {"npu-mcu",
       {0, 0, DynamicRule::Demote, std::nullopt, std::nullopt},
       "microcontrollers whose NPU cannot reach the stack (Arm Ethos-U): "
       "every buffer in memory comes from a pool"},
  };
  return Tags;
}

static bool isGPU(const Triple &T) {
  return T.isNVPTX() || T.isAMDGPU() || T.isSPIRV() ||
         T.getArch() == Triple::r600;
}

static bool isBareMetal(const Triple &T) {
  return T.getOS() == Triple::UnknownOS &&
         (T.isARM() || T.isThumb() || T.isAArch64() || T.isRISCV() ||
          T.getEnvironment() == Triple::EABI ||
          T.getEnvironment() == Triple::EABIHF);
}

StackPolicy targetDefaultPolicy(const Triple &T, unsigned PointerBits) {
  StackPolicy P;
  std::string Name = T.str().empty() ? "<no triple>" : T.str();
  auto Row = [&](uint64_t Limit, const std::string &Why) {
    P.MaxStackAlloca = Limit;
    P.Source = "target default for " + Name + " (" + Why + ")";
    P.FrameBudgetSource = P.DynamicSource = P.PoolSource =
        P.StackScopeOverBudgetSource = P.AddressSpaceScopesSource =
            P.PlanSource = "built-in default";
    return P;
  };
  if (isGPU(T)) {
    P.Enabled = false;
    return Row(0, "GPU: no workspace runtime, left alone");
  }
  if (T.isWasm())
    return Row(512, "WebAssembly: small shadow stack in linear memory");
  if (isBareMetal(T))
    return Row(256, "bare-metal: stacks of a few KiB");
  // mlir-translate writes no triple, only a data layout: the CPU that runs
  // the code is the host's kind, and its pointer size is the layout's.
  if (T.getArch() == Triple::UnknownArch && PointerBits) {
    return Row(1024, "no target triple: hosted CPU with " +
                         std::to_string(PointerBits) +
                         "-bit pointers, from the data layout");
  }
  if (T.isArch64Bit())
    return Row(1024, "hosted 64-bit CPU");
  return Row(1024, "hosted 32-bit CPU");
}

/// Sets the fields \p Layer has, naming \p Source as where they came from.
static void apply(StackPolicy &P, const PolicyFields &Layer,
                  const std::string &Source) {
  if (Layer.MaxStackAlloca) {
    P.MaxStackAlloca = *Layer.MaxStackAlloca;
    P.Source = Source;
  }
  if (Layer.FrameBudget) {
    P.FrameBudget = *Layer.FrameBudget;
    P.FrameBudgetSource = Source;
  }
  if (Layer.Dynamic) {
    P.Dynamic = *Layer.Dynamic;
    P.DynamicSource = Source;
  }
  if (Layer.Pool) {
    P.Pool = *Layer.Pool == DefaultPoolName ? "" : *Layer.Pool;
    P.PoolSource = Source;
  }
  if (Layer.StackScopeOverBudget) {
    P.StackScopeOverBudget = *Layer.StackScopeOverBudget;
    P.StackScopeOverBudgetSource = Source;
  }
  if (Layer.AddressSpaceScopes) {
    P.AddressSpaceScopes = *Layer.AddressSpaceScopes;
    P.AddressSpaceScopesSource = Source;
  }
  if (Layer.Plan) {
    P.Plan = *Layer.Plan;
    P.PlanSource = Source;
  }
}

/// The largest byte count \p M can address, and how to say so.
struct AddressSpace {
  uint64_t MaxBytes = UINT64_MAX;
  std::string Description;
};

static AddressSpace addressSpace(const Module &M) {
  Triple T(M.getTargetTriple());
  unsigned Bits = T.isArch64Bit()   ? 64
                  : T.isArch32Bit() ? 32
                  : T.isArch16Bit() ? 16
                                    : M.getDataLayout().getPointerSizeInBits();
  AddressSpace A;
  if (Bits < 64)
    A.MaxBytes = (uint64_t(1) << Bits) - 1;
  A.Description = "the address space of " +
                  (T.str().empty() ? std::string("the module") : T.str()) +
                  " (" + std::to_string(Bits) + "-bit pointers: at most " +
                  std::to_string(A.MaxBytes) + " bytes)";
  return A;
}

/// An error when a byte count of \p Layer cannot be met on \p A.
static std::string checkFits(const PolicyFields &Layer, StringRef Source,
                             const AddressSpace &A) {
  for (const SettingInfo &S : policySettings())
    if (std::optional<uint64_t> V = Layer.bytes(S.Id); V && *V > A.MaxBytes)
      return (S.Key + " " + Twine(*V) + " (" + Source + ") is larger than " +
              A.Description)
          .str();
  return "";
}

namespace {

/// Collects the string-valued settings of one layer (module flags, command
/// line, function attributes) and says what is wrong with them.
struct TextLayer {
  PolicyFields Fields;
  std::string Error;
  AddressSpace Space;

  void fail(const Twine &Msg) {
    if (Error.empty()) // the first problem; the others would follow from it
      Error = Msg.str();
  }
  /// Sets \p S from \p Text, which \p What names in messages.
  void set(const std::string &What, PolicySetting S, StringRef Text) {
    if (llvm::Error E = Fields.set(S, Text))
      return fail(What + " " + toString(std::move(E)));
    checkBytes(What, S);
  }
  /// A byte count that the address space cannot hold is an error.
  void checkBytes(const std::string &What, PolicySetting S) {
    if (std::optional<uint64_t> V = Fields.bytes(S); V && *V > Space.MaxBytes)
      fail(What + " is " + Twine(*V) + " bytes, larger than " +
           Space.Description);
  }
};

} // namespace

static std::string printMetadata(const Metadata &MD, const Module &M) {
  std::string S;
  raw_string_ostream OS(S);
  MD.print(OS, &M);
  return S;
}

/// The string value of module flag \p Key; a value of another type is an
/// error (it was silently ignored), saying what \p Expected values are.
static std::optional<StringRef> stringFlag(const Module &M, StringRef Key,
                                           StringRef Expected,
                                           std::string &Error) {
  Metadata *MD = M.getModuleFlag(Key);
  if (!MD)
    return std::nullopt;
  if (auto *S = dyn_cast<MDString>(MD))
    return S->getString();
  if (Error.empty())
    Error = ("module flag \"" + Key + "\" must be a string (" + Expected +
             "), found " + printMetadata(*MD, M))
                .str();
  return std::nullopt;
}

static TextLayer moduleFlagLayer(const Module &M) {
  TextLayer L;
  L.Space = addressSpace(M);
  for (const SettingInfo &S : policySettings()) {
    if (!S.in(layer::ModuleFlag) || S.Kind != SettingInfo::Field)
      continue;
    std::string Key = S.moduleFlag();
    Metadata *MD = M.getModuleFlag(Key);
    if (!MD)
      continue;
    std::string What = "module flag \"" + Key + "\"";
    if (S.Value != SettingValue::Bytes) {
      if (std::optional<StringRef> Text =
              stringFlag(M, Key, S.valueWords(), L.Error))
        L.set(What, S.Id, *Text);
      continue;
    }
    // Byte counts are integers (clang's -mllvm-free way to write them).
    auto *CI = mdconst::dyn_extract_or_null<ConstantInt>(MD);
    if (!CI) {
      L.fail(What + " must be an integer byte count, found " +
             printMetadata(*MD, M));
      continue;
    }
    const APInt &V = CI->getValue();
    if (V.isNegative())
      L.fail(What + " must not be negative, found " +
             toString(V, 10, /*Signed=*/true));
    else if (V.getActiveBits() > 64)
      L.fail(What + " is " + toString(V, 10, /*Signed=*/false) +
             ", more than the largest byte count, 18446744073709551615");
    else
      L.set(What, S.Id, std::to_string(V.getZExtValue()));
  }
  return L;
}

/// Module flags named scope-alloc.* that the pass does not read: likely
/// typos, which would otherwise be ignored without a word.
static std::vector<std::string> unknownModuleFlags(const Module &M) {
  std::vector<std::string> Warnings;
  SmallVector<Module::ModuleFlagEntry, 8> Flags;
  M.getModuleFlagsMetadata(Flags);
  std::vector<std::string> Names;
  for (const SettingInfo &S : policySettings())
    if (S.in(layer::ModuleFlag))
      Names.push_back(S.moduleFlag());
  std::vector<StringRef> Known(Names.begin(), Names.end());
  for (const Module::ModuleFlagEntry &E : Flags) {
    StringRef Key = E.Key->getString();
    if (Key.starts_with("scope-alloc.") && !findSetting(layer::ModuleFlag, Key))
      Warnings.push_back(("unknown module flag \"" + Key + "\" is ignored" +
                          didYouMean(Key, Known))
                             .str());
  }
  return Warnings;
}

/// Layers 5 and 6: the options' own problems, and byte counts that \p A
/// cannot address.
static std::string checkOptions(const PolicyOptions &O, const AddressSpace &A) {
  TextLayer L;
  L.Space = A;
  L.Fields = O.Fields;
  for (const SettingInfo &S : policySettings())
    L.checkBytes(O.settingName(S.Id), S.Id);
  L.fail(O.Error);
  return L.Error;
}

static void applyOptions(StackPolicy &P, const PolicyOptions &O) {
  PolicyFields Fields = O.Fields;
  if (Fields.MaxStackAlloca) {
    P.MaxStackAlloca = *Fields.MaxStackAlloca;
    P.Source = O.limitSource(); // the option that set it, not just the layer
    Fields.MaxStackAlloca.reset();
  }
  apply(P, Fields, O.fieldsSource());
}

/// Layer 7 from \p Get, which gives the value of a function attribute.
static TextLayer
attributeLayer(AddressSpace Space,
               function_ref<std::optional<StringRef>(StringRef)> Get) {
  TextLayer L;
  L.Space = Space;
  for (const SettingInfo &S : policySettings()) {
    if (!S.in(layer::FunctionAttribute))
      continue;
    if (std::optional<StringRef> Value = Get(S.attribute()))
      L.set("function attribute \"" + S.attribute() + "\"", S.Id, *Value);
  }
  return L;
}

static TextLayer functionAttributeLayer(const Function &F) {
  return attributeLayer(addressSpace(*F.getParent()),
                        [&](StringRef Name) -> std::optional<StringRef> {
                          Attribute A = F.getFnAttribute(Name);
                          if (!A.isValid())
                            return std::nullopt;
                          return A.isStringAttribute() ? A.getValueAsString()
                                                       : StringRef();
                        });
}

std::vector<std::pair<std::string, std::string>>
functionPolicyAttributes(const Function &F) {
  std::vector<std::pair<std::string, std::string>> Out;
  for (const SettingInfo &S : policySettings()) {
    if (!S.in(layer::FunctionAttribute))
      continue;
    Attribute A = F.getFnAttribute(S.attribute());
    if (A.isValid())
      Out.push_back({S.attribute(), A.isStringAttribute()
                                        ? A.getValueAsString().str()
                                        : std::string()});
  }
  return Out;
}

bool hasFunctionSettings(const ModulePolicy &MP, const Function &F) {
  if (!functionPolicyAttributes(F).empty())
    return true;
  return any_of(MP.FunctionLayers, [&](const ModulePolicy::FunctionLayer &L) {
    return L.Target->functionFields(F.getName()) != nullptr;
  });
}

/// The policy file was given for a reason: say when none of it applies.
static std::string noTargetApplies(const PolicyFile &File, const Triple &T) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "policy file " << File.Path << ": no target matches the triple "
     << (T.str().empty() ? "<no triple>" : T.str())
     << " and no target tag is selected (-scope-alloc-target or module flag "
        "\"scope-alloc.target\"), so the built-in default applies; targets: ";
  ListSeparator LS;
  for (const PolicyTarget &PT : File.Targets) {
    OS << LS << "'" << PT.Name << "' ";
    if (PT.TriplePatterns.empty()) {
      OS << "(no triples)";
      continue;
    }
    OS << "(triples ";
    ListSeparator Comma;
    for (const std::string &P : PT.TriplePatterns)
      OS << Comma << '"' << P << '"';
    OS << ")";
  }
  return S;
}

ModulePolicy computeModulePolicy(const Module &M,
                                 const PolicyOptions &CommandLine,
                                 const PolicyOptions &Parameters) {
  ModulePolicy R;
  Triple T(M.getTargetTriple());
  R.Base = targetDefaultPolicy(T, M.getDataLayout().getPointerSizeInBits());
  R.Warnings = unknownModuleFlags(M);
  AddressSpace Space = addressSpace(M);

  std::shared_ptr<const PolicyFile> File;
  bool Matched = false;
  const std::optional<std::string> &PolicyPath =
      Parameters.PolicyPath ? Parameters.PolicyPath : CommandLine.PolicyPath;
  if (PolicyPath) {
    Expected<std::shared_ptr<const PolicyFile>> Loaded =
        loadPolicyFile(*PolicyPath);
    if (!Loaded) {
      R.Error = "bad policy file:\n" + toString(Loaded.takeError());
      return R;
    }
    File = *Loaded;
    llvm::append_range(R.Warnings, File->Warnings);
    R.Base.Allocators = File->Allocators;
    if (const PolicyTarget *PT = File->matchTriple(T.str())) {
      Matched = true;
      std::string Source = "policy file " + File->Path + ", target '" +
                           PT->Name + "' (matches " + T.str() + ")";
      if (R.Error = checkFits(PT->Fields, Source, Space); !R.Error.empty())
        return R;
      apply(R.Base, PT->Fields, Source);
      R.FunctionLayers.push_back({File, PT, Source});
    }
  }

  std::string Tag;
  std::string TagOrigin;
  if (std::optional<StringRef> S =
          stringFlag(M, "scope-alloc.target", "a target tag", R.Error)) {
    Tag = S->str();
    TagOrigin = "module flag \"scope-alloc.target\"";
  }
  if (!R.Error.empty())
    return R;
  for (const PolicyOptions *O : {&CommandLine, &Parameters})
    if (O->Target) {
      Tag = *O->Target;
      TagOrigin = O->settingName(PolicySetting::Target);
    }
  // A file without targets (only allocators, say) has nothing to match.
  if (File && !File->Targets.empty() && !Matched && Tag.empty())
    R.Warnings.push_back(noTargetApplies(*File, T));
  if (!Tag.empty()) {
    // The chosen target's 'functions' replace the matched one's: an entry
    // written for one target never applies under another's tag.
    R.FunctionLayers.clear();
    if (const PolicyTarget *PT = File ? File->findTarget(Tag) : nullptr) {
      std::string Source = "target '" + Tag + "' of policy file " + File->Path +
                           " (" + TagOrigin + ")";
      if (R.Error = checkFits(PT->Fields, Source, Space); !R.Error.empty())
        return R;
      apply(R.Base, PT->Fields, Source);
      R.FunctionLayers.push_back({File, PT, Source});
    } else if (auto It =
                   find_if(builtinTags(),
                           [&](const BuiltinTag &B) { return Tag == B.Name; });
               It != builtinTags().end()) {
      apply(R.Base, It->Fields,
            "built-in target tag '" + Tag + "' (" + TagOrigin + ")");
    } else {
      SmallVector<StringRef, 8> Tags;
      if (File)
        for (const PolicyTarget &PT : File->Targets)
          Tags.push_back(PT.Name);
      for (const BuiltinTag &B : builtinTags())
        Tags.push_back(B.Name);
      R.Error = "unknown target tag '" + Tag + "' from " + TagOrigin +
                " (not in the policy file" +
                (File ? " " + File->Path : std::string()) +
                " and not a built-in tag: hosted, cortex-m, npu-mcu)" +
                didYouMean(Tag, Tags);
      return R;
    }
  }

  TextLayer Flags = moduleFlagLayer(M);
  if (!Flags.Error.empty()) {
    R.Error = Flags.Error;
    return R;
  }
  apply(R.Base, Flags.Fields, "module flags");

  for (const PolicyOptions *O : {&CommandLine, &Parameters}) {
    if (R.Error = checkOptions(*O, Space); !R.Error.empty())
      return R;
    applyOptions(R.Base, *O);
  }

  if (File && !R.Base.Pool.empty() && !is_contained(File->Pools, R.Base.Pool))
    R.Error = "pool '" + R.Base.Pool + "' (" + R.Base.PoolSource +
              ") is not declared under 'pools' in " + File->Path;
  LLVM_DEBUG(dbgs() << "module policy of " << M.getModuleIdentifier()
                    << ": max-stack-alloca " << R.Base.MaxStackAlloca << " ("
                    << R.Base.Source << "), frame-budget "
                    << (R.Base.FrameBudget ? std::to_string(*R.Base.FrameBudget)
                                           : "none")
                    << " (" << R.Base.FrameBudgetSource << ")"
                    << (R.Error.empty() ? "" : ", error: " + R.Error) << "\n");
  return R;
}

bool ModulePolicy::report(const Module &M) const {
  for (const std::string &W : Warnings)
    M.getContext().diagnose(
        ScopeAllocDiagnostic(DS_Warning, nullptr, nullptr, W));
  if (Error.empty())
    return true;
  reportModuleError(M, Error);
  return false;
}

/// Layers 6b and 7 on \p MP for a function named \p Name with attribute
/// layer \p Attrs; \p Fail reports an error.
static std::optional<StackPolicy>
policyWithFunctionLayers(const ModulePolicy &MP, StringRef Name,
                         TextLayer Attrs, AddressSpace Space,
                         function_ref<void(const std::string &)> Fail) {
  if (!MP.Error.empty())
    return std::nullopt;
  StackPolicy P = MP.Base;
  if (!P.Enabled)
    return P;
  for (const ModulePolicy::FunctionLayer &L : MP.FunctionLayers)
    if (const PolicyFields *Fields = L.Target->functionFields(Name)) {
      std::string Source = "'functions' entry of " + L.Source;
      if (std::string E = checkFits(*Fields, Source, Space); !E.empty()) {
        Fail(E);
        return std::nullopt;
      }
      apply(P, *Fields, Source);
    }
  if (!Attrs.Error.empty()) {
    Fail(Attrs.Error);
    return std::nullopt;
  }
  if (Attrs.Fields.MaxStackAlloca) {
    P.MaxStackAlloca = *Attrs.Fields.MaxStackAlloca;
    P.Source = "function attribute \"" +
               settingInfo(PolicySetting::MaxStackAlloca).attribute() + "\"";
    Attrs.Fields.MaxStackAlloca.reset();
  }
  apply(P, Attrs.Fields, "function attributes");
  LLVM_DEBUG(dbgs() << "policy of " << Name << ": max-stack-alloca "
                    << P.MaxStackAlloca << " (" << P.Source
                    << "), frame-budget "
                    << (P.FrameBudget ? std::to_string(*P.FrameBudget) : "none")
                    << " (" << P.FrameBudgetSource << "), dynamic "
                    << spell(P.Dynamic) << " (" << P.DynamicSource
                    << "), pool '" << P.Pool << "' (" << P.PoolSource << ")\n");
  return P;
}

std::optional<StackPolicy> policyForFunction(const ModulePolicy &MP,
                                             const Function &F,
                                             bool ReportErrors) {
  if (!MP.Error.empty())
    return std::nullopt;
  AddressSpace Space = addressSpace(*F.getParent());
  return policyWithFunctionLayers(MP, F.getName(), functionAttributeLayer(F),
                                  Space, [&](const std::string &E) {
                                    if (ReportErrors)
                                      reportError(F, nullptr, E);
                                  });
}

std::optional<StackPolicy>
policyForFunctionNamed(const ModulePolicy &MP, const Module &M, StringRef Name,
                       ArrayRef<std::pair<std::string, std::string>> Attributes,
                       std::string &Error) {
  AddressSpace Space = addressSpace(M);
  TextLayer Attrs =
      attributeLayer(Space, [&](StringRef Attr) -> std::optional<StringRef> {
        for (const auto &[Key, Value] : Attributes)
          if (Key == Attr)
            return StringRef(Value);
        return std::nullopt;
      });
  return policyWithFunctionLayers(MP, Name, std::move(Attrs), Space,
                                  [&](const std::string &E) { Error = E; });
}

bool checkModulePolicy(const Module &M) {
  return computeModulePolicy(M, commandLineOptions()).report(M);
}

std::optional<StackPolicy> policyForFunction(const Function &F,
                                             bool ReportErrors) {
  return policyForFunction(
      computeModulePolicy(*F.getParent(), commandLineOptions()), F,
      ReportErrors);
}

} // namespace scopealloc
