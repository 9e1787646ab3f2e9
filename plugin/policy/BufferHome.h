//===- BufferHome.h - A buffer keeps its function's settings ----*- C++ -*-===//
//
// A buffer keeps the per-buffer settings (max-stack-alloca, dynamic, pool)
// of the function it was written in, wherever the optimiser moves it: the
// compile step's inliner runs before scope-alloc, and so may partial
// inlining, function specialisation or any pass that clones an alloca into
// another function. At the start of the pipeline, when some function of the
// module has settings of its own (a policy file's 'functions' entry, or
// function attributes: SCOPEALLOC_FUNCTION_POOL, ...), every alloca is
// marked with its home function:
//
//   %buf = alloca [2048 x i8], !scope-alloc.home !{!"fill",
//                  !"scope-alloc-pool", !"sram"}
//
// (its name and its policy attributes, which survive the function). Where
// scope-alloc finds an alloca whose home is not the function it is in, the
// home's policy decides that buffer: it becomes the buffer's
// !scope-alloc.buffer-policy (LTODeferral.h), which the placement reads and
// an LTO link keeps. The frame budget stays the enclosing function's.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_BUFFERHOME_H
#define SCOPEALLOC_BUFFERHOME_H

#include "policy/StackPolicy.h"

#include <optional>

namespace llvm {
class AllocaInst;
class Function;
class Module;
} // namespace llvm

namespace scopealloc {

inline constexpr const char *HomeMetadata = "scope-alloc.home";

/// Marks every alloca of \p M with its home function when some function of
/// \p M has settings of its own; true when it changed \p M. Allocas that
/// already have a home keep it.
bool recordBufferHomes(llvm::Module &M);

/// Marks \p New, an alloca a pass made after the homes were recorded, with
/// the home of its function's own allocas (when they have one).
void inheritHome(llvm::AllocaInst &New);

/// The policy of \p AI's home function when that is not the function \p AI
/// is in, on top of \p MP; std::nullopt otherwise, or after an error
/// (reported at \p AI).
std::optional<StackPolicy> homePolicy(const ModulePolicy &MP,
                                      const llvm::AllocaInst &AI);

/// Gives each alloca of \p F that came from another function its home's
/// per-buffer settings (!scope-alloc.buffer-policy), unless it has some;
/// true when it changed \p F.
bool applyBufferHomes(llvm::Function &F, const ModulePolicy &MP);

} // namespace scopealloc

#endif
