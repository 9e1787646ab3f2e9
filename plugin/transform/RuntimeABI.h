//===- RuntimeABI.h - Calls into the ScopeAlloc runtime ---------*- C++ -*-===//
//
// The only place that knows the runtime's symbol names (see
// runtime/include/scopealloc/abi.h). An empty pool name means the
// calling thread's default workspace pool; a named pool `p` is the global
// __scopealloc_pool_p that the application defines, so a missing pool is a
// link error that names it.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_RUNTIMEABI_H
#define SCOPEALLOC_RUNTIMEABI_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/IRBuilder.h"
#include <optional>

namespace scopealloc {

/// The convention of the inline fast path's slow call on x86-64 and
/// AArch64 (-scope-alloc-slow-path): __scopealloc_frame_slow with
/// preserve_most, or __scopealloc_mark and __scopealloc_alloc.
enum class SlowPath { PreserveMost, Standard, Frameless };
llvm::StringRef spell(SlowPath P);
/// -scope-alloc-slow-path when given on the command line.
std::optional<SlowPath> explicitSlowPath();
/// The function attribute in which a compile step deferring to the LTO
/// link records an explicit -scope-alloc-slow-path (LTODeferral.h); the
/// link step, which cannot take the option, follows it.
inline constexpr const char *SlowPathAttr = "scope-alloc-slow-path";

/// How the inline fast path keeps a frame inside the arena
/// (-scope-alloc-fast-path): against the pool's bound, or, for small frames
/// on hosted Linux, by the guard region above the arena.
enum class FastPathCheck { Guarded, Checked };
llvm::StringRef spell(FastPathCheck C);
std::optional<FastPathCheck> explicitFastPathCheck();
/// The function attribute that carries an explicit -scope-alloc-fast-path
/// to the LTO link, as SlowPathAttr does.
inline constexpr const char *FastPathAttr = "scope-alloc-fast-path";

class RuntimeABI {
public:
  explicit RuntimeABI(llvm::Module &M) : M(M) {}

  /// The runtime's size_t.
  llvm::IntegerType *sizeType() const;

  llvm::CallInst *mark(llvm::IRBuilder<> &B, llvm::StringRef Pool);
  llvm::CallInst *alloc(llvm::IRBuilder<> &B, llvm::StringRef Pool,
                        llvm::Value *Bytes, llvm::Align Alignment);
  llvm::CallInst *release(llvm::IRBuilder<> &B, llvm::StringRef Pool,
                          llvm::Value *Mark);
  /// Tells the runtime where an ASan build's demoted frame lives and what
  /// is in it (\p Desc: SanitizerSupport's frame description), so reports
  /// can name the variable.
  llvm::CallInst *noteFrame(llvm::IRBuilder<> &B, llvm::Value *Frame,
                            llvm::Value *Desc);

  /// The default pool's frame bump emitted inline (see inlineFrame).
  struct InlineFrame {
    llvm::Value *Pool;  ///< the thread's scopealloc_pool
    llvm::Value *Mark;  ///< its `cur` before the frame
    llvm::Value *Frame; ///< the frame's first byte
  };

  /// Whether \p F may bump the default pool inline: the target has threads
  /// with TLS (an OS in the triple), and no sanitizer needs to see every
  /// allocation and release (ASan poisoning lives in the runtime calls).
  static bool canInlineDefaultPool(const llvm::Function &F);

  /// Emits, before \p Before in the entry block, the bump of one frame of
  /// \p Size bytes from the calling thread's default pool: load cur and
  /// the bound (the high-water mark, or NULL while the runtime counts every
  /// frame) of __scopealloc_tls_pool, align when the frame needs more than
  /// the pool's 16-byte granule, check that the frame (its size rounded to
  /// the granule) stays under the bound and store the new cur (and count the
  /// frame, with -scope-alloc-count-inline-frames); the cold branch (no
  /// arena yet, a new peak, exact counts, growth, exhaustion) calls
  /// __scopealloc_frame_slow (or __scopealloc_mark and __scopealloc_alloc
  /// on other architectures and with the standard SlowPath). Splits the entry
  /// block; \p Before starts the joined block. The pool's declaration, when the
  /// module has none yet, is initial-exec (-scope-alloc-tls-model).
  ///
  /// A guarded frame (FastPathCheck::Guarded: Linux on x86-64 or AArch64,
  /// alignment at most the granule, at most SCOPEALLOC_GUARDED_FRAME_MAX bytes)
  /// skips the comparison: the bound is only tested for NULL (no arena yet,
  /// exact counts), and a store of a marker byte just above the frame, before
  /// the new cur is published, lands in the guard region when the frame would
  /// overrun the arena (the runtime's fault handler reports it) and records
  /// the frame's top for the runtime's peak.
  static bool isGuardedFrame(const llvm::Function &F, uint64_t Size,
                             llvm::Align Alignment);
  InlineFrame inlineFrame(llvm::Instruction *Before, uint64_t Size,
                          llvm::Align Alignment);
  /// The inline release: a store of \p Mark to the pool's cur.
  llvm::StoreInst *inlineRelease(llvm::IRBuilder<> &B,
                                 const InlineFrame &Frame);

  /// Whether \p CI calls the runtime to allocate from or release the
  /// default pool. For calls the module had before the pass (a code
  /// generator's); demotion says which calls it made (AllocaDemotion.h).
  bool changesDefaultPool(const llvm::CallInst &CI) const;
  bool isRelease(const llvm::CallInst &CI) const;

  /// References the runtime's __scopealloc_abi_v<N> once per module (every
  /// emitted runtime use calls it), so a mismatched runtime fails to link.
  void referenceABIVersion();

  /// Checks, once per module before anything is rewritten, that what the
  /// module already has under the runtime's names agrees with the runtime:
  /// the type %scopealloc.pool, the global __scopealloc_tls_pool, named pool
  /// globals __scopealloc_pool_<name> and the runtime functions. Reports an
  /// error naming each conflict and what was expected; false when there was
  /// one (the caller then leaves the module unchanged, since reusing such a
  /// symbol would make invalid IR or call the wrong thing).
  bool checkModule();

  /// The type the runtime function \p Name has, or null when \p Name is
  /// not a runtime function.
  llvm::FunctionType *runtimeFunctionType(llvm::StringRef Name) const;

private:
  llvm::FunctionCallee function(llvm::StringRef Name, llvm::Type *Ret,
                                llvm::ArrayRef<llvm::Type *> Params);
  llvm::GlobalVariable *poolGlobal(llvm::StringRef Pool);
  llvm::StructType *poolType();
  /// The fields of struct scopealloc_pool, in order.
  llvm::SmallVector<llvm::Type *, 12> poolFields() const;
  /// Whether a global of type \p Ty can be a scopealloc_pool.
  bool isPoolType(llvm::Type *Ty) const;

  llvm::Module &M;
};

} // namespace scopealloc

#endif
