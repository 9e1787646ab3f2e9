//===- StackPolicy.cpp - Which allocations may stay on the stack ----------===//
#include "StackPolicy.h"
#include "Diagnostics.h"
#include "Scope.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

static cl::opt<std::string>
    PolicyFileOpt("scope-alloc-policy",
                  cl::desc("Policy file (YAML or JSON) with named targets"),
                  cl::value_desc("file"));
static cl::opt<std::string> TargetOpt(
    "scope-alloc-target",
    cl::desc("Target tag: a target of the policy file or a built-in tag"),
    cl::value_desc("tag"));
static cl::opt<uint64_t> MaxStackAllocaOpt(
    "scope-alloc-max-stack-alloca",
    cl::desc("Largest allocation (bytes) that may stay on the stack; "
             "overrides the target default (0 = none)"),
    cl::value_desc("bytes"));
static cl::opt<uint64_t> FrameBudgetOpt(
    "scope-alloc-frame-budget",
    cl::desc("Most bytes of allocations a frame may keep on the stack"),
    cl::value_desc("bytes"));
static cl::opt<std::string>
    DynamicOpt("scope-alloc-dynamic",
               cl::desc("Dynamically sized allocations: keep, demote or "
                        "reject"),
               cl::value_desc("rule"));
static cl::opt<std::string>
    PoolOpt("scope-alloc-pool",
            cl::desc("Pool for demoted allocations without a scope "
                     "(default: workspace)"),
            cl::value_desc("pool"));

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

StackPolicy targetDefaultPolicy(const Triple &T) {
  StackPolicy P;
  std::string Name = T.str().empty() ? "<no triple>" : T.str();
  auto Row = [&](uint64_t Limit, const char *Why) {
    P.MaxStackAlloca = Limit;
    P.Source = "target default for " + Name + " (" + Why + ")";
    P.FrameBudgetSource = P.DynamicSource = P.PoolSource =
        P.StackScopeOverBudgetSource = "built-in default";
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
}

static bool isPoolName(StringRef Name) {
  return Name == DefaultPoolName ||
         static_cast<bool>(llvm::expectedToOptional(
             parseScopeSpelling(("global." + Name).str())));
}

namespace {

/// Collects the string-valued settings of one layer (module flags, command
/// line, function attributes) and says what is wrong with them.
struct TextLayer {
  PolicyFields Fields;
  std::string Error;

  void bytes(StringRef What, StringRef Text, std::optional<uint64_t> &Out) {
    uint64_t V;
    if (Text.getAsInteger(10, V))
      Error = (What + " must be a byte count, found \"" + Text + "\"").str();
    else
      Out = V;
  }
  void dynamic(StringRef What, StringRef Text) {
    Fields.Dynamic = parseDynamicRule(Text);
    if (!Fields.Dynamic)
      Error = (What + " must be keep, demote or reject, found \"" + Text + "\"")
                  .str();
  }
  void pool(StringRef What, StringRef Text) {
    if (!isPoolName(Text))
      Error = (What +
               " must be 'workspace' or a pool name (a C identifier), "
               "found \"" +
               Text + "\"")
                  .str();
    else
      Fields.Pool = Text.str();
  }
};

} // namespace

static std::optional<StringRef> stringFlag(const Module &M, StringRef Key) {
  if (auto *S = dyn_cast_or_null<MDString>(M.getModuleFlag(Key)))
    return S->getString();
  return std::nullopt;
}

static TextLayer moduleFlagLayer(const Module &M) {
  TextLayer L;
  auto Int = [&](StringRef Key, std::optional<uint64_t> &Out) {
    Metadata *MD = M.getModuleFlag(Key);
    if (!MD)
      return;
    auto *CI = mdconst::dyn_extract_or_null<ConstantInt>(MD);
    if (!CI || CI->isNegative())
      L.Error =
          ("module flag \"" + Key + "\" must be a non-negative integer").str();
    else
      Out = CI->getZExtValue();
  };
  Int("scope-alloc.max-stack-alloca", L.Fields.MaxStackAlloca);
  Int("scope-alloc.frame-budget", L.Fields.FrameBudget);
  if (std::optional<StringRef> S = stringFlag(M, "scope-alloc.dynamic"))
    L.dynamic("module flag \"scope-alloc.dynamic\"", *S);
  if (std::optional<StringRef> S = stringFlag(M, "scope-alloc.pool"))
    L.pool("module flag \"scope-alloc.pool\"", *S);
  return L;
}

static TextLayer commandLineLayer() {
  TextLayer L;
  if (MaxStackAllocaOpt.getNumOccurrences())
    L.Fields.MaxStackAlloca = MaxStackAllocaOpt;
  if (FrameBudgetOpt.getNumOccurrences())
    L.Fields.FrameBudget = FrameBudgetOpt;
  if (DynamicOpt.getNumOccurrences())
    L.dynamic("-scope-alloc-dynamic", DynamicOpt);
  if (PoolOpt.getNumOccurrences())
    L.pool("-scope-alloc-pool", PoolOpt);
  return L;
}

static TextLayer functionAttributeLayer(const Function &F) {
  TextLayer L;
  auto Attr = [&](const char *Name) -> std::optional<StringRef> {
    Attribute A = F.getFnAttribute(Name);
    if (!A.isValid())
      return std::nullopt;
    return A.isStringAttribute() ? A.getValueAsString() : StringRef();
  };
  auto What = [](const char *Name) {
    return (Twine("function attribute \"") + Name + "\"").str();
  };
  if (auto V = Attr(MaxStackAllocaAttr))
    L.bytes(What(MaxStackAllocaAttr), *V, L.Fields.MaxStackAlloca);
  if (auto V = Attr(FrameBudgetAttr))
    L.bytes(What(FrameBudgetAttr), *V, L.Fields.FrameBudget);
  if (auto V = Attr(DynamicAttr))
    L.dynamic(What(DynamicAttr), *V);
  if (auto V = Attr(PoolAttr))
    L.pool(What(PoolAttr), *V);
  return L;
}

namespace {

/// Layers 1-5, shared by every function of a module.
struct ModuleLayers {
  StackPolicy Base;
  std::string Error;
};

} // namespace

static ModuleLayers moduleLayers(const Module &M) {
  ModuleLayers R;
  Triple T(M.getTargetTriple());
  R.Base = targetDefaultPolicy(T);

  std::shared_ptr<const PolicyFile> File;
  if (!PolicyFileOpt.empty()) {
    Expected<std::shared_ptr<const PolicyFile>> Loaded =
        loadPolicyFile(PolicyFileOpt);
    if (!Loaded) {
      R.Error = "bad policy file:\n" + toString(Loaded.takeError());
      return R;
    }
    File = *Loaded;
    if (const PolicyTarget *PT = File->matchTriple(T.str()))
      apply(R.Base, PT->Fields,
            "policy file " + File->Path + ", target '" + PT->Name +
                "' (matches " + T.str() + ")");
  }

  std::string Tag;
  std::string TagOrigin;
  if (std::optional<StringRef> S = stringFlag(M, "scope-alloc.target")) {
    Tag = S->str();
    TagOrigin = "module flag \"scope-alloc.target\"";
  }
  if (TargetOpt.getNumOccurrences()) {
    Tag = TargetOpt;
    TagOrigin = "-scope-alloc-target";
  }
  if (!Tag.empty()) {
    if (const PolicyTarget *PT = File ? File->findTarget(Tag) : nullptr) {
      apply(R.Base, PT->Fields,
            "target '" + Tag + "' of policy file " + File->Path + " (" +
                TagOrigin + ")");
    } else if (auto It =
                   find_if(builtinTags(),
                           [&](const BuiltinTag &B) { return Tag == B.Name; });
               It != builtinTags().end()) {
      apply(R.Base, It->Fields,
            "built-in target tag '" + Tag + "' (" + TagOrigin + ")");
    } else {
      R.Error = "unknown target tag '" + Tag + "' from " + TagOrigin +
                " (not in the policy file" +
                (File ? " " + File->Path : std::string()) +
                " and not a built-in tag: hosted, cortex-m, npu-mcu)";
      return R;
    }
  }

  TextLayer Flags = moduleFlagLayer(M);
  if (!Flags.Error.empty()) {
    R.Error = Flags.Error;
    return R;
  }
  apply(R.Base, Flags.Fields, "module flags");

  TextLayer CommandLine = commandLineLayer();
  if (!CommandLine.Error.empty()) {
    R.Error = CommandLine.Error;
    return R;
  }
  if (CommandLine.Fields.MaxStackAlloca) {
    R.Base.MaxStackAlloca = *CommandLine.Fields.MaxStackAlloca;
    R.Base.Source = "-scope-alloc-max-stack-alloca";
    CommandLine.Fields.MaxStackAlloca.reset();
  }
  apply(R.Base, CommandLine.Fields, "command line");

  if (File && !R.Base.Pool.empty() && !is_contained(File->Pools, R.Base.Pool))
    R.Error = "pool '" + R.Base.Pool + "' (" + R.Base.PoolSource +
              ") is not declared under 'pools' in " + File->Path;
  return R;
}

bool checkModulePolicy(const Module &M) {
  ModuleLayers L = moduleLayers(M);
  if (L.Error.empty())
    return true;
  reportModuleError(M, L.Error);
  return false;
}

std::optional<StackPolicy> policyForFunction(const Function &F,
                                             bool ReportErrors) {
  ModuleLayers L = moduleLayers(*F.getParent());
  if (!L.Error.empty())
    return std::nullopt;
  StackPolicy P = L.Base;
  if (!P.Enabled)
    return P;
  TextLayer Attrs = functionAttributeLayer(F);
  if (!Attrs.Error.empty()) {
    if (ReportErrors)
      reportError(F, nullptr, Attrs.Error);
    return std::nullopt;
  }
  if (Attrs.Fields.MaxStackAlloca) {
    P.MaxStackAlloca = *Attrs.Fields.MaxStackAlloca;
    P.Source = std::string("function attribute \"") + MaxStackAllocaAttr + "\"";
    Attrs.Fields.MaxStackAlloca.reset();
  }
  apply(P, Attrs.Fields, "function attributes");
  return P;
}

} // namespace scopealloc
