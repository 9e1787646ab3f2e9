//===- FuzzBound.cpp - libFuzzer target for scopealloc-bound --------------===//
//
// Whatever the bytes, reading them as an image and bounding it ends in an
// error or in a result: never a crash, an abort or LLVM's fatal error
// handler. Runs what the tool runs (readImage is loadImage's reader), with
// every output written to a null stream.
//
//===----------------------------------------------------------------------===//
#include "BoundSettings.h"
#include "Bounds.h"
#include "CallGraph.h"
#include "Check.h"
#include "Image.h"
#include "Output.h"
#include "Tasks.h"

#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>

using namespace llvm;
using namespace scopealloc::bound;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  MemoryBufferRef Buffer(StringRef(reinterpret_cast<const char *>(Data), Size),
                         "input");
  Expected<Image> Img = readImage(Buffer);
  if (!Img) {
    consumeError(Img.takeError());
    return 0;
  }
  raw_null_ostream Null;
  dumpFacts(Null, *Img);
  if (Img->Relocatable)
    return 0;
  Settings S;
  addBuiltinAssumptions(S);
  setMachineDefaults(*Img, S);
  addCreatedTasks(*Img, S);
  CallGraph G = analyzeImage(*Img, S);
  Bounds B = computeBounds(G, S);
  printText(Null, *Img, G, S, B);
  printJSON(Null, *Img, G, S, B);
  printSVG(Null, *Img, G, B);
  checkBounds(Null, *Img, G, S, B, /*WarnOnly=*/false);
  return 0;
}
