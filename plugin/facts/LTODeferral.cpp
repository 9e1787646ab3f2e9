//===- LTODeferral.cpp - Decisions deferred to the LTO link ---------------===//
#include "facts/LTODeferral.h"
#include "LLVMCompat.h"
#include "PolicySettings.h"
#include "Scope.h"
#include "facts/Report.h"
#include "facts/StackFacts.h"
#include "policy/BufferHome.h"
#include "support/Diagnostics.h"
#include "support/ValueNames.h"
#include "transform/RuntimeABI.h"
#include "llvm/ADT/DenseMap.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <mutex>

using namespace llvm;

namespace scopealloc {

/// The private global that keeps the marker referenced.
static constexpr const char *MarkerHolderName = "scopealloc.lto.deferred";

bool isLTOPreLinkModule(const Module &M) {
  return M.getModuleFlag("ThinLTO") || M.getModuleFlag("EnableSplitLTOUnit") ||
         M.getModuleFlag("UnifiedLTO");
}

std::string sanitizerInstrumentingAllocas(const Module &M) {
  static const std::pair<Attribute::AttrKind, const char *> Sanitizers[] = {
      {Attribute::SanitizeAddress, "AddressSanitizer"},
      {Attribute::SanitizeHWAddress, "HWAddressSanitizer"},
      {Attribute::SanitizeMemTag, "MemTagSanitizer"},
      {Attribute::SanitizeMemory, "MemorySanitizer"},
  };
  for (const Function &F : M) {
    if (F.isDeclaration())
      continue;
    for (auto [Kind, Name] : Sanitizers)
      if (F.hasFnAttribute(Kind))
        return Name;
  }
  return "";
}

/// \p Path made absolute against the compile step's directory, since the
/// link may run elsewhere. A trailing separator (a report directory) stays.
static std::string absolutePath(StringRef Path) {
  SmallString<256> Abs(Path);
  if (sys::fs::make_absolute(Abs))
    return Path.str();
  if (sys::path::is_separator(Path.back()) &&
      !sys::path::is_separator(Abs.back()))
    Abs += sys::path::get_separator();
  return Abs.str().str();
}

/// Whether option \p Name reaches the link step through the module
/// (above): the settings' options (as pass parameters) and the report and
/// facts options. lld cannot parse a plugin's -mllvm options, so any other
/// one given to a compile step is lost there.
static bool recordedForLink(StringRef Name) {
  const SettingInfo *S = findSetting(layer::Option, Name);
  return (S && S->in(layer::Parameter)) || Name == "scope-alloc-report" ||
         Name == "scope-alloc-facts" || Name == "scope-alloc-slow-path";
}

static void warnAboutLostOptions(const Module &M) {
  for (const auto &Entry : cl::getRegisteredOptions()) {
    StringRef Name = registeredOptionName(Entry);
    cl::Option *Option = Entry.second;
    if (Name.starts_with("scope-alloc-") && Option->getNumOccurrences() &&
        !recordedForLink(Name))
      M.getContext().diagnose(ScopeAllocDiagnostic(
          DS_Warning, nullptr, nullptr,
          "-" + Name +
              " does not reach the LTO link, which decides where buffers "
              "live (lld cannot take the plugin's options): the link uses "
              "its default"));
  }
}

MDNode *bufferPolicyNode(LLVMContext &C, const StackPolicy &P) {
  auto Str = [&](StringRef S) { return MDString::get(C, S); };
  return MDNode::get(C, {ConstantAsMetadata::get(ConstantInt::get(
                             Type::getInt64Ty(C), P.MaxStackAlloca)),
                         Str(P.Source), Str(spell(P.Dynamic)),
                         Str(P.DynamicSource), Str(P.Pool), Str(P.PoolSource)});
}

std::optional<StackPolicy> recordedBufferPolicy(const AllocaInst &AI,
                                                const StackPolicy &Base) {
  MDNode *N = AI.getMetadata(BufferPolicyMetadata);
  if (!N || N->getNumOperands() != 6)
    return std::nullopt;
  auto Str = [&](unsigned I) -> std::optional<StringRef> {
    if (auto *S = dyn_cast<MDString>(N->getOperand(I)))
      return S->getString();
    return std::nullopt;
  };
  auto *Limit = mdconst::dyn_extract<ConstantInt>(N->getOperand(0));
  std::optional<StringRef> Source = Str(1), Rule = Str(2), RuleSource = Str(3),
                           Pool = Str(4), PoolSource = Str(5);
  if (!Limit || !Source || !Rule || !RuleSource || !Pool || !PoolSource)
    return std::nullopt;
  Expected<DynamicRule> Dynamic = parseDynamicRule(*Rule);
  if (!Dynamic) {
    consumeError(Dynamic.takeError());
    return std::nullopt;
  }
  StackPolicy P = Base;
  P.MaxStackAlloca = Limit->getZExtValue();
  P.Source = Source->str();
  P.Dynamic = *Dynamic;
  P.DynamicSource = RuleSource->str();
  P.Pool = Pool->str();
  P.PoolSource = PoolSource->str();
  return P;
}

bool deferToLink(Module &M, const ModulePolicy &Policy) {
  bool OK = true;
  DenseMap<const Function *, StackPolicy> Policies;
  for (const Function &F : M) {
    if (F.isDeclaration())
      continue;
    if (std::optional<StackPolicy> P = policyForFunction(Policy, F))
      Policies.try_emplace(&F, std::move(*P));
    else
      OK = false;
  }
  if (!OK)
    return false;
  warnAboutLostOptions(M);
  PolicyOptions Recorded = commandLineOptions();
  if (Recorded.PolicyPath)
    Recorded.PolicyPath = absolutePath(*Recorded.PolicyPath);
  std::string Text;
  {
    raw_string_ostream OS(Text);
    Recorded.printParameters(OS);
  }
  // Also when there are no options: the link step decides only the
  // functions that passed through a ScopeAlloc compile step.
  LLVMContext &C = M.getContext();
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    F.addFnAttr(CompileOptionsAttr, Text);
    // The runtime this code links against is the compile step's concern.
    if (std::optional<SlowPath> P = explicitSlowPath())
      F.addFnAttr(SlowPathAttr, spell(*P));
    if (std::optional<FastPathCheck> C = explicitFastPathCheck())
      F.addFnAttr(FastPathAttr, spell(*C));
    if (stackFactsRequested())
      F.addFnAttr(FactsRequestedAttr);
    const StackPolicy &P = Policies.find(&F)->second;
    MDNode *BufferPolicy = bufferPolicyNode(C, P);
    for (Instruction &I : instructions(F)) {
      auto *AI = dyn_cast<AllocaInst>(&I);
      if (!AI)
        continue;
      if (AI->hasName())
        AI->setMetadata(NameMetadata,
                        MDNode::get(C, MDString::get(C, AI->getName())));
      // What the policy of the function it was written in says of each
      // buffer holds wherever the link inlines it (and the compile step's
      // inliner did: BufferHome.h).
      std::optional<StackPolicy> Home = homePolicy(Policy, *AI);
      AI->setMetadata(BufferPolicyMetadata,
                      Home ? bufferPolicyNode(C, *Home) : BufferPolicy);
      AI->setMetadata(HomeMetadata, nullptr);
      if (const std::string *Spelling =
              P.scopeOfAddressSpace(AI->getAddressSpace());
          Spelling && !AI->getMetadata(ScopeMetadataName))
        AI->setMetadata(ScopeMetadataName,
                        MDNode::get(C, MDString::get(C, *Spelling)));
    }
  }

  StringRef ReportPath = reportPathOption();
  if (!ReportPath.empty())
    M.getOrInsertNamedMetadata(ReportPathsMetadata)
        ->addOperand(
            MDNode::get(C, MDString::get(C, absolutePath(ReportPath))));

  if (GlobalVariable *Marker = M.getNamedGlobal(LinkMarkerSymbol))
    if (!Marker->use_empty())
      return true;
  Constant *Marker = M.getOrInsertGlobal(LinkMarkerSymbol, Type::getInt8Ty(C));
  auto *Holder =
      new GlobalVariable(M, PointerType::getUnqual(C),
                         /*isConstant=*/true, GlobalValue::PrivateLinkage,
                         Marker, MarkerHolderName);
  appendToUsed(M, {Holder});
  return true;
}

bool adoptForeignBitcode(Module &M) {
  // (llvm::Optional before LLVM 16, std::optional after.)
  auto Options = sys::Process::GetEnv(LinkOptionsVariable);
  if (!Options)
    return false;
  bool Changed = false;
  for (Function &F : M) {
    if (F.isDeclaration() || F.hasFnAttribute(CompileOptionsAttr) ||
        F.hasFnAttribute(DecidedAttr))
      continue;
    F.addFnAttr(CompileOptionsAttr, *Options);
    F.addFnAttr(LinkOptionsAdoptedAttr);
    F.addFnAttr(FactsRequestedAttr);
    Changed = true;
  }
  // No compile step recorded a report path for this code: the link's.
  if (auto Report = sys::Process::GetEnv(LinkReportVariable);
      Changed && Report && !Report->empty()) {
    LLVMContext &C = M.getContext();
    M.getOrInsertNamedMetadata(ReportPathsMetadata)
        ->addOperand(MDNode::get(C, MDString::get(C, *Report)));
  }
  return Changed;
}

void markDecided(Module &M) {
  for (Function &F : M)
    if (!F.isDeclaration())
      F.addFnAttr(DecidedAttr);
}

bool hasLinkMarker(const Module &M) {
  const GlobalVariable *Marker = M.getNamedGlobal(LinkMarkerSymbol);
  return Marker && Marker->isDeclaration() && !Marker->use_empty();
}

bool removeLinkMarker(Module &M) {
  GlobalVariable *Marker = M.getNamedGlobal(LinkMarkerSymbol);
  if (!Marker || !Marker->isDeclaration())
    return false;
  // Full LTO's merged module has one holder per module, renamed apart.
  SmallVector<GlobalVariable *, 4> Holders;
  for (User *U : Marker->users())
    if (auto *GV = dyn_cast<GlobalVariable>(U))
      if (GV->getName().starts_with(MarkerHolderName))
        Holders.push_back(GV);
  removeFromUsedLists(M, [&](Constant *C) { return is_contained(Holders, C); });
  for (GlobalVariable *GV : Holders)
    GV->eraseFromParent();
  if (Marker->use_empty())
    Marker->eraseFromParent();
  return true;
}

std::vector<std::string> recordedReportPaths(const Module &M) {
  std::vector<std::string> Paths;
  const NamedMDNode *MD = M.getNamedMetadata(ReportPathsMetadata);
  if (!MD)
    return Paths;
  StringSet<> Seen;
  for (const MDNode *N : MD->operands())
    if (N->getNumOperands() == 1)
      if (auto *S = dyn_cast<MDString>(N->getOperand(0)))
        if (!S->getString().empty() && Seen.insert(S->getString()).second)
          Paths.push_back(S->getString().str());
  return Paths;
}

/// Whether this process has not yet reported the link line's options
/// \p Text: ThinLTO backends place each module apart, and one error
/// says it for all.
static bool firstReportOf(StringRef Text) {
  static std::mutex Lock;
  static StringSet<> Reported;
  std::lock_guard<std::mutex> Guard(Lock);
  return Reported.insert(Text).second;
}

const ModulePolicy *CompileStepPolicies::forFunction(const Function &F) {
  Attribute A = F.getFnAttribute(CompileOptionsAttr);
  if (!A.isStringAttribute())
    return &Default;
  StringRef Text = A.getValueAsString();
  if (Text.empty()) // no options: the link's own, as Default has them
    return &Default;
  auto [It, New] = ByText.try_emplace(Text);
  if (New) {
    Expected<PolicyOptions> Options =
        parsePolicyParameters(Text, "scope-alloc");
    if (!Options) {
      reportError(F, nullptr,
                  "unreadable attribute \"" + Twine(CompileOptionsAttr) +
                      "\"=\"" + Text + "\": " + toString(Options.takeError()));
      return nullptr;
    }
    // They were -scope-alloc-* options of the compile step: remarks name
    // them so.
    Options->Origin = PolicyOptions::CommandLine;
    ModulePolicy MP = computeModulePolicy(M, *Options, Parameters);
    if (MP.Error.empty())
      It->second = std::move(MP);
    else if (!F.hasFnAttribute(LinkOptionsAdoptedAttr))
      reportModuleError(M, "the policy recorded by the compile step of '" +
                               readableName(F.getName()) + "' (" + Text +
                               "): " + MP.Error);
    else if (firstReportOf(Text))
      reportModuleError(
          M, "the -scope-alloc-* options of the link line (" + Text +
                 "), which place the bitcode no ScopeAlloc compile step "
                 "prepared (rustc's -Clinker-plugin-lto objects): " +
                 MP.Error);
  }
  return It->second ? &*It->second : nullptr;
}

} // namespace scopealloc
