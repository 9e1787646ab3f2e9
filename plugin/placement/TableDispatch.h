//===- TableDispatch.h - Functions called only through own tables -*- C++
//-*-===//
//
// A function whose address is taken may be called by code the call graph
// does not see (a library handed the pointer, a signal): the static frame
// plan treats it as an entry of unknown concurrency. Most address-taken
// functions of C programs are not: they sit in a constant dispatch table of
// the program (zlib's configuration_table of deflate_fast and friends),
// and every use of the table loads a pointer only to call it, with the
// function's own type, which the call graph resolves (by type) and sees.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_TABLEDISPATCH_H
#define SCOPEALLOC_TABLEDISPATCH_H

namespace llvm {
class Function;
} // namespace llvm

namespace scopealloc {

/// Whether every use of \p F's address is in the initializer of an
/// internal constant global whose every use loads a whole pointer that is
/// only called, with \p F's type (or compared), or an integer narrower than
/// a pointer from bytes that hold no address (the table's other fields):
/// nothing outside the program's own indirect calls can reach \p F. A
/// narrower load that may read an address's bytes (at a constant offset or
/// at any step of a variable index), a memcpy of the table, the table
/// handed to a call: code the graph does not see may get the address.
bool calledOnlyThroughOwnTables(const llvm::Function &F);

} // namespace scopealloc

#endif
