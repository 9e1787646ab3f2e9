//===- CallGraph.cpp - Functions, calls and entry points of an image ------===//
#include "CallGraph.h"
#include "FactsFormat.h"
#include "SymbolNames.h"
#include "TargetStack.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <set>

using namespace llvm;

namespace scopealloc {
namespace bound {

/// Every pool allocation starts at least this aligned
/// (SCOPEALLOC_MIN_ALIGN).
static constexpr uint64_t MinAlign = 8;

const char *Cause::kindName(KindTy K) {
  switch (K) {
  case Recursion:
    return "recursion";
  case IndirectCall:
    return "indirect-call";
  case DynamicStack:
    return "dynamic-stack";
  case DynamicPool:
    return "dynamic-pool";
  case NoFacts:
    return "no-facts";
  case NoFrameSize:
    return "no-frame-size";
  case Overflow:
    return "overflow";
  case Interrupt:
    return "interrupt";
  }
  return "?";
}

bool Cause::affectsStack() const { return Kind != DynamicPool; }

bool Cause::affectsPool(const std::string &P) const {
  if (Kind == DynamicPool)
    return Pool == P;
  // Recursion: decided per pool by the bound computation.
  return affectsEveryPool();
}

bool Cause::affectsEveryPool() const {
  return Kind == IndirectCall || Kind == NoFacts; // unknown code
}

bool Node::isLeaf() const {
  return Facts && Facts->Calls.empty() && Facts->IndirectCalls.empty();
}

std::string Node::where() const {
  if (!Facts || Facts->File.empty())
    return "";
  return Facts->File + ":" + std::to_string(Facts->Line);
}

/// A function as people read it: C++ and Rust names demangled.
static std::string readable(const std::string &Name) { return readableSymbol(Name); }

std::string causeText(const CallGraph &G, const Cause &C) {
  auto Name = [&](unsigned N) { return readable(G.Nodes[N].Name); };
  auto Raw = [&](unsigned N) { return G.Nodes[N].Name; };
  auto AtLine = [&](unsigned Line) {
    return Line ? ", line " + std::to_string(Line) : std::string();
  };
  switch (C.Kind) {
  case Cause::Recursion: {
    std::string S = "recursion: ";
    for (unsigned M : C.Cycle)
      S += Name(M) + " -> ";
    return S + Name(C.Cycle.front()) +
           " (declare a depth: --recursion-bound=" + Raw(C.Cycle.front()) +
           "=<frames>, the policy key 'recursion', or "
           "SCOPEALLOC_RECURSION_BOUND)";
  }
  case Cause::IndirectCall:
    // A call from inline asm whose target the asm does not name (records
    // list it as an indirect call of type 'inline asm "<instruction>"').
    if (StringRef(C.Detail).starts_with("inline asm "))
      return "call from inline asm with no target the graph can name in " +
             Name(C.Node) + " (" + C.Detail +
             "; calls that name a function, or take it as an \"i\" operand, "
             "are followed)";
    return "indirect call with no known target in " + Name(C.Node) + " (type " +
           C.Detail + "; no address-taken function has it)";
  case Cause::DynamicStack:
    return "dynamic allocation left on the stack in " + Name(C.Node) + ": " +
           C.Detail + AtLine(C.Line);
  case Cause::DynamicPool:
    return "dynamic allocation in pool " + C.Pool + " in " + Name(C.Node) +
           ": " + C.Detail + AtLine(C.Line);
  case Cause::NoFacts:
    return "call into code without facts: " + Name(C.Node) +
           (C.Caller != ~0u ? " (called from " + Name(C.Caller) + "; " : " (") +
           C.Detail + "; give its size with --assume=" + Raw(C.Node) +
           "=<bytes>)";
  case Cause::NoFrameSize:
    return "no machine frame size for " + Name(C.Node) + " (" + C.Detail + ")";
  case Cause::Overflow:
    return "worst case past 2^64 - 1 bytes in " + Name(C.Node) + ": " +
           C.Detail;
  case Cause::Interrupt:
    return "interrupt handler " + Name(C.Node) +
           ", which may preempt it, is unbounded (its causes are under its "
           "own entry)";
  }
  return "";
}

std::string poolName(const std::string &Pool) {
  return Pool.empty() ? "workspace" : Pool;
}

/// Bytes of a bump of \p Size at \p Align, from a top MinAlign-aligned:
/// the size rounded up so that the next top is aligned again, plus the
/// padding a larger alignment may need.
static uint64_t bumpBytes(uint64_t Size, uint64_t Align) {
  return alignTo(Size, MinAlign) + (std::max(Align, MinAlign) - MinAlign);
}

namespace {
class Builder {
public:
  Builder(const Image &Img, const Settings &S) : Img(Img), S(S) {}

  CallGraph build() {
    for (const FunctionFacts &R : Img.Records)
      addRecord(R);
    for (const auto &[Addr, Size] : Img.StackSizes) {
      Node &N = G.Nodes[nodeAt(Addr)];
      N.Frame = Size;
    }
    for (const Node &N : G.Nodes) {
      G.WithFacts += N.Facts != nullptr;
      G.WithFrames += N.Frame.has_value();
    }
    markAddressTaken();
    // Calls may add nodes (functions defined elsewhere): index first.
    for (unsigned I = 0, E = G.Nodes.size(); I != E; ++I)
      if (G.Nodes[I].Facts)
        addCalls(I);
    for (unsigned I = 0, E = G.Nodes.size(); I != E; ++I)
      if (G.Nodes[I].Facts)
        addLibraryCallbacks(I);
    // Entries may add nodes (main without facts): they need their own use.
    findEntries();
    warnUnnamedTasks();
    addTerminationCallees();
    for (unsigned I = 0; I < G.Nodes.size(); ++I)
      addOwnUse(I);
    std::set<std::string> Pools;
    for (const Node &N : G.Nodes)
      for (const auto &P : N.PoolBytes)
        Pools.insert(P.first);
    for (const FunctionFacts &R : Img.Records)
      for (const FunctionFacts::Dynamic &D : R.Dynamics)
        if (D.Place == facts::PlacePool)
          Pools.insert(poolName(D.Pool));
    G.Pools.assign(Pools.begin(), Pools.end());
    return std::move(G);
  }

private:
  unsigned newNode(std::string Name, uint64_t Addr) {
    G.Nodes.emplace_back();
    G.Nodes.back().Name = std::move(Name);
    G.Nodes.back().Address = Addr;
    return G.Nodes.size() - 1;
  }

  /// The node of the function at \p Addr (normalised), created on demand.
  unsigned nodeAt(uint64_t Addr) {
    auto [It, New] = ByAddress.try_emplace(Addr, 0);
    if (!New)
      return It->second;
    std::string Name;
    auto Names = Img.FunctionNames.find(Addr);
    if (Names != Img.FunctionNames.end() && !Names->second.empty())
      Name = Names->second.front();
    else
      Name = "0x" + utohexstr(Addr);
    It->second = newNode(Name, Addr);
    return It->second;
  }

  /// A callee: by address when the record's relocation resolved to a
  /// function of the image, else by name among the image's global
  /// functions, then its local ones (hidden symbols are local once linked)
  /// when the name is unique, else a function defined elsewhere. None for
  /// an undefined weak function of a static image: it is null, never called.
  std::optional<unsigned> resolve(const FunctionFacts::SymbolUse &U,
                                  bool Weak = false) {
    if (U.Address &&
        (ByAddress.count(U.Address) || Img.FunctionNames.count(U.Address)))
      return nodeAt(U.Address);
    auto Global = Img.GlobalFunctions.find(U.Name);
    if (Global != Img.GlobalFunctions.end())
      return nodeAt(Global->second);
    auto Local = Img.AllFunctions.find(U.Name);
    if (Local != Img.AllFunctions.end() && Local->second.size() == 1)
      return nodeAt(Local->second.front());
    if (Weak && !Img.Dynamic)
      return std::nullopt;
    auto [It, New] = Elsewhere.try_emplace(U.Name, 0);
    if (New)
      It->second = newNode(U.Name, 0);
    return It->second;
  }

  void addRecord(const FunctionFacts &R) {
    if (!R.Address)
      return; // a dropped function's record, with its relocation zeroed
    Node &N = G.Nodes[nodeAt(R.Address)];
    if (N.Facts) { // folded functions (--icf): one record is enough
      G.Warnings.push_back("two records for the function at 0x" +
                           utohexstr(R.Address) + " ('" + N.Facts->Name +
                           "', '" + R.Name + "'): using the first");
      return;
    }
    N.Facts = &R;
    if (!R.Name.empty())
      N.Name = R.Name;
  }

  /// An RTOS's task is started by its scheduler, on a stack of its own,
  /// from the function given to a creation call: no call of the program
  /// reaches it, so a task the policy's 'tasks' does not name would be
  /// bounded nowhere. The functions whose addresses a caller of a known
  /// creation call takes are such entries: each one that is not a task's
  /// (or another entry's) is reported, with the line to add.
  void warnUnnamedTasks() {
    static const char *const Creators[] = {
        "xTaskCreateStatic", "xTaskCreate", "xTaskCreateRestricted",
        "xTaskCreateRestrictedStatic", "xTaskCreateAffinitySet",
        "xTaskCreateStaticAffinitySet", "k_thread_create", "osThreadNew",
        "tx_thread_create", "_tx_thread_create", "_txe_thread_create"};
    auto IsCreator = [](StringRef Name) {
      return llvm::is_contained(Creators, Name);
    };
    for (const FunctionFacts &R : Img.Records) {
      if (!R.Address)
        continue;
      std::string Creates;
      for (const FunctionFacts::SymbolUse &U : R.Calls)
        if (IsCreator(U.Name))
          Creates += (Creates.empty() ? "" : ", ") + U.Name;
      if (Creates.empty())
        continue;
      for (const FunctionFacts::SymbolUse &Ref : R.Refs) {
        const Node &N = G.Nodes[*resolve(Ref)];
        const std::string &Name = N.Facts ? N.Facts->Name : N.Name;
        if (S.isTaskEntry(Name) || S.isTaskEntry(Ref.Name) ||
            llvm::is_contained(S.Entries, Name) ||
            (N.Facts && (N.Facts->Flags & facts::FlagEntry)))
          continue;
        std::string Where = R.File.empty()
                                ? std::string()
                                : " (" + R.File + ":" + std::to_string(R.Line) + ")";
        G.Warnings.push_back(
            "'" + R.Name + "'" + Where + " calls " + Creates +
            " and takes the address of '" + Name +
            "': if that is a task's entry, the task's stack is bounded "
            "nowhere (its scheduler starts it; no call of the program "
            "does): name the task in the policy's 'tasks' (" + Name +
            ": { entry: " + Name +
            ", stack: <its stack array or bytes> }, docs/rtos.md)");
      }
    }
  }

  void markAddressTaken() {
    for (Node &N : G.Nodes)
      if (N.Facts && (N.Facts->Flags & facts::FlagAddressTaken))
        N.AddressTaken = true;
    for (Node &N : G.Nodes)
      if (N.Facts && (N.Facts->Flags & facts::FlagAddressEscapes))
        N.AddressEscapes = true;
    for (const FunctionFacts &R : Img.Records)
      if (R.Address)
        for (const FunctionFacts::SymbolUse &Ref : R.Refs)
          G.Nodes[*resolve(Ref)].AddressTaken = true;
    for (uint64_t Addr : Img.AddressesInData)
      G.Nodes[nodeAt(Addr)].AddressTaken = true;
    // A task's entry (a policy's 'tasks') is started by the scheduler on
    // the task's own stack, not called through a pointer of the program:
    // it is no target of the program's indirect calls, though its type
    // matches (FreeRTOS's void (*)(void *), which the runtime's report
    // call has too).
    for (unsigned I = 0; I < G.Nodes.size(); ++I) {
      const Node &N = G.Nodes[I];
      if (N.AddressTaken && N.Facts && !S.isTaskEntry(N.Name) &&
          !S.isTaskEntry(N.Facts->Name))
        ByType[N.Facts->Type].push_back(I);
    }
  }

  /// The node standing for the address-taken functions of \p Type.
  unsigned targetSet(StringRef Type, const std::vector<unsigned> &Targets) {
    auto [It, New] = TargetSets.try_emplace(Type, 0);
    if (New) {
      It->second =
          newNode("<indirect call targets of type " + Type.str() + ">", 0);
      G.Nodes[It->second].TargetSet = true;
      G.Nodes[It->second].Callees = Targets;
    }
    return It->second;
  }

  void addCalls(unsigned I) {
    const FunctionFacts &R = *G.Nodes[I].Facts;
    std::vector<unsigned> Callees;
    for (const FunctionFacts::SymbolUse &C : R.Calls)
      if (std::optional<unsigned> Callee =
              resolve(C, C.Flags & facts::CallWeak))
        Callees.push_back(*Callee);
    // After the direct calls, as each target used to be.
    for (const auto &[Type, Sites] : R.IndirectCalls) {
      auto It = ByType.find(Type);
      if (It == ByType.end()) {
        Cause C(Cause::IndirectCall);
        C.Node = I;
        C.Detail = Type;
        G.Nodes[I].Causes.push_back(std::move(C));
        continue;
      }
      Callees.push_back(targetSet(Type, It->second));
    }
    std::vector<unsigned> &Out = G.Nodes[I].Callees;
    DenseSet<unsigned> Seen;
    for (unsigned C : Callees)
      if (Seen.insert(C).second)
        Out.push_back(C);
    for (unsigned C : Out)
      if (!G.Nodes[C].Facts && !G.Nodes[C].TargetSet && !FirstCaller.count(C))
        FirstCaller[C] = I;
  }

  /// A function passed to a library call that runs it before returning
  /// (qsort's comparator) runs on top of that call: an edge from the
  /// library function to it, so its frames add to the library's assumed
  /// size. (The edge is the library function's, for every caller: a
  /// comparator of one qsort call counts under all of them.)
  void addLibraryCallbacks(unsigned I) {
    const FunctionFacts &R = *G.Nodes[I].Facts;
    std::vector<unsigned> Run;
    for (const FunctionFacts::SymbolUse &Ref : R.Refs)
      if (Ref.Flags & facts::RefCallback)
        if (std::optional<unsigned> N = resolve(Ref))
          Run.push_back(*N);
    if (Run.empty())
      return;
    for (const FunctionFacts::SymbolUse &C : R.Calls) {
      std::optional<unsigned> Library =
          facts::runsCallbackBeforeReturning(C.Name) ? resolve(C)
                                                     : std::nullopt;
      if (!Library)
        continue;
      for (unsigned N : Run)
        if (!is_contained(G.Nodes[*Library].Callees, N))
          G.Nodes[*Library].Callees.push_back(N);
    }
  }

  std::optional<uint64_t> assumption(const Node &N, std::string &From) {
    std::vector<std::string> Names{N.Name};
    if (auto It = Img.FunctionNames.find(N.Address);
        N.Address && It != Img.FunctionNames.end())
      append_range(Names, It->second);
    for (const std::string &Name : Names)
      if (auto It = S.Assumed.find(Name); It != S.Assumed.end()) {
        From = S.AssumedFrom.lookup(Name);
        return It->second;
      }
    return std::nullopt;
  }

  void addOwnUse(unsigned I) {
    Node &N = G.Nodes[I];
    if (N.TargetSet)
      return;
    if (!N.Facts) {
      N.Assumed = assumption(N, N.AssumedFrom);
      if (!N.Assumed) {
        Cause C(Cause::NoFacts);
        C.Node = I;
        if (auto It = FirstCaller.find(I); It != FirstCaller.end())
          C.Caller = It->second;
        C.Detail = N.Address ? (N.Frame ? "in the image, frame size only"
                                        : "in the image")
                             : "not in the image";
        N.Causes.push_back(std::move(C));
      }
      return;
    }
    bool DynamicOnStack = false;
    for (const FunctionFacts::Pool &P : N.Facts->Pools)
      N.PoolBytes[poolName(P.Name)] += bumpBytes(P.FrameBytes, P.Align);
    for (const FunctionFacts::Dynamic &D : N.Facts->Dynamics) {
      bool Repeats = D.Flags & facts::DynamicInCycle;
      std::string What =
          D.Name + (D.ConstantBytes
                        ? " (" + std::to_string(D.ConstantBytes) + " bytes" +
                              (Repeats ? ", in a loop)" : ")")
                        : std::string(" (size known only at run time)"));
      if (D.Place == facts::PlaceStack) {
        // Its frame has no .stack_sizes entry, whatever the size.
        Cause C(Cause::DynamicStack);
        C.Node = I;
        C.Detail = What;
        C.Line = D.Line;
        N.Causes.push_back(std::move(C));
        DynamicOnStack = true;
        continue;
      }
      if (D.ConstantBytes && !Repeats) {
        N.PoolBytes[poolName(D.Pool)] += bumpBytes(D.ConstantBytes, D.Align);
        continue;
      }
      Cause C(Cause::DynamicPool);
      C.Node = I;
      C.Detail = What;
      C.Pool = poolName(D.Pool);
      C.Line = D.Line;
      N.Causes.push_back(std::move(C));
    }
    // What its own instructions move the stack pointer down by (Arm:
    // ArmCode.h): a naked function's pushes, inline asm's sub sp, which
    // no .stack_sizes entry holds. More than the entry is counted; a move
    // the code does not show the amount of is a cause.
    auto Code = N.Address ? Img.CodeStacks.find(N.Address)
                          : Img.CodeStacks.end();
    if (Code != Img.CodeStacks.end() && !DynamicOnStack) {
      if (!Code->second.Unknown.empty()) {
        Cause C(Cause::NoFrameSize);
        C.Node = I;
        C.Detail = Code->second.Unknown;
        N.Causes.push_back(std::move(C));
        return;
      }
      if (N.Frame && Code->second.Bytes > *N.Frame)
        G.Warnings.push_back(
            readable(N.Name) + ": its instructions move the stack pointer " +
            "down by " + std::to_string(Code->second.Bytes) + " bytes, " +
            std::to_string(Code->second.Bytes - *N.Frame) +
            " more than its .stack_sizes entry (assembly the compiler did "
            "not write): counted");
      if (!N.Frame || Code->second.Bytes > *N.Frame)
        N.Frame = Code->second.Bytes;
    }
    if (!N.Frame && !DynamicOnStack) {
      Cause C(Cause::NoFrameSize);
      C.Node = I;
      C.Detail = "compiled without -fstack-size-section";
      N.Causes.push_back(std::move(C));
    }
  }

  /// Adds entry \p I, or makes an entry of a less concurrent kind this
  /// one: what may run most at once decides what may share its frames. An
  /// entry \p Declared (marked in the source, named by a policy or an
  /// option) is of unknown concurrency only while the program shows no
  /// kind of its own.
  void addEntry(unsigned I, std::string Kind, Concurrency Runs,
                bool Exception = false, bool Declared = false) {
    for (unsigned K = 0; K < G.Entries.size(); ++K) {
      EntryPoint &E = G.Entries[K];
      if (E.Node != I)
        continue;
      bool WasDeclared = DeclaredEntries.count(K);
      if (Declared && !WasDeclared)
        return;
      if ((WasDeclared && !Declared) || Runs > E.Runs) {
        E.Kind = std::move(Kind);
        E.Runs = Runs;
        if (!Declared)
          DeclaredEntries.erase(K);
      }
      E.Exception |= Exception;
      return;
    }
    if (Declared)
      DeclaredEntries.insert(G.Entries.size());
    G.Entries.push_back({I, std::move(Kind), Exception, Runs});
  }

  /// The node of the function of the image named \p Name (a global one
  /// first, else a local one).
  std::optional<unsigned> functionNamed(const std::string &Name) {
    if (auto It = Img.GlobalFunctions.find(Name);
        It != Img.GlobalFunctions.end())
      return nodeAt(It->second);
    for (unsigned I = 0; I < G.Nodes.size(); ++I)
      if (G.Nodes[I].Address && G.Nodes[I].Name == Name)
        return I;
    return functionNamedReadably(Name);
  }

  /// The function \p Name names as this tool prints it (demangled, a Rust
  /// name with or without its hash, a C++ one without its parameters),
  /// when it names one (SymbolNames.h); a warning lists them when several.
  std::optional<unsigned> functionNamedReadably(const std::string &Name) {
    std::vector<std::string> Symbols;
    std::vector<unsigned> Nodes;
    for (unsigned I = 0; I < G.Nodes.size(); ++I)
      if (G.Nodes[I].Address) {
        Symbols.push_back(G.Nodes[I].Name);
        Nodes.push_back(I);
      }
    std::vector<std::string> Found = symbolsNamed(Name, Symbols);
    if (Found.size() == 1)
      return Nodes[find(Symbols, Found[0]) - Symbols.begin()];
    if (Found.size() > 1) {
      std::string Names;
      for (const std::string &F : Found)
        Names += (Names.empty() ? "" : ", ") + F;
      G.Warnings.push_back("'" + Name + "' names " +
                           std::to_string(Found.size()) +
                           " functions: " + Names + "; give one of them");
    }
    return std::nullopt;
  }

  /// The node of function \p Name: defined in the image, else called by
  /// name and defined elsewhere; none when nothing calls it.
  std::optional<unsigned> nodeNamed(StringRef Name) const {
    if (auto It = Img.GlobalFunctions.find(Name);
        It != Img.GlobalFunctions.end())
      if (auto N = ByAddress.find(Img.normalize(It->second));
          N != ByAddress.end())
        return N->second;
    if (auto It = Elsewhere.find(Name); It != Elsewhere.end())
      return It->second;
    return std::nullopt;
  }

  /// What a library call runs on top of its caller before it returns, or
  /// instead of returning: fork() its fork handlers; exit() and
  /// quick_exit() the exit handlers, the static destructors and the
  /// calling thread's thread exit handlers; pthread_exit() and thrd_exit()
  /// the thread exit handlers (and, in the last thread, what exit() runs).
  /// Each stays an entry of its own too (run after main returns, or after
  /// a thread's start routine returns).
  void addTerminationCallees() {
    std::vector<unsigned> Exit, ThreadExit, Fork;
    auto Add = [](std::vector<unsigned> &To, unsigned N) {
      if (!is_contained(To, N))
        To.push_back(N);
    };
    for (const FunctionFacts &R : Img.Records) {
      if (!R.Address)
        continue;
      for (const FunctionFacts::SymbolUse &Ref : R.Refs) {
        if (Ref.Flags & facts::RefExitHandler)
          Add(Exit, *resolve(Ref));
        if (Ref.Flags & facts::RefThreadExitHandler)
          Add(ThreadExit, *resolve(Ref));
        if (Ref.Flags & facts::RefForkHandler)
          Add(Fork, *resolve(Ref));
      }
    }
    for (const auto &[Table, Addr] : Img.Startup)
      if (Table == ".fini_array" || Table == ".dtors")
        Add(Exit, nodeAt(Addr));
    auto Runs = [&](StringRef Library,
                    std::initializer_list<const std::vector<unsigned> *> Sets) {
      std::optional<unsigned> L = nodeNamed(Library);
      if (!L)
        return;
      for (const std::vector<unsigned> *Set : Sets)
        for (unsigned N : *Set)
          if (N != *L && !is_contained(G.Nodes[*L].Callees, N))
            G.Nodes[*L].Callees.push_back(N);
    };
    for (StringRef Name : {"exit", "quick_exit"})
      Runs(Name, {&Exit, &ThreadExit});
    for (StringRef Name : {"pthread_exit", "thrd_exit"})
      Runs(Name, {&ThreadExit, &Exit});
    Runs("fork", {&Fork});
  }

  void findEntries() {
    using C = Concurrency;
    if (auto It = Img.GlobalFunctions.find("main");
        It != Img.GlobalFunctions.end())
      addEntry(nodeAt(It->second), "main", C::Once);
    // Of unknown concurrency: one per thread, on a hosted target.
    for (unsigned I = 0; I < G.Nodes.size(); ++I)
      if (G.Nodes[I].Facts && (G.Nodes[I].Facts->Flags & facts::FlagEntry))
        addEntry(I, "marked entry", C::PerThread, false, /*Declared=*/true);
    for (const std::string &Name : S.Entries) {
      std::optional<unsigned> Found = functionNamed(Name);
      if (Found)
        addEntry(*Found,
                 S.isTaskEntry(Name)
                     ? (StringRef(S.taskOfEntry(Name)->From).starts_with("'tasks'")
                            ? "policy task entry"
                            : "created task entry")
                 : S.PolicyEntries.count(Name) ? "policy entry"
                                               : "option",
                 C::PerThread, false, /*Declared=*/true);
      else
        G.Warnings.push_back("entry '" + Name +
                             "' is not a function of the image");
    }
    // Cortex-M: word 0 is the initial stack pointer, word 1 the reset
    // handler, which no exception frame precedes.
    for (const auto &[Index, Addr] : Img.Vectors)
      if (!(Img.isARM() && Index == 0))
        addEntry(nodeAt(Addr), "interrupt vector " + std::to_string(Index),
                 C::Once, !(Img.isARM() && Index == 1));
    // A name is a guess, made on bare metal only: under an operating system
    // a *_Handler is whatever the program makes it (a policy's 'entries'
    // names an entry there).
    if (!Img.Hosted)
      for (const auto &[Addr, Names] : Img.FunctionNames)
        for (const std::string &Name : Names)
          if (StringRef(Name).ends_with("_Handler") ||
              StringRef(Name).ends_with("_IRQHandler")) {
            addEntry(nodeAt(Addr), "interrupt handler (by name)", C::Once,
                     Name != "Reset_Handler");
            break;
          }
    // Handlers a policy gives a priority are interrupt handlers wherever
    // their vectors are (a RISC-V trap dispatcher, a table in RAM).
    for (const auto &[Name, P] : S.InterruptPriorities) {
      if (std::optional<unsigned> Found = functionNamed(Name))
        addEntry(*Found,
                 "interrupt handler (priority " + std::to_string(P.Level) + ")",
                 C::Once, Img.isARM());
      else
        G.Warnings.push_back("interrupt handler '" + Name + "' (" + P.From +
                             ") is not a function of the image");
    }
    // Constructors run before main, destructors after it (or at dlopen and
    // dlclose), each on a stack of its own depth.
    for (const auto &[Table, Addr] : Img.Startup) {
      bool Destructor = Table == ".fini_array" || Table == ".dtors";
      addEntry(nodeAt(Addr),
               (Destructor ? "destructor (" : "constructor (") + Table + ")",
               C::Once);
    }
    bool UnknownStarts = false;
    for (const FunctionFacts &R : Img.Records) {
      if (!R.Address)
        continue;
      UnknownStarts |= R.Flags & facts::FlagUnknownThreadStart;
      for (const FunctionFacts::SymbolUse &Ref : R.Refs) {
        if (Ref.Flags & facts::RefThreadStart)
          addEntry(*resolve(Ref), "thread start", C::PerThread);
        // Handlers run on whatever stack they interrupt (or, at exit,
        // below exit()): each is bounded as an entry point of its own.
        if (Ref.Flags & facts::RefSignalHandler)
          addEntry(*resolve(Ref), "signal handler", C::Unknown);
        if (Ref.Flags & facts::RefExitHandler)
          addEntry(*resolve(Ref), "exit handler", C::Once);
        if (Ref.Flags & facts::RefForkHandler)
          addEntry(*resolve(Ref), "fork handler", C::PerThread);
        if (Ref.Flags & facts::RefThreadExitHandler)
          addEntry(*resolve(Ref), "thread exit handler", C::PerThread);
      }
    }
    // pthread_create's and thrd_create's routine types.
    if (UnknownStarts)
      for (const char *Type : {"ptr (ptr)", "i32 (ptr)"})
        for (unsigned I : ByType.lookup(Type))
          addEntry(I, "thread start (by type)", C::PerThread);
    // Code the graph does not see may run such an entry at any time.
    for (EntryPoint &E : G.Entries)
      if (G.Nodes[E.Node].AddressEscapes)
        E.Runs = C::Unknown;
  }

  const Image &Img;
  const Settings &S;
  CallGraph G;
  std::map<uint64_t, unsigned> ByAddress;
  StringMap<unsigned> Elsewhere;
  StringMap<std::vector<unsigned>> ByType;
  StringMap<unsigned> TargetSets; ///< by type
  std::map<unsigned, unsigned> FirstCaller;
  std::set<unsigned> DeclaredEntries; ///< indices into G.Entries
};
} // namespace

CallGraph buildCallGraph(const Image &Img, const Settings &S) {
  return Builder(Img, S).build();
}

void setMachineDefaults(const Image &Img, Settings &S) {
  TargetStack Target = targetStack(
      archOfELFMachine(Img.EMachine, Img.AddressSize == 8), Img.AddressSize);
  S.CallOverhead = Target.CallOverhead;
  S.RedZone = Target.RedZone;
  S.ExceptionFrame = exceptionFrame(Img, &S.ExceptionFrameWhy);
  // A bare-metal image links the freestanding runtime: where it carries no
  // facts (built by an older clang), its functions take that runtime's
  // measured stack, not the hosted one's (which may report through stdio).
  if (Img.Hosted)
    return;
  for (auto &Entry : S.Assumed) {
    StringRef Name = Entry.getKey();
    if ((Name.starts_with("__scopealloc_") ||
         Name.starts_with("scopealloc_")) &&
        S.AssumedFrom.lookup(Name) == "built-in" &&
        Entry.getValue() > Target.FreestandingRuntime) {
      Entry.getValue() = Target.FreestandingRuntime;
      S.AssumedFrom[Name] = "built-in: the freestanding runtime";
    }
  }
}

Components findComponents(const CallGraph &G) {
  Components K;
  unsigned N = G.Nodes.size();
  K.Of.assign(N, -1);
  std::vector<int> Index(N, -1), Low(N, 0);
  std::vector<bool> OnStack(N, false);
  std::vector<unsigned> Stack;
  int Next = 0;
  struct Frame {
    unsigned Node, Edge;
  };
  for (unsigned Root = 0; Root < N; ++Root) {
    if (Index[Root] >= 0)
      continue;
    std::vector<Frame> Work{{Root, 0}};
    Index[Root] = Low[Root] = Next++;
    Stack.push_back(Root);
    OnStack[Root] = true;
    while (!Work.empty()) {
      Frame &F = Work.back();
      const std::vector<unsigned> &Out = G.Nodes[F.Node].Callees;
      if (F.Edge < Out.size()) {
        unsigned W = Out[F.Edge++];
        if (Index[W] < 0) {
          Index[W] = Low[W] = Next++;
          Stack.push_back(W);
          OnStack[W] = true;
          Work.push_back({W, 0});
        } else if (OnStack[W]) {
          Low[F.Node] = std::min(Low[F.Node], Index[W]);
        }
        continue;
      }
      unsigned V = F.Node;
      Work.pop_back();
      if (!Work.empty())
        Low[Work.back().Node] = std::min(Low[Work.back().Node], Low[V]);
      if (Low[V] != Index[V])
        continue;
      std::vector<unsigned> Members;
      unsigned W;
      do {
        W = Stack.back();
        Stack.pop_back();
        OnStack[W] = false;
        K.Of[W] = K.Members.size();
        Members.push_back(W);
      } while (W != V);
      std::reverse(Members.begin(), Members.end());
      K.Cycle.push_back(Members.size() > 1 ||
                        is_contained(G.Nodes[V].Callees, V));
      K.Members.push_back(std::move(Members));
    }
  }
  return K;
}

CallGraph analyzeImage(const Image &Img, const Settings &S) {
  CallGraph G = buildCallGraph(Img, S);
  if (Img.Records.empty())
    G.Warnings.push_back("no records in .scopealloc_facts: were the objects "
                         "compiled through scopealloc-clang (or with "
                         "-mllvm -scope-alloc-facts), and, under LTO, linked "
                         "by lld with the plugin loaded?");
  if (Img.StackSizes.empty())
    G.Warnings.push_back("no .stack_sizes section: compile with "
                         "-fstack-size-section");
  if (Img.LazyBinding)
    G.Warnings.push_back(
        "lazy binding: the first call through each PLT slot runs the dynamic "
        "linker's resolver on the caller's stack (glibc's saves the vector "
        "registers: up to about 1-3 KiB on x86-64), which these bounds do "
        "not count; link with -Wl,-z,now (or run with LD_BIND_NOW=1)");
  return G;
}

} // namespace bound
} // namespace scopealloc
