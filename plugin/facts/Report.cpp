//===- Report.cpp - The per-module JSON report of placement decisions -----===//
#include "facts/Report.h"
#include "OptionCategory.h"
#include "SymbolNames.h"
#include "facts/LTODeferral.h"
#include "policy/StackPolicy.h"
#include "support/Diagnostics.h"
#include "support/ValueNames.h"
#include "transform/AllocaDemotion.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::opt<std::string> ReportPath(
    "scope-alloc-report", cl::cat(scopealloc::optionCategory()),
    cl::desc("Write a JSON report of the placement decisions to <file>, or "
             "to a new uniquely named file in <dir>/ (one per module)"),
    cl::value_desc("file|dir/"));

// The wrappers name the file a module's code ends up in, so that a summary
// counts only the newest report of each object (docs/report-schema.md).
static cl::opt<std::string> ReportOutput(
    "scope-alloc-report-output", cl::cat(scopealloc::optionCategory()),
    cl::desc("Record <file> as the report's 'output': the object (or image) "
             "the module's code ends up in"),
    cl::value_desc("file"));

// flang names every module 'FIRModule': scopealloc-flang names its source.
static cl::opt<std::string> ReportSource(
    "scope-alloc-report-source", cl::cat(scopealloc::optionCategory()),
    cl::desc("Record <file> as the report's 'source_file', for compilers "
             "whose modules do not name their source (flang)"),
    cl::value_desc("file"));

namespace scopealloc {

static std::string sourceFileName(const Module &M) {
  return ReportSource.empty() ? M.getSourceFileName() : ReportSource;
}

bool reportRequested() { return !ReportPath.empty(); }
StringRef reportPathOption() { return ReportPath; }

static const char *const DecisionNames[] = {"keep", "demote", "pinned"};

static unsigned decisionIndex(AllocaDecision::ActionTy A) {
  switch (A) {
  case AllocaDecision::Keep:
    return 0;
  case AllocaDecision::Demote:
    return 1;
  case AllocaDecision::Pinned:
    return 2;
  case AllocaDecision::Rejected:
    break;
  }
  llvm_unreachable("a rejected allocation stops the function's planning");
}

void ReportTotals::add(const ReportTotals &O) {
  Allocations += O.Allocations;
  for (unsigned I = 0; I < 3; ++I) {
    Decisions[I] += O.Decisions[I];
    Dynamic[I] += O.Dynamic[I];
  }
  auto AddPlace = [](Place &To, const Place &From) {
    To.Bytes += From.Bytes;
    To.FrameBytes += From.FrameBytes;
    To.Allocations += From.Allocations;
    To.Dynamic += From.Dynamic;
  };
  AddPlace(Stack, O.Stack);
  for (const auto &[Pool, P] : O.Pools)
    AddPlace(Pools[Pool], P);
}

/// The pool name the report uses: the default pool is "workspace".
static std::string poolName(const std::string &Pool) {
  return Pool.empty() ? DefaultPoolName : Pool;
}

/// Where the variable of \p AI is declared (file, line, and the inlined
/// function it belongs to), from its debug records; unset without them.
static AllocationRecord recordAllocation(const AllocaDecision &D) {
  const AllocaInst &AI = *D.Alloca;
  AllocationRecord R;
  SourceVariable SV = findSourceVariable(AI);
  if (SV.Var && SV.Var->getLine()) {
    R.File = SV.Var->getFilename().str();
    R.Line = SV.Var->getLine();
  } else if (SV.Loc && SV.Loc.getLine()) {
    R.File = cast<DIScope>(SV.Loc->getScope())->getFilename().str();
    R.Line = SV.Loc.getLine();
  }
  if (SV.Var)
    if (const DISubprogram *Home = SV.Var->getScope()->getSubprogram();
        Home && Home != AI.getFunction()->getSubprogram())
      R.InlinedFrom = Home->getName().str();
  if (StringRef Name = irName(AI); !Name.empty()) // also under LTO
    R.IRName = Name.str();
  R.Name = SV.Var && !SV.Var->getName().empty()
               ? SV.Var->getName().str()
               : R.IRName.value_or("<unnamed>");
  R.Size = D.Size;
  R.Align = AI.getAlign().value();
  R.Static = AI.isStaticAlloca() && D.Size;
  if (D.S.Kind != Scope::Unspecified)
    R.Scope = D.S.Spelling;
  R.Action = D.Action;
  if (D.Action == AllocaDecision::Demote)
    R.Pool = poolName(D.Pool);
  R.Rule = D.Rule;
  R.Reason = D.Reason;
  return R;
}

void ModuleReport::addFunction(const Function &F, const StackPolicy &Policy,
                               ArrayRef<AllocaDecision> Decisions) {
  ++Seen;
  if (Decisions.empty()) {
    ++WithoutAllocations;
    return;
  }
  FunctionRecord FR;
  FR.Name = F.getName().str();
  FR.Demangled = readableSymbol(FR.Name);
  if (const DISubprogram *SP = F.getSubprogram()) {
    FR.File = SP->getFilename().str();
    if (SP->getLine())
      FR.Line = SP->getLine();
  }
  FR.Policy = Policy;
  ReportTotals &T = FR.Totals;
  for (const AllocaDecision &D : Decisions) {
    AllocationRecord R = recordAllocation(D);
    unsigned Index = decisionIndex(D.Action);
    ++T.Allocations;
    ++T.Decisions[Index];
    ReportTotals::Place &P = R.Pool ? T.Pools[*R.Pool] : T.Stack;
    ++P.Allocations;
    if (R.Static) {
      P.Bytes += *R.Size;
    } else {
      ++T.Dynamic[Index];
      ++P.Dynamic;
    }
    FR.Allocations.push_back(std::move(R));
  }
  Totals.add(T);
  Functions.push_back(std::move(FR));
}

void ModuleReport::addDemotion(const Function &F,
                               const FunctionDemotion &Demotion) {
  if (Demotion.empty())
    return;
  assert(!Functions.empty() && Functions.back().Name == F.getName() &&
         "a function's demotion is recorded after its decisions");
  ReportTotals &T = Functions.back().Totals;
  // The static allocas that move share one frame per pool: its size is what
  // a call bumps.
  for (const PoolFrame &PF : Demotion.Pools) {
    if (!PF.Frame)
      continue;
    std::string Pool = poolName(PF.Pool);
    T.Pools[Pool].FrameBytes += PF.FrameSize;
    Totals.Pools[Pool].FrameBytes += PF.FrameSize;
  }
}

void ModuleReport::addFailedFunction(const Function &F) {
  ++Seen;
  Failed.push_back(F.getName().str());
}

template <typename T>
static void attributeOrNull(json::OStream &J, StringRef Key,
                            const std::optional<T> &V) {
  if (V)
    J.attribute(Key, *V);
  else
    J.attribute(Key, nullptr);
}

static void printTotals(json::OStream &J, const ReportTotals &T) {
  auto Counts = [&](StringRef Key, const uint64_t(&C)[3]) {
    J.attributeObject(Key, [&] {
      for (unsigned I = 0; I < 3; ++I)
        J.attribute(DecisionNames[I], C[I]);
    });
  };
  J.object([&] {
    J.attribute("allocations", T.Allocations);
    Counts("decisions", T.Decisions);
    Counts("dynamic", T.Dynamic);
    J.attributeObject("stack", [&] {
      J.attribute("bytes", T.Stack.Bytes);
      J.attribute("allocations", T.Stack.Allocations);
      J.attribute("dynamic", T.Stack.Dynamic);
    });
    J.attributeObject("pools", [&] {
      for (const auto &[Pool, P] : T.Pools)
        J.attributeObject(Pool, [&, &P = P] {
          J.attribute("bytes", P.Bytes);
          J.attribute("frame_bytes", P.FrameBytes);
          J.attribute("allocations", P.Allocations);
          J.attribute("dynamic", P.Dynamic);
        });
    });
  });
}

static void printPolicy(json::OStream &J, const StackPolicy &P) {
  auto Field = [&](StringRef Key, auto Value, const std::string &Source) {
    J.attributeObject(Key, [&] {
      J.attribute("value", Value);
      J.attribute("source", Source);
    });
  };
  J.object([&] {
    Field("max_stack_alloca", P.MaxStackAlloca, P.Source);
    Field("frame_budget",
          P.FrameBudget ? json::Value(*P.FrameBudget) : json::Value(nullptr),
          P.FrameBudgetSource);
    Field("dynamic", spell(P.Dynamic), P.DynamicSource);
    Field("pool", poolName(P.Pool), P.PoolSource);
    Field("stack_scope_over_budget", spell(P.StackScopeOverBudget),
          P.StackScopeOverBudgetSource);
    Field("address_space_scopes", printAddressSpaceScopes(P.AddressSpaceScopes),
          P.AddressSpaceScopesSource);
    Field("plan", spell(P.Plan), P.PlanSource);
  });
}

static void printAllocation(json::OStream &J, const AllocationRecord &R) {
  J.object([&] {
    J.attribute("name", R.Name);
    attributeOrNull(J, "ir_name", R.IRName);
    attributeOrNull(J, "file", R.File);
    attributeOrNull(J, "line", R.Line);
    attributeOrNull(J, "inlined_from", R.InlinedFrom);
    attributeOrNull(J, "size", R.Size);
    J.attribute("align", R.Align);
    J.attribute("static", R.Static);
    attributeOrNull(J, "scope", R.Scope);
    J.attribute("decision", DecisionNames[decisionIndex(R.Action)]);
    attributeOrNull(J, "pool", R.Pool);
    J.attribute("rule", R.Rule);
    J.attribute("reason", R.Reason);
  });
}

static void printFunction(json::OStream &J, const FunctionRecord &F) {
  J.object([&] {
    J.attribute("name", F.Name);
    J.attribute("demangled", F.Demangled);
    attributeOrNull(J, "file", F.File);
    attributeOrNull(J, "line", F.Line);
    J.attributeBegin("policy");
    printPolicy(J, F.Policy);
    J.attributeEnd();
    J.attributeBegin("totals");
    printTotals(J, F.Totals);
    J.attributeEnd();
    J.attributeArray("allocations", [&] {
      for (const AllocationRecord &R : F.Allocations)
        printAllocation(J, R);
    });
  });
}

void ModuleReport::print(raw_ostream &OS) const {
  SmallString<256> Directory;
  if (sys::fs::current_path(Directory))
    Directory.clear();
  json::OStream J(OS, /*IndentSize=*/2);
  J.object([&] {
    J.attribute("schema", ReportSchemaName);
    J.attribute("version", ReportSchemaVersion);
    J.attribute("producer", "ScopeAlloc (LLVM " LLVM_VERSION_STRING ")");
    J.attribute("module", M.getModuleIdentifier());
    J.attribute("source_file", sourceFileName(M));
    J.attribute("directory", Directory.str());
    J.attribute("output", ReportOutput.empty() ? json::Value(nullptr)
                                               : json::Value(ReportOutput));
    J.attribute("target_triple", targetTripleString(M));
    J.attribute("complete", Failed.empty());
    J.attributeArray("failed_functions", [&] {
      for (const std::string &Name : Failed)
        J.value(Name);
    });
    J.attribute("functions_seen", Seen);
    J.attribute("functions_without_allocations", WithoutAllocations);
    J.attribute("functions_not_handled", Unhandled);
    J.attributeBegin("totals");
    printTotals(J, Totals);
    J.attributeEnd();
    J.attributeArray("functions", [&] {
      for (const FunctionRecord &F : Functions)
        printFunction(J, F);
    });
    J.attribute("not_handled_reason", Unhandled ? json::Value(UnhandledReason)
                                                : json::Value(nullptr));
  });
  OS << "\n";
}

/// The file to write: -scope-alloc-report itself, or a new file in it when
/// it names a directory (ends in a separator, or exists as one), so that one
/// option serves every module of a build. Empty after a reported error.
static std::string reportFile(const Module &M, StringRef Path) {
  bool IsDirectory =
      sys::path::is_separator(Path.back()) || sys::fs::is_directory(Path);
  if (!IsDirectory)
    return Path.str();
  if (std::error_code EC = sys::fs::create_directories(Path)) {
    reportModuleError(M, "cannot create the report directory '" + Path +
                             "': " + EC.message());
    return "";
  }
  // <source file stem>-<8 random hex digits>.json: readable and unique.
  std::string Stem = sys::path::stem(sourceFileName(M)).str();
  if (Stem == "-" || Stem == "<stdin>")
    Stem = "stdin";
  for (char &C : Stem)
    if (!isAlnum(C) && C != '-' && C != '_' && C != '.')
      C = '_';
  if (Stem.empty())
    Stem = "module";
  if (Stem[0] == '-' || Stem[0] == '.')
    Stem[0] = '_'; // no option-like or hidden names
  SmallString<256> Model(Path);
  sys::path::append(Model, Stem + "-%%%%%%%%.json");
  SmallString<256> Unique;
  if (std::error_code EC = sys::fs::createUniqueFile(Model, Unique)) {
    reportModuleError(M, "cannot create a report file in '" + Path +
                             "': " + EC.message());
    return "";
  }
  return Unique.str().str();
}

void ModuleReport::write(StringRef Path) const {
  std::string File = reportFile(M, Path.empty() ? StringRef(ReportPath) : Path);
  if (File.empty())
    return;
  auto Fail = [&](const Twine &Why) {
    reportModuleError(M, "cannot write the report '" + File + "': " + Why);
  };
  // A temporary next to it, renamed over it: readers never see half a file.
  int FD;
  SmallString<256> Temporary;
  if (std::error_code EC =
          sys::fs::createUniqueFile(File + ".tmp-%%%%%%", FD, Temporary))
    return Fail(EC.message());
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    print(OS);
    OS.close();
    if (OS.has_error()) {
      std::string Why = OS.error().message();
      OS.clear_error();
      sys::fs::remove(Temporary);
      return Fail(Why);
    }
  }
  if (std::error_code EC = sys::fs::rename(Temporary, File)) {
    sys::fs::remove(Temporary);
    return Fail(EC.message());
  }
}

} // namespace scopealloc
