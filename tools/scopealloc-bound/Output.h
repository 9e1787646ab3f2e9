//===- Output.h - scopealloc-bound's text, JSON and chart -------*- C++ -*-===//
//
// Text for people, JSON for scripts (schema in docs/facts-format.md), an SVG
// chart of each entry's critical stack chain, and --dump-facts (the records
// as read).
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_BOUND_OUTPUT_H
#define SCOPEALLOC_BOUND_OUTPUT_H

#include "BoundSettings.h"
#include "Bounds.h"
#include "CallGraph.h"
#include "Image.h"

namespace llvm {
class raw_ostream;
}

namespace scopealloc {
namespace bound {

void printText(llvm::raw_ostream &OS, const Image &Img, const CallGraph &G,
               const Settings &S, const Bounds &B);
void printJSON(llvm::raw_ostream &OS, const Image &Img, const CallGraph &G,
               const Settings &S, const Bounds &B);
/// Flame-style: per entry, the critical stack chain as a tower of frames,
/// the entry at the bottom, each bar as wide as the stack from that frame
/// down.
void printSVG(llvm::raw_ostream &OS, const Image &Img, const CallGraph &G,
              const Bounds &B);
void dumpFacts(llvm::raw_ostream &OS, const Image &Img);
/// The rows of a chain as the text output prints them (a header line, one
/// line per step), for --check's messages.
void printChainRows(llvm::raw_ostream &OS, const CallGraph &G,
                    const ResourceBound &R, bool Stack);

} // namespace bound
} // namespace scopealloc

#endif
