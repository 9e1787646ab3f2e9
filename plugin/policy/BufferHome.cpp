//===- BufferHome.cpp - A buffer keeps its function's settings ------------===//
#include "policy/BufferHome.h"
#include "facts/LTODeferral.h"
#include "support/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace scopealloc {

/// !{!"name", !"attribute", !"value", ...} of \p F.
static MDNode *homeNode(const Function &F) {
  LLVMContext &C = F.getContext();
  SmallVector<Metadata *, 8> Ops{MDString::get(C, F.getName())};
  for (const auto &[Name, Value] : functionPolicyAttributes(F)) {
    Ops.push_back(MDString::get(C, Name));
    Ops.push_back(MDString::get(C, Value));
  }
  return MDNode::get(C, Ops);
}

bool recordBufferHomes(Module &M) {
  // The command line's policy: its file's 'functions' entries name the
  // functions with settings of their own (pass parameters of a pipeline
  // written by hand are not known here; they are not per function).
  ModulePolicy MP = computeModulePolicy(M, commandLineOptions());
  if (none_of(M, [&](const Function &F) {
        return !F.isDeclaration() && hasFunctionSettings(MP, F);
      }))
    return false;
  bool Changed = false;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    MDNode *Home = nullptr;
    for (Instruction &I : instructions(F)) {
      auto *AI = dyn_cast<AllocaInst>(&I);
      if (!AI || AI->getMetadata(HomeMetadata))
        continue;
      if (!Home)
        Home = homeNode(F);
      AI->setMetadata(HomeMetadata, Home);
      Changed = true;
    }
  }
  return Changed;
}

void inheritHome(AllocaInst &New) {
  Function &F = *New.getFunction();
  for (Instruction &I : instructions(F))
    if (auto *AI = dyn_cast<AllocaInst>(&I); AI && AI != &New)
      if (MDNode *Home = AI->getMetadata(HomeMetadata);
          Home && Home->getNumOperands() &&
          isa<MDString>(Home->getOperand(0)) &&
          cast<MDString>(Home->getOperand(0))->getString() == F.getName()) {
        New.setMetadata(HomeMetadata, homeNode(F));
        return;
      }
}

std::optional<StackPolicy> homePolicy(const ModulePolicy &MP,
                                      const AllocaInst &AI) {
  const MDNode *N = AI.getMetadata(HomeMetadata);
  if (!N || N->getNumOperands() % 2 != 1)
    return std::nullopt;
  auto Text = [&](unsigned I) -> std::optional<StringRef> {
    if (const auto *S = dyn_cast<MDString>(N->getOperand(I)))
      return S->getString();
    return std::nullopt;
  };
  std::optional<StringRef> Name = Text(0);
  const Function &F = *AI.getFunction();
  if (!Name || *Name == F.getName())
    return std::nullopt;
  std::vector<std::pair<std::string, std::string>> Attributes;
  for (unsigned I = 1; I + 1 < N->getNumOperands(); I += 2) {
    std::optional<StringRef> Key = Text(I), Value = Text(I + 1);
    if (!Key || !Value)
      return std::nullopt;
    Attributes.push_back({Key->str(), Value->str()});
  }
  std::string Error;
  std::optional<StackPolicy> P =
      policyForFunctionNamed(MP, *F.getParent(), *Name, Attributes, Error);
  if (!P && !Error.empty())
    reportError(F, &AI, "buffer inlined from '" + Name->str() + "': " + Error);
  return P;
}

bool applyBufferHomes(Function &F, const ModulePolicy &MP) {
  bool Changed = false;
  DenseMap<const MDNode *, MDNode *> PolicyOfHome;
  for (Instruction &I : instructions(F)) {
    auto *AI = dyn_cast<AllocaInst>(&I);
    if (!AI)
      continue;
    const MDNode *Home = AI->getMetadata(HomeMetadata);
    if (!Home)
      continue;
    if (!AI->getMetadata(BufferPolicyMetadata)) {
      auto [It, New] = PolicyOfHome.try_emplace(Home, nullptr);
      if (New)
        if (std::optional<StackPolicy> P = homePolicy(MP, *AI))
          It->second = bufferPolicyNode(F.getContext(), *P);
      if (It->second)
        AI->setMetadata(BufferPolicyMetadata, It->second);
    }
    // Decided here: nothing moves it any more.
    AI->setMetadata(HomeMetadata, nullptr);
    Changed = true;
  }
  return Changed;
}

} // namespace scopealloc
