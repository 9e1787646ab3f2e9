//===- Output.cpp - scopealloc-bound's text and JSON ----------------------===//
#include "Output.h"
#include "FactsFormat.h"
#include "LLVMCompat.h"
#include "Scope.h"
#include "SymbolNames.h"
#include "Tasks.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace scopealloc {
namespace bound {

static constexpr int SchemaVersion = 1;

static std::string stepName(const CallGraph &G, const ChainStep &St) {
  if (St.Node == ChainStep::ExceptionFrame)
    return "(exception frame)";
  return G.Nodes[St.Node].Name;
}

/// A function as people read it: C++ and Rust names demangled.
static std::string readable(const std::string &Name) { return readableSymbol(Name); }

static void printChain(raw_ostream &OS, const CallGraph &G,
                       const ResourceBound &R, bool Stack) {
  OS << "  " << (Stack ? "stack" : "pool " + R.Name) << ": ";
  if (R.Bounded)
    OS << R.Bytes << " bytes";
  else
    OS << "unbounded (known part: " << R.Bytes << " bytes)";
  if (!R.Nested.empty())
    OS << ", " << R.OwnBytes << " of its own and " << R.Bytes - R.OwnBytes
       << " of the interrupt handlers that may preempt it";
  OS << '\n';
  printChainRows(OS, G, R, Stack);
}

/// Whether the chain's step \p St is the ScopeAlloc runtime: one of its
/// entry points, or code without its own placement (the runtime is built
/// -scope-alloc-facts-only) that such a step calls.
static bool isRuntimeEntry(const CallGraph &G, const ChainStep &St) {
  if (St.Node == ChainStep::ExceptionFrame)
    return false;
  StringRef Name = G.Nodes[St.Node].Name;
  return Name.starts_with("__scopealloc_") || Name.starts_with("scopealloc_");
}
static bool isFactsOnly(const CallGraph &G, const ChainStep &St) {
  return St.Node != ChainStep::ExceptionFrame && G.Nodes[St.Node].Facts &&
         (G.Nodes[St.Node].Facts->Flags & facts::FlagFactsOnly);
}

static void printStep(raw_ostream &OS, const CallGraph &G, const ChainStep &St,
                      bool Stack) {
  OS << "    " << format_decimal(St.Bytes, 10);
  if (Stack)
    OS << format_decimal(St.Frame, 10);
  OS << "  " << readable(stepName(G, St));
  if (St.Repeat > 1)
    OS << " x" << St.Repeat << " (recursion depth)";
  if (St.Node != ChainStep::ExceptionFrame) {
    std::string Where = G.Nodes[St.Node].where();
    if (!Where.empty())
      OS << "  " << Where;
  }
  if (St.Assumed)
    OS << "  [assumed: " << G.Nodes[St.Node].AssumedFrom << "]";
  if (St.Unknown)
    OS << "  [unbounded]";
  if (!St.RepeatFrom.empty())
    OS << "  [depth: " << St.RepeatFrom << "]";
  OS << '\n';
}

void printChainRows(raw_ostream &OS, const CallGraph &G, const ResourceBound &R,
                    bool Stack) {
  OS << (Stack ? "         bytes     frame  function\n"
               : "         bytes  function\n");
  for (size_t I = 0; I < R.Chain.size(); ++I) {
    const ChainStep &St = R.Chain[I];
    // The runtime's frames below one of its entry points are one row: the
    // chain is the program's path, the runtime's part its cost.
    size_t End = I + 1;
    if (isRuntimeEntry(G, St))
      while (End < R.Chain.size() && isFactsOnly(G, R.Chain[End]) &&
             !R.Chain[End].Unknown)
        ++End;
    if (End == I + 1) {
      printStep(OS, G, St, Stack);
      continue;
    }
    uint64_t Bytes = 0;
    for (size_t K = I; K < End; ++K)
      Bytes = SaturatingAdd(Bytes, R.Chain[K].Bytes);
    OS << "    " << format_decimal(Bytes, 10);
    if (Stack)
      OS << "          ";
    OS << "  " << readable(stepName(G, St))
       << "  [ScopeAlloc runtime: " << End - I << " frames, down to "
       << readable(stepName(G, R.Chain[End - 1])) << "]\n";
    I = End - 1;
  }
  if (R.Nested.empty())
    return;
  OS << "    interrupt handlers on top (each may preempt what is above it):\n";
  for (const NestedHandler &N : R.Nested) {
    OS << "    " << format_decimal(N.Bytes, 10);
    if (Stack)
      OS << "          ";
    OS << "  " << readable(G.Nodes[N.Node].Name) << "  (" << N.Kind << "; "
       << N.Level << ")" << (N.Bounded ? "" : "  [unbounded]") << '\n';
  }
}

void printText(raw_ostream &OS, const Image &Img, const CallGraph &G,
               const Settings &S, const Bounds &B) {
  OS << "scopealloc-bound: " << Img.Path << ": " << Img.Machine << ", "
     << G.WithFacts << " functions with facts, " << G.WithFrames
     << " with frame sizes\n";
  if (S.CallOverhead)
    OS << "  each call adds " << S.CallOverhead
       << " bytes (the return address)\n";
  if (S.RedZone)
    OS << "  leaf functions add " << S.RedZone << " bytes (the red zone)\n";
  if (S.ExceptionFrame)
    OS << "  interrupt handlers add " << S.ExceptionFrame
       << " bytes (the exception frame"
       << (S.ExceptionFrameWhy.empty() ? "" : ", " + S.ExceptionFrameWhy)
       << ")\n";
  if (!Img.VectorsFrom.empty())
    OS << "  interrupt vector table: " << Img.VectorsFrom << "\n";
  if (Img.Stack.Bytes)
    OS << "  stack: " << Img.Stack.Bytes << " bytes reserved in the image ("
       << Img.Stack.From << ")\n";
  for (const auto &[Pool, C] : Img.Pools) {
    OS << "  pool " << Pool << ": " << C.Bytes << " bytes in the image ("
       << C.From << (C.Unusable.empty() ? "" : ": " + C.Unusable) << ")";
    if (C.partitions()) {
      PoolUsers U = poolUsers(G, B, Pool);
      OS << "\n    shared: " << C.partitions() << " partitions of "
         << C.partitionBytes()
         << " bytes, one per thread; each entry's worst case must fit one";
      std::string Who = U.MainThread.empty() ? "" : "the main thread";
      for (const EntryBound *T : U.ThreadStarts)
        Who += (Who.empty() ? "" : ", ") +
               readable(G.Nodes[T->Entry.Node].Name) + " (" + T->Entry.Kind +
               ")";
      if (!Who.empty())
        OS << "\n    threads using it: " << U.threads() << " or more (" << Who
           << ")";
    } else if (C.PartitionAsked) {
      OS << ", shared (partitions of " << C.partitionBytes()
         << " bytes), served whole by the single-threaded runtime";
    }
    OS << '\n';
  }
  for (const auto &[Name, R] : Img.StaticRegions)
    OS << "  static region " << Name << ": " << R.Bytes
       << " bytes of planned frames (plan: static"
       << (R.PerThread ? ", per thread" : "") << "), not in any pool\n";
  for (const std::string &W : G.Warnings)
    OS << "warning: " << W << '\n';
  for (const std::string &P : Img.Problems)
    OS << "warning: " << P << '\n';
  if (B.Entries.empty())
    OS << "\nno entry point found (give one with --entry=<function>)\n";
  for (const EntryBound &E : B.Entries) {
    OS << "\nentry " << readable(G.Nodes[E.Entry.Node].Name) << " ("
       << E.Entry.Kind << ")\n";
    printChain(OS, G, E.Stack, true);
    for (const ResourceBound &P : E.Pools)
      printChain(OS, G, P, false);
    if (E.Causes.empty())
      continue;
    OS << "  unbounded because of:\n";
    for (const Cause &C : E.Causes)
      OS << "    " << causeText(G, C) << " [" << join(C.Affects, ", ") << "]\n";
  }
  for (const TaskBound &T : taskBounds(Img, G, S, B)) {
    OS << "\ntask " << T.Task->Name << " (entry " << readable(T.Task->Entry)
       << "): ";
    if (!T.Entry) {
      OS << "its entry is not a function of the image\n";
      continue;
    }
    OS << "stack " << (T.Bounded ? "" : "unbounded, known part: ") << T.Bytes
       << " bytes: chain " << T.Chain << " + exception frame "
       << T.ExceptionFrame << " + switch context " << T.SwitchContext << '\n';
    if (!T.StackProblem.empty())
      OS << "  its stack: unknown, " << T.StackProblem << '\n';
    else
      OS << "  its stack: " << T.StackBytes << " bytes (" << T.StackFrom
         << ")\n";
    OS << "  switch context: " << T.SwitchFrom << '\n';
    if (!T.ArenaProblem.empty())
      OS << "  its arena: unknown, " << T.ArenaProblem << '\n';
    else if (!T.Task->Arena.empty())
      OS << "  its arena: " << T.ArenaBytes << " bytes (" << T.ArenaFrom
         << "), pool " << DefaultPoolName << " use "
         << (T.ArenaUse ? T.ArenaUse->Bytes : 0) << " bytes\n";
    for (const TaskBound::PoolShare &Sh : T.Shares)
      OS << "  its partition of pool " << Sh.Pool << ": " << Sh.Bytes
         << " bytes ('pools'), use "
         << (Sh.Use ? std::to_string(Sh.Use->Bytes) +
                          (Sh.Use->Bounded ? "" : " (unbounded)")
                    : std::string("0"))
         << " bytes\n";
    printChainRows(OS, G, T.Entry->Stack, /*Stack=*/true);
  }
}

static json::Array chainJSON(const CallGraph &G, const ResourceBound &R) {
  json::Array A;
  for (const ChainStep &St : R.Chain) {
    json::Object O{{"function", stepName(G, St)},
                   {"bytes", uint64_t(St.Bytes)},
                   {"frame", uint64_t(St.Frame)}};
    if (St.Repeat > 1)
      O["repeat"] = uint64_t(St.Repeat);
    if (!St.RepeatFrom.empty())
      O["repeat_from"] = St.RepeatFrom;
    if (St.Assumed) {
      O["assumed"] = true;
      // Where the size comes from, as the text says it: "built-in",
      // "--assume", or "<config file>:<line>".
      if (St.Node != ChainStep::ExceptionFrame &&
          !G.Nodes[St.Node].AssumedFrom.empty())
        O["assumed_from"] = G.Nodes[St.Node].AssumedFrom;
    }
    if (St.Unknown)
      O["unbounded"] = true;
    if (St.Node != ChainStep::ExceptionFrame) {
      std::string Where = G.Nodes[St.Node].where();
      if (!Where.empty())
        O["source"] = Where;
    }
    A.push_back(std::move(O));
  }
  return A;
}

static json::Object boundJSON(const CallGraph &G, const ResourceBound &R) {
  json::Object O{{"bounded", R.Bounded},
                 {"bytes", uint64_t(R.Bytes)},
                 {"chain", chainJSON(G, R)}};
  // The entry's own worst case, and the interrupt handlers that may
  // preempt it, counted on top.
  if (!R.Nested.empty()) {
    json::Array Nested;
    for (const NestedHandler &N : R.Nested)
      Nested.push_back(json::Object{{"function", G.Nodes[N.Node].Name},
                                    {"kind", N.Kind},
                                    {"bytes", uint64_t(N.Bytes)},
                                    {"bounded", N.Bounded},
                                    {"level", N.Level}});
    O["own_bytes"] = uint64_t(R.OwnBytes);
    O["interrupts"] = std::move(Nested);
  }
  return O;
}

void printJSON(raw_ostream &OS, const Image &Img, const CallGraph &G,
               const Settings &S, const Bounds &B) {
  json::Array Entries;
  for (const EntryBound &E : B.Entries) {
    json::Object Pools;
    for (const ResourceBound &P : E.Pools)
      Pools[P.Name] = boundJSON(G, P);
    json::Array Causes;
    for (const Cause &C : E.Causes) {
      json::Object O{{"kind", Cause::kindName(C.Kind)},
                     {"function", G.Nodes[C.Node].Name},
                     {"affects", json::Array(C.Affects)},
                     {"text", causeText(G, C)}};
      if (C.Kind == Cause::Recursion) {
        json::Array Cycle;
        for (unsigned M : C.Cycle)
          Cycle.push_back(G.Nodes[M].Name);
        O["cycle"] = std::move(Cycle);
      }
      if (C.Caller != ~0u)
        O["caller"] = G.Nodes[C.Caller].Name;
      if (!C.Detail.empty())
        O["detail"] = C.Detail;
      if (!C.Pool.empty())
        O["pool"] = C.Pool;
      if (C.Line)
        O["line"] = int64_t(C.Line);
      Causes.push_back(std::move(O));
    }
    Entries.push_back(json::Object{{"function", G.Nodes[E.Entry.Node].Name},
                                   {"kind", E.Entry.Kind},
                                   {"stack", boundJSON(G, E.Stack)},
                                   {"pools", std::move(Pools)},
                                   {"causes", std::move(Causes)}});
  }
  json::Array Tasks;
  for (const TaskBound &T : taskBounds(Img, G, S, B)) {
    json::Object O{
        {"name", T.Task->Name},
        {"entry", T.Task->Entry},
        {"found", T.Entry != nullptr},
        {"bounded", T.Bounded},
        {"bytes", int64_t(T.Bytes)},
        {"chain", int64_t(T.Chain)},
        {"exception_frame", int64_t(T.ExceptionFrame)},
        {"switch_context", int64_t(T.SwitchContext)},
        {"switch_context_from", T.SwitchFrom},
        {"stack_bytes", T.StackProblem.empty()
                            ? json::Value(int64_t(T.StackBytes))
                            : json::Value(nullptr)},
        {"stack_from", T.StackProblem.empty() ? T.StackFrom : T.StackProblem}};
    if (!T.Task->Arena.empty()) {
      O["arena"] = T.Task->Arena;
      O["arena_bytes"] = T.ArenaProblem.empty()
                             ? json::Value(int64_t(T.ArenaBytes))
                             : json::Value(nullptr);
      O["arena_use"] = int64_t(T.ArenaUse ? T.ArenaUse->Bytes : 0);
    }
    if (!T.Shares.empty()) {
      json::Array Shares;
      for (const TaskBound::PoolShare &Sh : T.Shares)
        Shares.push_back(json::Object{
            {"pool", Sh.Pool},
            {"bytes", int64_t(Sh.Bytes)},
            {"use", Sh.Use && !Sh.Use->Bounded
                        ? json::Value(nullptr)
                        : json::Value(int64_t(Sh.Use ? Sh.Use->Bytes : 0))}});
      O["pool_partitions"] = std::move(Shares);
    }
    if (T.Entry)
      O["stack_chain"] = chainJSON(G, T.Entry->Stack);
    Tasks.push_back(std::move(O));
  }
  json::Array Warnings;
  for (const std::string &W : G.Warnings)
    Warnings.push_back(W);
  for (const std::string &P : Img.Problems)
    Warnings.push_back(P);
  json::Object Capacities;
  for (const auto &[Pool, C] : Img.Pools) {
    json::Object O{{"bytes", int64_t(C.Bytes)}, {"symbol", C.From}};
    if (C.PartitionAsked) {
      // A shared pool: partitions of partition_bytes, `partitions` of them
      // (0: the single-threaded runtime serves the pool whole), and the
      // threads known to use it: thread start routines and the main thread.
      PoolUsers U = poolUsers(G, B, Pool);
      json::Array Starts;
      for (const EntryBound *T : U.ThreadStarts)
        Starts.push_back(G.Nodes[T->Entry.Node].Name);
      O["partition_bytes"] = int64_t(C.partitionBytes());
      O["partitions"] = int64_t(C.partitions());
      O["thread_starts"] = std::move(Starts);
      O["main_thread"] = !U.MainThread.empty();
    }
    Capacities[Pool] = std::move(O);
  }
  json::Object Regions;
  for (const auto &[Name, R] : Img.StaticRegions)
    Regions[Name] =
        json::Object{{"bytes", int64_t(R.Bytes)}, {"per_thread", R.PerThread}};
  json::Object Doc{{"schema", "scopealloc-bound"},
                   {"version", SchemaVersion},
                   {"image", Img.Path},
                   {"machine", Img.Machine},
                   {"call_overhead", int64_t(S.CallOverhead)},
                   {"red_zone", int64_t(S.RedZone)},
                   {"exception_frame", int64_t(S.ExceptionFrame)},
                   {"functions_with_facts", int64_t(G.WithFacts)},
                   {"functions_with_frame_sizes", int64_t(G.WithFrames)},
                   {"pools", json::Array(G.Pools)},
                   {"pool_capacities", std::move(Capacities)},
                   {"static_regions", std::move(Regions)},
                   {"reserved_stack",
                    Img.Stack.Bytes ? json::Value(json::Object{
                                          {"bytes", int64_t(Img.Stack.Bytes)},
                                          {"from", Img.Stack.From}})
                                    : json::Value(nullptr)},
                   {"entries", std::move(Entries)},
                   {"tasks", std::move(Tasks)},
                   {"warnings", std::move(Warnings)}};
  OS << formatv("{0:2}", json::Value(std::move(Doc))) << '\n';
}

void dumpFacts(raw_ostream &OS, const Image &Img) {
  OS << Img.Path << ": " << Img.Records.size() << " records in "
     << facts::SectionName << ", " << Img.StackSizeEntries
     << " entries in .stack_sizes\n";
  for (const std::string &P : Img.Problems)
    OS << "warning: " << P << '\n';
  for (const FunctionFacts &R : Img.Records) {
    OS << "function " << R.Name;
    if (!Img.Relocatable)
      OS << " at 0x" << utohexstr(R.Address);
    OS << "\n  type: " << R.Type << "\n  flags:";
    if (R.Flags & facts::FlagAddressTaken)
      OS << " address-taken";
    if (R.Flags & facts::FlagEntry)
      OS << " entry";
    if (R.Flags & facts::FlagExternal)
      OS << " external";
    if (R.Flags & facts::FlagUnknownThreadStart)
      OS << " unknown-thread-start";
    if (R.Flags & facts::FlagFactsOnly)
      OS << " facts-only";
    OS << '\n';
    if (!R.File.empty())
      OS << "  source: " << R.File << ':' << R.Line << '\n';
    if (auto It = Img.StackSizes.find(R.Address);
        !Img.Relocatable && It != Img.StackSizes.end())
      OS << "  frame: " << It->second << '\n';
    if (R.RecursionBound)
      OS << "  recursion bound: " << R.RecursionBound << " frames\n";
    for (const FunctionFacts::StackAlloca &A : R.StackAllocas)
      OS << "  stack allocation: " << A.Name << ", " << A.Bytes
         << " bytes, align " << A.Align
         << (A.Flags & facts::StackAllocaPinned ? ", stack scope" : "")
         << (A.Line ? ", line " + std::to_string(A.Line) : "") << '\n';
    for (const FunctionFacts::Pool &P : R.Pools)
      OS << "  pool " << poolName(P.Name) << ": " << P.FrameBytes
         << " bytes, align " << P.Align << '\n';
    for (const FunctionFacts::Dynamic &D : R.Dynamics)
      OS << "  dynamic "
         << (D.Place == facts::PlaceStack ? std::string("stack")
                                          : "pool " + poolName(D.Pool))
         << ": " << D.Name << ", "
         << (D.ConstantBytes ? std::to_string(D.ConstantBytes) + " bytes"
                             : std::string("size at run time"))
         << ", align " << D.Align
         << (D.Flags & facts::DynamicInCycle ? ", in a loop" : "")
         << (D.Line ? ", line " + std::to_string(D.Line) : "") << '\n';
    for (const FunctionFacts::SymbolUse &C : R.Calls)
      OS << "  call " << C.Name << (C.Flags & facts::CallWeak ? " (weak)" : "")
         << '\n';
    for (const auto &[Type, Sites] : R.IndirectCalls)
      OS << "  indirect call: " << Type << " (" << Sites << " sites)\n";
    for (const FunctionFacts::SymbolUse &Ref : R.Refs)
      OS << "  address of " << Ref.Name
         << (Ref.Flags & facts::RefThreadStart ? " (thread start)" : "")
         << (Ref.Flags & facts::RefCallback ? " (run by a library call)" : "")
         << (Ref.Flags & facts::RefSignalHandler ? " (signal handler)" : "")
         << (Ref.Flags & facts::RefExitHandler ? " (exit handler)" : "")
         << '\n';
    for (const FunctionFacts::TaskCreation &T : R.TaskCreations)
      OS << "  task created by " << T.Creator << ": entry " << T.Entry
         << (T.TaskName.empty() ? "" : ", name \"" + T.TaskName + "\"")
         << (T.StackSymbol.empty() ? "" : ", stack array " + T.StackSymbol)
         << (T.StackBytes ? ", stack " + std::to_string(T.StackBytes) +
                                " bytes"
                          : "")
         << (T.Line ? ", line " + std::to_string(T.Line) : "") << '\n';
  }
}

} // namespace bound
} // namespace scopealloc
