//===- LinkerRemarks.cpp - Remarks at an lld link, as clang prints them ---===//
#include "support/LinkerRemarks.h"
#include "LLVMCompat.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace scopealloc {

bool runningInLinker() {
  static const bool InLinker = [] {
    // /proc/self/exe: lld's one binary, whichever of its names ran it.
    std::string Exe = sys::fs::getMainExecutable(nullptr, nullptr);
    StringRef Name = sys::path::filename(Exe);
    return Name == "lld" || Name.starts_with("ld.lld") ||
           Name.starts_with("lld-");
  }();
  return InLinker;
}

namespace {

/// Prints the pass's remarks itself; everything else, and every question
/// about which remarks are enabled, goes to the handler it replaced.
struct PrefixingHandler : DiagnosticHandler {
  explicit PrefixingHandler(std::unique_ptr<DiagnosticHandler> Inner)
      : Inner(std::move(Inner)) {
    DiagHandlerCallback = this->Inner->DiagHandlerCallback;
    DiagnosticContext = this->Inner->DiagnosticContext;
  }

  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    const auto *R = dyn_cast<DiagnosticInfoOptimizationBase>(&DI);
    if (!R || DI.getSeverity() != DS_Remark ||
        !StringRef(R->getPassName()).starts_with("scope-alloc"))
      return Inner->handleDiagnostics(DI);
    StringRef Flag = "-Rpass";
    if (isa<OptimizationRemarkMissed>(DI))
      Flag = "-Rpass-missed";
    else if (isa<OptimizationRemarkAnalysis>(DI))
      Flag = "-Rpass-analysis";
    // One write: ThinLTO backends remark from several threads.
    SmallString<256> Line;
    raw_svector_ostream OS(Line);
    if (R->isLocationAvailable())
      OS << R->getLocationStr() << ": ";
    OS << "remark: " << R->getMsg() << " [" << Flag << "=" << R->getPassName()
       << "]\n";
    errs() << Line;
    return true;
  }
  bool isAnalysisRemarkEnabled(StringRef PassName) const override {
    return Inner->isAnalysisRemarkEnabled(PassName);
  }
  bool isMissedOptRemarkEnabled(StringRef PassName) const override {
    return Inner->isMissedOptRemarkEnabled(PassName);
  }
  bool isPassedOptRemarkEnabled(StringRef PassName) const override {
    return Inner->isPassedOptRemarkEnabled(PassName);
  }
  bool isAnyRemarkEnabled() const override {
    return Inner->isAnyRemarkEnabled();
  }

  std::unique_ptr<DiagnosticHandler> Inner;
};

} // namespace

LinkerRemarkPrefix::LinkerRemarkPrefix(LLVMContext &Ctx) : Ctx(Ctx) {
  if (!runningInLinker() || !Ctx.getDiagHandlerPtr())
    return;
  // LTO's contexts respect the filters (lto::Config's handler); so does
  // this one, asking the replaced handler.
  Ctx.setDiagnosticHandler(
      std::make_unique<PrefixingHandler>(Ctx.getDiagnosticHandler()),
      /*RespectFilters=*/true);
  Installed = true;
}

LinkerRemarkPrefix::~LinkerRemarkPrefix() {
  if (!Installed)
    return;
  std::unique_ptr<DiagnosticHandler> Ours = Ctx.getDiagnosticHandler();
  Ctx.setDiagnosticHandler(
      std::move(static_cast<PrefixingHandler &>(*Ours).Inner),
      /*RespectFilters=*/true);
}

} // namespace scopealloc
