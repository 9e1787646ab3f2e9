//===- Check.cpp - Holding an image to its declared bounds ----------------===//
#include "Check.h"
#include "Output.h"
#include "SymbolNames.h"
#include "Tasks.h"
#include "scopealloc/abi_constants.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace scopealloc {
namespace bound {

const Limit *stackLimit(const Settings &S, const std::string &Name) {
  if (auto It = S.EntryBounds.find(Name); It != S.EntryBounds.end())
    return &It->second;
  return S.StackBound ? &*S.StackBound : nullptr;
}

namespace {

class Checker {
public:
  Checker(raw_ostream &OS, const Image &Img, const CallGraph &G,
          const Settings &S, const Bounds &B, bool Warn)
      : OS(OS), Img(Img), G(G), S(S), B(B), Warn(Warn) {}

  CheckResult run() {
    for (const auto &Declared : S.EntryBounds)
      if (none_of(B.Entries, [&](const EntryBound &E) {
            return G.Nodes[E.Entry.Node].Name == Declared.first;
          }))
        error() << "entry '" << Declared.first << "' (" << Declared.second.From
                << ") is not a function of the image\n";
    for (const EntryBound &E : B.Entries)
      checkStack(E);
    for (const TaskBound &T : taskBounds(Img, G, S, B))
      checkTask(T);
    for (const std::string &Pool : G.Pools)
      checkPool(Pool);
    checkReservedStack();
    checkPoolSizes();
    return Result;
  }

private:
  raw_ostream &error() {
    ++Result.Violations;
    (Warn ? WithColor::warning(OS, "scopealloc-bound")
          : WithColor::error(OS, "scopealloc-bound"))
        << Img.Path << ": ";
    return OS;
  }

  std::string entryName(const EntryBound &E) const {
    return readableSymbol(G.Nodes[E.Entry.Node].Name) + " (" + E.Entry.Kind + ")";
  }

  /// ", with the interrupt handlers that may preempt it (...)", if any.
  std::string nestedText(const ResourceBound &R) const {
    if (R.Nested.empty())
      return "";
    std::string Text = ", with the interrupt handlers that may preempt it (" +
                       std::to_string(R.OwnBytes) + " bytes of its own";
    for (const NestedHandler &N : R.Nested)
      Text +=
          ", " + std::to_string(N.Bytes) + " " + readableSymbol(G.Nodes[N.Node].Name);
    return Text + ")";
  }

  void printCauses(const EntryBound &E, const std::string &Resource) {
    for (const Cause &C : E.Causes)
      if (is_contained(C.Affects, Resource))
        OS << "    " << causeText(G, C) << '\n';
  }

  void checkStack(const EntryBound &E) {
    const Limit *L = stackLimit(S, G.Nodes[E.Entry.Node].Name);
    if (!L)
      return;
    if (!E.Stack.Bounded) {
      error() << "entry " << entryName(E)
              << ": the stack is unbounded under its bound of " << L->Bytes
              << " bytes (" << L->From << "), because of:\n";
      printCauses(E, "stack");
      OS << "  the known part, " << E.Stack.Bytes << " bytes:\n";
      printChainRows(OS, G, E.Stack, /*Stack=*/true);
      return;
    }
    if (E.Stack.Bytes <= L->Bytes)
      return;
    Result.StackOver = true;
    error() << "entry " << entryName(E) << " needs " << E.Stack.Bytes
            << " bytes of stack" << nestedText(E.Stack)
            << ", over its bound of " << L->Bytes << " bytes (" << L->From
            << "); critical chain:\n";
    printChainRows(OS, G, E.Stack, /*Stack=*/true);
  }

  /// A task's bound against its stack (its array's size, or 'stack').
  void checkTask(const TaskBound &T) {
    std::string Task = "task '" + T.Task->Name + "' (entry " +
                       readableSymbol(T.Task->Entry) + ", " + T.Task->From +
                       ")";
    if (!T.Entry) {
      error() << Task << ": its entry is not a function of the image\n";
      return;
    }
    checkTaskArena(T, Task);
    checkTaskShares(T, Task);
    if (!T.StackProblem.empty()) {
      error() << Task << ": " << T.StackProblem << "\n";
      return;
    }
    std::string Parts = "chain " + std::to_string(T.Chain) +
                        " + exception frame " +
                        std::to_string(T.ExceptionFrame) +
                        " + switch context " + std::to_string(T.SwitchContext);
    if (!T.Bounded) {
      error() << Task << ": the stack is unbounded under its stack of "
              << T.StackBytes << " bytes (" << T.StackFrom
              << "), because of:\n";
      printCauses(*T.Entry, "stack");
      OS << "  the known part, " << T.Bytes << " bytes (" << Parts << "):\n";
      printChainRows(OS, G, T.Entry->Stack, /*Stack=*/true);
      return;
    }
    if (T.Bytes <= T.StackBytes)
      return;
    Result.StackOver = true;
    error() << Task << " needs " << T.Bytes << " bytes of stack (" << Parts
            << "), more than its stack of " << T.StackBytes << " bytes ("
            << T.StackFrom << "); critical chain:\n";
    printChainRows(OS, G, T.Entry->Stack, /*Stack=*/true);
  }

  /// A task's default-pool use (its own and the handlers' that preempt
  /// it) against its arena's buffer.
  void checkTaskArena(const TaskBound &T, const std::string &Task) {
    if (!T.ArenaProblem.empty()) {
      error() << Task << ": " << T.ArenaProblem << "\n";
      return;
    }
    const ResourceBound *R = T.ArenaUse;
    if (!R || (R->Bounded && R->Bytes <= T.ArenaBytes))
      return;
    if (!R->Bounded) {
      error() << Task << ": its use of pool " << R->Name
              << " is unbounded under its arena of " << T.ArenaBytes
              << " bytes (" << T.ArenaFrom << "), because of:\n";
      printCauses(*T.Entry, R->Name);
      return;
    }
    error() << Task << " needs " << R->Bytes << " bytes of pool " << R->Name
            << nestedText(*R) << ", more than its arena of " << T.ArenaBytes
            << " bytes (" << T.ArenaFrom << "); critical chain:\n";
    printChainRows(OS, G, *R, /*Stack=*/false);
  }

  /// A task's use of each named pool it has a partition of ('pools')
  /// against that partition, not against the whole pool.
  void checkTaskShares(const TaskBound &T, const std::string &Task) {
    for (const TaskBound::PoolShare &Sh : T.Shares) {
      const ResourceBound *R = Sh.Use;
      if (!R || (R->Bounded && R->Bytes <= Sh.Bytes))
        continue;
      std::string Share = std::to_string(Sh.Bytes) + " bytes ('pools' " +
                          std::to_string(Sh.Asked) +
                          (Sh.Asked == Sh.Bytes ? "" : ", rounded up to 64") +
                          ": scopealloc_task_add_pool)";
      if (!R->Bounded) {
        error() << Task << ": its use of pool " << R->Name
                << " is unbounded under its partition of " << Share
                << ", because of:\n";
        printCauses(*T.Entry, R->Name);
        continue;
      }
      error() << Task << " needs " << R->Bytes << " bytes of pool " << R->Name
              << nestedText(*R) << ", more than its partition of " << Share
              << "; critical chain:\n";
      printChainRows(OS, G, *R, /*Stack=*/false);
    }
  }

  /// The stack the linker script reserves against what the entries need
  /// and what the policy promises: an image whose worst case overruns its
  /// own stack, or a bound the reservation cannot keep, is an error.
  void checkReservedStack() {
    const Image::ReservedStack &R = Img.Stack;
    if (!R.Bytes)
      return;
    std::string Reserved = std::to_string(R.Bytes) +
                           " bytes the image reserves for the stack (" +
                           R.From + ", from its linker script)";
    auto Promise = [&](const Limit &L) {
      if (L.Bytes <= R.Bytes)
        return;
      error() << "stack bound of " << L.Bytes << " bytes (" << L.From
              << ") is more than the " << Reserved << ": reserve at least "
              << L.Bytes << " bytes, or lower the bound\n";
    };
    if (S.StackBound)
      Promise(*S.StackBound);
    for (const auto &[Entry, L] : S.EntryBounds)
      Promise(L);
    // One stack: the entry that needs most of it is the error. An
    // unbounded entry's known part is what it needs at least: one that
    // does not fit is an error whatever else is unbounded.
    // A task's entry runs on the task's stack (checkTask), not this one.
    const EntryBound *Worst = nullptr;
    for (const EntryBound &E : B.Entries) {
      if (S.isTaskEntry(G.Nodes[E.Entry.Node].Name))
        continue;
      if (!Worst || E.Stack.Bytes > Worst->Stack.Bytes ||
          (E.Stack.Bytes == Worst->Stack.Bytes && E.Stack.Bounded &&
           !Worst->Stack.Bounded))
        Worst = &E;
    }
    if (!Worst || Worst->Stack.Bytes <= R.Bytes)
      return;
    if (!Worst->Stack.Bounded) {
      error() << "entry " << entryName(*Worst) << " needs at least "
              << Worst->Stack.Bytes << " bytes of stack (the known part"
              << nestedText(Worst->Stack) << "; the rest is unbounded), more "
              << "than the " << Reserved << "; unbounded because of:\n";
      printCauses(*Worst, "stack");
      OS << "  the known part:\n";
    } else {
      error() << "entry " << entryName(*Worst) << " needs "
              << Worst->Stack.Bytes << " bytes of stack"
              << nestedText(Worst->Stack) << ", more than the " << Reserved
              << "; critical chain:\n";
    }
    printChainRows(OS, G, Worst->Stack, /*Stack=*/true);
  }

  /// A policy's 'pool-sizes' against the pools the image defines: the
  /// image giving a pool less than the policy declares is an error (code
  /// sized by the policy overruns it); more is a warning (memory no bound
  /// counts on), except for a shared pool, a partition per thread.
  void checkPoolSizes() {
    for (const auto &[Pool, L] : S.PoolSizes) {
      auto It = Img.Pools.find(Pool);
      if (It == Img.Pools.end() || It->second.Bytes == L.Bytes)
        continue;
      const PoolCapacity &C = It->second;
      std::string What = C.Buffer
                             ? "its buffer " + C.From + " in the image"
                             : "the memory " + C.From + " spans in the image";
      if (C.Bytes < L.Bytes) {
        error() << "pool " << Pool << " is declared " << L.Bytes << " bytes ("
                << L.From << "), but " << What << " is " << C.Bytes
                << " bytes; define it with " << L.Bytes
                << " bytes, or declare its real size\n";
        continue;
      }
      // A shared pool's buffer holds a partition per thread.
      if (C.PartitionAsked)
        continue;
      WithColor::warning(OS, "scopealloc-bound")
          << Img.Path << ": pool " << Pool << " is declared " << L.Bytes
          << " bytes (" << L.From << "), but " << What << " is " << C.Bytes
          << " bytes: " << C.Bytes - L.Bytes
          << " bytes that no bound counts on\n";
    }
  }

  /// The worst case of \p Pool over the entry points: an unbounded one
  /// first, else the largest.
  std::pair<const EntryBound *, const ResourceBound *>
  worst(const std::string &Pool) const {
    const EntryBound *WE = nullptr;
    const ResourceBound *WR = nullptr;
    for (const EntryBound &E : B.Entries)
      for (const ResourceBound &R : E.Pools) {
        if (R.Name != Pool || inTaskArena(Img, G, S, E, Pool))
          continue;
        if (!WR || (!R.Bounded && WR->Bounded) ||
            (R.Bounded == WR->Bounded && R.Bytes > WR->Bytes)) {
          WE = &E;
          WR = &R;
        }
      }
    return {WE, WR};
  }

  /// The alignment padding the worst case counts for the first frame of
  /// \p R's chain that a buffer of the pool macros does not need: that
  /// frame starts at the buffer itself, SCOPEALLOC_POOL_ALIGN-aligned.
  uint64_t basePadding(const ResourceBound &R, const std::string &Pool) const {
    for (const ChainStep &St : R.Chain) {
      if (!St.Bytes || St.Node == ChainStep::ExceptionFrame)
        continue;
      const FunctionFacts *F = G.Nodes[St.Node].Facts;
      if (!F)
        return 0;
      for (const FunctionFacts::Pool &P : F->Pools)
        if (poolName(P.Name) == Pool) {
          uint64_t Align = std::max<uint64_t>(P.Align, SCOPEALLOC_MIN_ALIGN);
          return Align - SCOPEALLOC_MIN_ALIGN -
                 (Align > SCOPEALLOC_POOL_ALIGN ? Align - SCOPEALLOC_POOL_ALIGN
                                                : 0);
        }
      return 0;
    }
    return 0;
  }

  void checkPool(const std::string &Pool) {
    auto [E, R] = worst(Pool);
    if (!R)
      return;
    // Each limit, and whether it is a buffer of the pool macros.
    std::vector<std::pair<Limit, bool>> Limits;
    if (auto It = S.PoolSizes.find(Pool); It != S.PoolSizes.end())
      Limits.push_back({It->second, false});
    if (auto It = Img.Pools.find(Pool); It != Img.Pools.end())
      Limits.push_back(
          {{It->second.Bytes,
            It->second.Buffer
                ? "its buffer " + It->second.From + " in the image"
                : "the memory " + It->second.From + " spans in the image" +
                  (It->second.Unusable.empty()
                       ? ""
                       : ": " + It->second.Unusable)},
           It->second.Buffer});
    // The largest known part, bounded or not.
    const EntryBound *KE = nullptr;
    const ResourceBound *KR = nullptr;
    for (const EntryBound &Entry : B.Entries)
      for (const ResourceBound &P : Entry.Pools)
        if (P.Name == Pool && !inTaskArena(Img, G, S, Entry, Pool) &&
            (!KR || P.Bytes > KR->Bytes)) {
          KE = &Entry;
          KR = &P;
        }
    for (const auto &[L, MacroBuffer] : Limits) {
      // With no bound declared, an unbounded use may still fit a pool
      // buffer: only its known part that does not is an error.
      if (!R->Bounded && !declaresBound(S)) {
        if (KR->Bytes <= L.Bytes ||
            (MacroBuffer && KR->Bytes - basePadding(*KR, Pool) <= L.Bytes))
          continue;
        error() << "pool " << Pool << " is " << L.Bytes << " bytes (" << L.From
                << "), smaller than the known part of its use, "
                << KR->Bytes << " bytes, from entry " << entryName(*KE)
                << nestedText(*KR)
                << "; the rest is unbounded, because of:\n";
        printCauses(*KE, Pool);
        OS << "  the known part:\n";
        printChainRows(OS, G, *KR, /*Stack=*/false);
        continue;
      }
      if (!R->Bounded) {
        error() << "pool " << Pool << " is " << L.Bytes << " bytes (" << L.From
                << "), but its use is unbounded, from entry " << entryName(*E)
                << ", because of:\n";
        printCauses(*E, Pool);
        OS << "  the known part, " << R->Bytes << " bytes:\n";
        printChainRows(OS, G, *R, /*Stack=*/false);
        continue;
      }
      if (R->Bytes <= L.Bytes ||
          (MacroBuffer && R->Bytes - basePadding(*R, Pool) <= L.Bytes))
        continue;
      error() << "pool " << Pool << " is " << L.Bytes << " bytes (" << L.From
              << "), smaller than its worst case of " << R->Bytes
              << " bytes, from entry " << entryName(*E) << nestedText(*R)
              << "; critical chain:\n";
      printChainRows(OS, G, *R, /*Stack=*/false);
    }
    if (auto It = Img.Pools.find(Pool);
        It != Img.Pools.end() && It->second.partitions())
      checkPartitions(Pool, It->second, *E, *R);
  }

  /// A shared pool the runtime cuts into partitions, one per thread: each
  /// entry's worst case has to fit one partition, not the pool; and the
  /// threads whose entries use it, if they all hold it at once, need a
  /// partition each (a warning: whether they overlap is not known).
  void checkPartitions(const std::string &Pool, const PoolCapacity &C,
                       const EntryBound &E, const ResourceBound &R) {
    uint64_t Part = C.partitionBytes(), Count = C.partitions();
    auto Round = [](uint64_t Bytes) {
      return alignTo(Bytes, PoolCapacity::PartitionAlign);
    };
    auto Macro = [&](uint64_t N, uint64_t P) {
      return "SCOPEALLOC_DEFINE_POOL_SHARED(" + Pool + ", " +
             std::to_string(N) + " * " + std::to_string(P) + ", " +
             std::to_string(P) + ")";
    };
    std::string Cut = C.From + "'s " + std::to_string(C.Bytes) +
                      " bytes cut into " + std::to_string(Count) +
                      " partitions, one per thread";
    // A partition starts SCOPEALLOC_POOL_ALIGN-aligned, like a buffer of
    // the pool macros.
    uint64_t Need = R.Bounded ? R.Bytes - basePadding(R, Pool) : 0;
    if (R.Bounded && Need > Part) {
      error() << "pool " << Pool << " is shared: a thread gets a partition of "
              << Part << " bytes (" << Cut
              << "), smaller than its worst case of " << R.Bytes
              << " bytes, from entry " << entryName(E) << nestedText(R)
              << "; give each thread a partition of at least " << Need
              << " bytes (" << Macro(Count, Round(Need))
              << ") or use less of the pool per thread; critical chain:\n";
      printChainRows(OS, G, R, /*Stack=*/false);
    }
    PoolUsers U = poolUsers(G, B, Pool);
    if (U.threads() <= Count)
      return;
    std::string Who;
    if (!U.MainThread.empty())
      Who = "the main thread";
    for (const EntryBound *T : U.ThreadStarts)
      Who += (Who.empty() ? "" : ", ") + entryName(*T);
    WithColor::warning(OS, "scopealloc-bound")
        << Img.Path << ": pool " << Pool << " is shared: " << Cut
        << ", fewer than the " << U.threads()
        << " threads whose entries use it (" << Who
        << "); if they hold it at once, the thread that finds no partition "
           "free fails; give it at least "
        << U.threads() << " partitions ("
        << Macro(U.threads(), std::max(Part, Round(Need))) << ")\n";
  }

  raw_ostream &OS;
  const Image &Img;
  const CallGraph &G;
  const Settings &S;
  const Bounds &B;
  bool Warn;
  CheckResult Result;
};

} // namespace

CheckResult checkBounds(raw_ostream &OS, const Image &Img, const CallGraph &G,
                        const Settings &S, const Bounds &B, bool Warn) {
  return Checker(OS, Img, G, S, B, Warn).run();
}

} // namespace bound
} // namespace scopealloc
