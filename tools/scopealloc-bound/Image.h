//===- Image.h - Reading a program image from an ELF file ------*- C++ -*-===//
//
// Loads a linked executable or firmware image (or, for --dump-facts, a
// relocatable object) into the program image the call graph is built from
// (analysis/ProgramImage.h): .scopealloc_facts, .stack_sizes, the symbol
// table, the data that holds function addresses and the vector table.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_BOUND_IMAGE_H
#define SCOPEALLOC_BOUND_IMAGE_H

#include "ProgramImage.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

namespace scopealloc {
namespace bound {

/// Reads the file at \p Path. A section that cannot be read (an offset,
/// size, index or count past what the file holds) is an error naming it;
/// a malformed record of .scopealloc_facts is one of Image::Problems.
llvm::Expected<Image> loadImage(llvm::StringRef Path);
/// The same from memory; Image::Path is the buffer's identifier.
llvm::Expected<Image> readImage(llvm::MemoryBufferRef Buffer);

} // namespace bound
} // namespace scopealloc

#endif
