//===- Suggest.cpp - Per-function limits that make stack bounds hold ------===//
#include "Suggest.h"
#include "Check.h"
#include "FactsFormat.h"
#include "LLVMCompat.h"
#include "PolicyFile.h"
#include "SymbolNames.h"
#include "TargetStack.h"
#include "scopealloc/abi_constants.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <set>

using namespace llvm;

namespace scopealloc {
namespace bound {

//===----------------------------------------------------------------------===//
// Writing a policy file
//===----------------------------------------------------------------------===//

/// A YAML scalar: plain when it is a C-like name or a number, else quoted.
static std::string scalar(StringRef S) {
  bool Plain = !S.empty() && all_of(S, [](char C) {
    return isAlnum(C) || C == '_' || C == '.' || C == '$';
  });
  if (Plain && !S.starts_with(".") && S != "null" && S != "true" &&
      S != "false" && S != "yes" && S != "no" && S != "on" && S != "off")
    return S.str();
  std::string Q = "'";
  for (char C : S) {
    if (C == '\'')
      Q += '\'';
    Q += C;
  }
  return Q + "'";
}

static std::string fieldsFlow(const PolicyFields &F) {
  std::vector<std::string> Items;
  if (F.MaxStackAlloca)
    Items.push_back("max-stack-alloca: " + std::to_string(*F.MaxStackAlloca));
  if (F.FrameBudget)
    Items.push_back("frame-budget: " + std::to_string(*F.FrameBudget));
  if (F.Dynamic)
    Items.push_back("dynamic: " + spell(*F.Dynamic).str());
  if (F.Pool)
    Items.push_back("pool: " + scalar(*F.Pool));
  if (F.StackScopeOverBudget)
    Items.push_back(
        std::string("stack-scope-over-budget: ") +
        (*F.StackScopeOverBudget == ConflictRule::Warn ? "warn" : "error"));
  return "{ " + join(Items, ", ") + " }";
}

static void
writeCounts(raw_ostream &OS, StringRef Key,
            const std::vector<std::pair<std::string, uint64_t>> &V) {
  if (V.empty())
    return;
  OS << "    " << Key << ":\n";
  for (const auto &[Name, N] : V)
    OS << "      " << scalar(Name) << ": " << N << '\n';
}

std::string
writePolicy(const PolicyFile &File, const PolicyTarget *Target,
            const std::vector<std::pair<std::string, PolicyFields>> &Functions,
            const std::map<std::string, std::string> &Comments,
            StringRef Header) {
  std::string Text;
  raw_string_ostream OS(Text);
  SmallVector<StringRef, 8> Lines;
  Header.split(Lines, '\n');
  for (StringRef L : Lines)
    OS << "# " << L << '\n';
  OS << "version: 1\n";
  if (!File.Pools.empty()) {
    OS << "pools: [";
    ListSeparator LS;
    for (const std::string &P : File.Pools)
      OS << LS << scalar(P);
    OS << "]\n";
  }
  OS << "targets:";
  if (File.Targets.empty())
    OS << " {}";
  OS << '\n';
  for (const PolicyTarget &T : File.Targets) {
    OS << "  " << scalar(T.Name) << ":\n";
    if (!T.TriplePatterns.empty()) {
      OS << "    triples: [";
      ListSeparator LS;
      for (const std::string &P : T.TriplePatterns)
        OS << LS << "'" << P << "'";
      OS << "]\n";
    }
    const PolicyFields &F = T.Fields;
    if (F.MaxStackAlloca)
      OS << "    max-stack-alloca: " << *F.MaxStackAlloca << '\n';
    if (F.FrameBudget)
      OS << "    frame-budget: " << *F.FrameBudget << '\n';
    if (F.Dynamic)
      OS << "    dynamic: " << spell(*F.Dynamic) << '\n';
    if (F.Pool)
      OS << "    pool: " << scalar(*F.Pool) << '\n';
    if (F.StackScopeOverBudget)
      OS << "    stack-scope-over-budget: "
         << (*F.StackScopeOverBudget == ConflictRule::Warn ? "warn" : "error")
         << '\n';
    if (T.Bounds.StackBound)
      OS << "    stack-bound: " << *T.Bounds.StackBound << '\n';
    writeCounts(OS, "entries", T.Bounds.Entries);
    writeCounts(OS, "pool-sizes", T.Bounds.PoolSizes);
    writeCounts(OS, "recursion", T.Bounds.Recursion);
    const auto &Fns = &T == Target ? Functions : T.Functions;
    if (Fns.empty())
      continue;
    OS << "    functions:\n";
    for (const auto &[Name, Fields] : Fns) {
      OS << "      " << scalar(Name) << ": " << fieldsFlow(Fields);
      if (auto It = Comments.find(Name); &T == Target && It != Comments.end())
        OS << "  # " << It->second;
      OS << '\n';
    }
  }
  return Text;
}

//===----------------------------------------------------------------------===//
// Choosing the functions
//===----------------------------------------------------------------------===//

namespace {

class Suggester {
public:
  Suggester(raw_ostream &OS, const Image &Img, const CallGraph &G,
            const Settings &S)
      : OS(OS), Img(Img), S(S), W(G) {}

  bool run(StringRef Out) {
    unsigned N = W.Nodes.size();
    Kept.assign(N, 0);
    Movable.assign(N, 0);
    Taken.assign(N, 0);
    Sizes.assign(N, {});
    Next.assign(N, 0);
    for (unsigned I = 0; I < N; ++I) {
      const FunctionFacts *R = W.Nodes[I].Facts;
      if (!R || (R->Flags & facts::FlagFactsOnly))
        continue;
      for (const FunctionFacts::StackAlloca &A : R->StackAllocas) {
        Kept[I] += A.Bytes;
        if (!(A.Flags & facts::StackAllocaPinned))
          Sizes[I].push_back(A.Bytes);
      }
      llvm::sort(Sizes[I], std::greater<uint64_t>());
      for (uint64_t B : Sizes[I])
        Movable[I] += B;
    }
    for (unsigned I = 0; I < N; ++I)
      ByName.try_emplace(W.Nodes[I].Name, I);
    bool OK = fit();
    return write(Out) && OK;
  }

private:
  /// The pool a function's demoted buffers go to.
  std::string poolOf(const std::string &Function) const {
    const PolicyTarget *T = S.SuggestTarget;
    if (const PolicyFields *F = T->functionFields(Function); F && F->Pool)
      return *F->Pool;
    return T->Fields.Pool.value_or("workspace");
  }

  /// What demoting \p Bytes more of function \p I does, as far as the
  /// image tells: its frame shrinks by as much, it takes as much more from
  /// its pool, and it calls the runtime's entry points for that pool.
  void demote(unsigned I, uint64_t Bytes) {
    Node &Nd = W.Nodes[I];
    Taken[I] += Bytes;
    if (Nd.Frame)
      Nd.Frame = *Nd.Frame - std::min(*Nd.Frame, Bytes);
    std::string Pool = poolOf(Nd.Name);
    Nd.PoolBytes[Pool] += alignTo(Bytes, 8);
    if (!is_contained(W.Pools, Pool)) {
      W.Pools.push_back(Pool);
      llvm::sort(W.Pools);
    }
    bool Default = Pool == "workspace";
    // runtimeNode may add nodes (Nd dangles): W.Nodes[I] from here on.
    for (const char *Fn :
         {Default ? SCOPEALLOC_SYM_MARK : SCOPEALLOC_SYM_POOL_MARK,
          Default ? SCOPEALLOC_SYM_ALLOC : SCOPEALLOC_SYM_POOL_ALLOC,
          Default ? SCOPEALLOC_SYM_RELEASE : SCOPEALLOC_SYM_POOL_RELEASE})
      if (std::optional<unsigned> R = runtimeNode(Fn);
          R && !is_contained(W.Nodes[I].Callees, *R))
        W.Nodes[I].Callees.push_back(*R);
  }

  /// The node of runtime function \p Fn. One that the image does not hold
  /// gets a node with the runtime's stack: its slow path then runs below the
  /// moved buffer's function, and an estimate without it would promise
  /// bounds the rebuild misses. A hosted image (the shared runtime, or a
  /// static one with the C library) counts the assumed stack of the hosted
  /// runtime (16 KiB: it reports exhaustion through stdio), a bare-metal
  /// one the freestanding runtime's measured stack.
  std::optional<unsigned> runtimeNode(StringRef Fn) {
    if (auto It = ByName.find(Fn.str()); It != ByName.end())
      return It->second;
    Node N;
    N.Name = Fn.str();
    if (Img.Hosted) {
      auto A = S.Assumed.find(Fn);
      if (A == S.Assumed.end()) {
        Unaccounted.insert(Fn.str());
        return std::nullopt;
      }
      N.Assumed = A->second;
      N.AssumedFrom = S.AssumedFrom.lookup(Fn);
    } else {
      N.Assumed =
          targetStack(archOfELFMachine(Img.EMachine, Img.AddressSize == 8),
                      Img.AddressSize)
              .FreestandingRuntime;
      N.AssumedFrom = "the freestanding runtime's stack";
    }
    W.Nodes.push_back(std::move(N));
    for (auto *V : {&Kept, &Movable, &Taken})
      V->push_back(0);
    Sizes.emplace_back();
    Next.push_back(0);
    unsigned I = W.Nodes.size() - 1;
    ByName[Fn.str()] = I;
    Assumed[Fn.str()] = *W.Nodes[I].Assumed;
    return I;
  }

  /// Lowers frames until every declared stack bound holds by the estimate.
  bool fit() {
    bool OK = true;
    std::set<unsigned> GivenUp;
    Bounds Before = computeBounds(W, S);
    for (const EntryBound &E : Before.Entries) {
      const Limit *L = stackLimit(S, W.Nodes[E.Entry.Node].Name);
      if (L && E.Stack.Bounded && E.Stack.Bytes > L->Bytes)
        Fitted.push_back(E.Entry.Node);
      if (L && !E.Stack.Bounded) {
        WithColor::error(OS, "scopealloc-bound")
            << Img.Path << ": entry " << readableSymbol(W.Nodes[E.Entry.Node].Name)
            << " has no stack bound to fit under " << L->Bytes << " bytes ("
            << L->From << "): frame budgets cannot help; scopealloc-bound "
            << "without --suggest-policy names the causes\n";
        OK = false;
      }
    }
    for (;;) {
      Bounds B = computeBounds(W, S);
      const EntryBound *Over = nullptr;
      const Limit *L = nullptr;
      for (const EntryBound &E : B.Entries) {
        L = stackLimit(S, W.Nodes[E.Entry.Node].Name);
        if (L && E.Stack.Bounded && E.Stack.Bytes > L->Bytes &&
            !GivenUp.count(E.Entry.Node)) {
          Over = &E;
          break;
        }
      }
      if (!Over)
        break;
      unsigned Entry = Over->Entry.Node;
      int Best = -1;
      for (const ChainStep &St : Over->Stack.Chain) {
        if (St.Node == ChainStep::ExceptionFrame ||
            Movable[St.Node] <= Taken[St.Node])
          continue;
        if (Best < 0 ||
            Movable[St.Node] - Taken[St.Node] > Movable[Best] - Taken[Best])
          Best = St.Node;
      }
      if (Best < 0) {
        WithColor::error(OS, "scopealloc-bound")
            << Img.Path << ": cannot make entry "
            << readableSymbol(W.Nodes[Entry].Name) << " fit its bound of " << L->Bytes
            << " bytes (" << L->From << "): " << Over->Stack.Bytes
            << " bytes by the estimate, and no function on its critical "
               "chain keeps allocations that a frame budget can move (code "
               "compiled with -scope-alloc-facts-only is not rewritten; "
               "stack scopes pin their buffers)\n";
        GivenUp.insert(Entry);
        OK = false;
        continue;
      }
      // Whole allocations, the largest first: the budget then falls on a
      // boundary between them, and whichever the pass moves (it ranks them
      // by accesses per byte) add up to at least as much.
      uint64_t Excess = Over->Stack.Bytes - L->Bytes, Take = 0;
      while (Take < Excess && Next[Best] < Sizes[Best].size())
        Take += Sizes[Best][Next[Best]++];
      demote(Best, Take);
    }
    After = computeBounds(W, S);
    for (unsigned Entry : Fitted) {
      auto Find = [&](const Bounds &B) -> const EntryBound * {
        for (const EntryBound &E : B.Entries)
          if (E.Entry.Node == Entry)
            return &E;
        return nullptr;
      };
      const EntryBound *E0 = Find(Before), *E1 = Find(After);
      const Limit *L = stackLimit(S, W.Nodes[Entry].Name);
      OS << "entry " << readableSymbol(W.Nodes[Entry].Name) << " (" << E0->Entry.Kind
         << "): " << E0->Stack.Bytes << " bytes of stack, over its bound of "
         << L->Bytes << " bytes (" << L->From
         << "); estimated after a rebuild: " << E1->Stack.Bytes << " bytes\n";
      for (const ChainStep &St : E0->Stack.Chain)
        if (St.Node != ChainStep::ExceptionFrame && Taken[St.Node] &&
            !Origin.count(St.Node))
          Origin[St.Node] = Entry;
    }
    // What the estimate assumed of the runtime, or could not count.
    for (const auto &[Fn, Bytes] : Assumed)
      OS << "  counted " << Fn << " (not in the image: the runtime's slow "
         << "path, " << Bytes << " bytes) below each function that now "
         << "takes pool memory\n";
    for (const std::string &Fn : Unaccounted)
      WithColor::warning(OS, "scopealloc-bound")
          << Img.Path << ": " << Fn << " is not in the image and has no "
          << "assumed stack (--assume=" << Fn << "=<bytes>): the estimate "
          << "leaves out the runtime's slow path below the moved buffers\n";
    return OK;
  }

  bool write(StringRef Out) {
    const PolicyTarget *T = S.SuggestTarget;
    std::vector<std::pair<std::string, PolicyFields>> Functions = T->Functions;
    std::map<std::string, std::string> Comments;
    for (unsigned I = 0; I < W.Nodes.size(); ++I) {
      if (!Taken[I])
        continue;
      const std::string &Name = W.Nodes[I].Name;
      auto It =
          find_if(Functions, [&](const auto &P) { return P.first == Name; });
      if (It == Functions.end()) {
        Functions.push_back({Name, {}});
        It = Functions.end() - 1;
      }
      uint64_t Budget = Kept[I] - Taken[I];
      It->second.FrameBudget = Budget;
      std::string For;
      if (auto O = Origin.find(I); O != Origin.end())
        For = " for entry " + readableSymbol(W.Nodes[O->second].Name);
      Comments[Name] = "suggested" + For + ": keeps " + std::to_string(Budget) +
                       " of " + std::to_string(Kept[I]) + " bytes on the stack";
      OS << "  " << readableSymbol(Name) << ": frame-budget " << Budget << " (keeps "
         << Budget << " of its " << Kept[I] << " bytes of allocations on the "
         << "stack"
         << (W.Nodes[I].where().empty() ? std::string()
                                        : "; " + W.Nodes[I].where())
         << ")\n";
    }
    std::string Header =
        "Written by scopealloc-bound --suggest-policy from " + S.Policy->Path +
        " for " + Img.Path +
        ":\nper-function frame budgets ('functions' of target '" + T->Name +
        "') that make the\ndeclared stack bounds hold by its estimate. "
        "Rebuild with this file; the link\nchecks the bounds (scopealloc-bound "
        "--check).";
    std::string Text = writePolicy(*S.Policy, T, Functions, Comments, Header);
    std::error_code EC;
    raw_fd_ostream File(Out, EC, sys::fs::OF_Text);
    if (EC) {
      WithColor::error(OS, "scopealloc-bound")
          << "cannot write '" << Out << "': " << EC.message() << '\n';
      return false;
    }
    File << Text;
    OS << "wrote " << Out << " (target '" << T->Name << "'"
       << (Comments.empty() ? ", no function changed" : "") << ")\n";
    return true;
  }

  raw_ostream &OS;
  const Image &Img;
  const Settings &S;
  CallGraph W; ///< G as the suggestions would change it
  Bounds After;
  std::vector<uint64_t> Kept, Movable, Taken;
  /// Each function's movable allocations, largest first, and how many of
  /// them the suggestions take.
  std::vector<std::vector<uint64_t>> Sizes;
  std::vector<size_t> Next;
  std::map<std::string, unsigned> ByName;
  std::vector<unsigned> Fitted;        ///< entries that were over
  std::map<unsigned, unsigned> Origin; ///< function -> entry it helps
  /// Runtime functions outside the image: counted with their assumed
  /// stack, or (no assumption) left out.
  std::map<std::string, uint64_t> Assumed;
  std::set<std::string> Unaccounted;
};

} // namespace

bool suggestPolicy(raw_ostream &OS, StringRef Out, const Image &Img,
                   const CallGraph &G, const Settings &S) {
  return Suggester(OS, Img, G, S).run(Out);
}

} // namespace bound
} // namespace scopealloc
