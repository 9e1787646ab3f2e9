//===- PolicyUse.cpp - Policy entries that match nothing ------------------===//
#include "PolicyUse.h"
#include "FactsFormat.h"
#include "PolicyFile.h"
#include "PolicyValues.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace llvm;

namespace scopealloc {
namespace bound {

unsigned warnUnmatchedPolicyEntries(raw_ostream &OS, const Image &Img,
                                    const Settings &S) {
  if (!S.Policy)
    return 0;
  const PolicyFile &File = *S.Policy;
  unsigned Warnings = 0;
  auto Warn = [&](unsigned Line) -> raw_ostream & {
    ++Warnings;
    return WithColor::warning(OS, "scopealloc-bound")
           << File.Path << (Line ? ":" + std::to_string(Line) : "") << ": ";
  };
  if (const PolicyTarget *T = S.SuggestTarget) {
    std::vector<StringRef> Names;
    for (const auto &Entry : Img.AllFunctions)
      Names.push_back(Entry.getKey());
    for (size_t I = 0, E = T->Functions.size(); I != E; ++I) {
      const auto &Entry = T->Functions[I];
      if (!Img.AllFunctions.count(Entry.first))
        Warn(I < T->FunctionLines.size() ? T->FunctionLines[I] : 0)
            << "'functions' entry '" << Entry.first << "' of target '"
            << T->Name << "' matches no function of " << Img.Path
            << didYouMean(Entry.first, Names) << "\n";
    }
  }
  std::set<std::string> Used{"workspace"}; // records name it ""
  for (const FunctionFacts &R : Img.Records) {
    for (const FunctionFacts::Pool &P : R.Pools)
      Used.insert(P.Name);
    for (const FunctionFacts::Dynamic &D : R.Dynamics)
      if (D.Place == facts::PlacePool)
        Used.insert(D.Pool);
  }
  for (const auto &Entry : Img.Pools)
    Used.insert(Entry.first);
  for (size_t I = 0, E = File.Pools.size(); I != E; ++I)
    if (!Used.count(File.Pools[I]))
      Warn(I < File.PoolLines.size() ? File.PoolLines[I] : 0)
          << "pool '" << File.Pools[I]
          << "' of 'pools' is used by no function of " << Img.Path
          << " and not defined in it\n";
  return Warnings;
}

} // namespace bound
} // namespace scopealloc
