//===- OptionCategory.h - The category of ScopeAlloc's options --*- C++ -*-===//
//
// Every -scope-alloc-* option of the plugin belongs to one category, so that
// `opt -load-pass-plugin ScopeAlloc.so --help` lists them together.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_OPTIONCATEGORY_H
#define SCOPEALLOC_OPTIONCATEGORY_H

namespace llvm {
namespace cl {
class OptionCategory;
} // namespace cl
} // namespace llvm

namespace scopealloc {

llvm::cl::OptionCategory &optionCategory();

} // namespace scopealloc

#endif
