/* ScopeAlloc compiler ABI: the pool struct and the __scopealloc_* entry
 * points that code rewritten by the ScopeAlloc pass calls. Applications use
 * <scopealloc/scopealloc.h> (which includes this header) instead.
 *
 * Memory model: every pool is a LIFO bump arena. A frame takes a *mark*
 * (the current top), allocates, and on every way out releases back to its
 * mark. Releasing to an older mark also frees everything allocated after it,
 * which is what makes exceptions and longjmp recoverable: the frame that
 * resumes only has to restore its own mark.
 *
 * Allocation: `align` is a power of two (0 means 1); every allocation starts
 * at least 8-aligned (the ASan shadow granule), and in the default pool at
 * least 16-aligned (SCOPEALLOC_DEFAULT_POOL_GRANULE: its top is always a
 * multiple of 16); size 0 yields the aligned top.
 * A request that does not fit, even one whose size would wrap the address
 * space, goes to the exhaustion handler, which must not return (the runtime
 * aborts if it does): an allocation that returns has succeeded.
 */
#ifndef SCOPEALLOC_ABI_H
#define SCOPEALLOC_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "abi_constants.h"

#ifdef __cplusplus
#define SCOPEALLOC_EXTERN_C extern "C"
extern "C" {
#else
#define SCOPEALLOC_EXTERN_C
#endif

/* ---- Declaration attributes ----
 *
 * What the declarations promise, for the optimiser and for _FORTIFY_SOURCE
 * style object-size checks; empty where the compiler does not know them.
 *  SCOPEALLOC_NOTHROW          never throws (noexcept in C++). The runtime's
 *                              functions raise no exception themselves, and
 *                              an exhaustion handler must not throw.
 *  SCOPEALLOC_ALLOC_SIZE(n)    the result points to argument n bytes.
 *  SCOPEALLOC_ALLOC_ALIGN(n)   ... aligned to argument n (powers of two;
 *                              clang warns on a constant 0 or 12: pass 1).
 *  SCOPEALLOC_RETURNS_NONNULL  never NULL: failures go to the exhaustion
 *                              handler, a handler that returns aborts, and
 *                              no pool starts at address 0 (the pass marks
 *                              its calls nonnull too).
 *  SCOPEALLOC_NORETURN         never returns.
 * Code that tests what these promise (the runtime's own tests) defines
 * SCOPEALLOC_NO_RESULT_ATTRIBUTES before including the header, so that the
 * compiler does not fold its checks of alignment and NULL away; it drops
 * alloc_size, alloc_align and returns_nonnull.
 * No `malloc` attribute: arena memory is released LIFO by mark, a size-0
 * allocation shares its address with the next one, and the inline fast path
 * hands out the same bytes without a call, so "no other pointer aliases the
 * result" would not hold. */
#if defined(__has_attribute)
#define SCOPEALLOC_HAS_ATTRIBUTE(X) __has_attribute(X)
#else
#define SCOPEALLOC_HAS_ATTRIBUTE(X) 0
#endif

#if defined(__cplusplus) && __cplusplus >= 201103L
#define SCOPEALLOC_NOTHROW noexcept
#elif defined(__cplusplus)
#define SCOPEALLOC_NOTHROW throw()
#elif SCOPEALLOC_HAS_ATTRIBUTE(__nothrow__)
#define SCOPEALLOC_NOTHROW __attribute__((__nothrow__))
#else
#define SCOPEALLOC_NOTHROW
#endif

#if SCOPEALLOC_HAS_ATTRIBUTE(__alloc_size__) &&                                \
    !defined(SCOPEALLOC_NO_RESULT_ATTRIBUTES)
#define SCOPEALLOC_ALLOC_SIZE(N) __attribute__((__alloc_size__(N)))
#else
#define SCOPEALLOC_ALLOC_SIZE(N)
#endif

#if SCOPEALLOC_HAS_ATTRIBUTE(__alloc_align__) &&                               \
    !defined(SCOPEALLOC_NO_RESULT_ATTRIBUTES)
#define SCOPEALLOC_ALLOC_ALIGN(N) __attribute__((__alloc_align__(N)))
#else
#define SCOPEALLOC_ALLOC_ALIGN(N)
#endif

#if SCOPEALLOC_HAS_ATTRIBUTE(__returns_nonnull__) &&                           \
    !defined(SCOPEALLOC_NO_RESULT_ATTRIBUTES)
#define SCOPEALLOC_RETURNS_NONNULL __attribute__((__returns_nonnull__))
#else
#define SCOPEALLOC_RETURNS_NONNULL
#endif

#if SCOPEALLOC_HAS_ATTRIBUTE(__noreturn__)
#define SCOPEALLOC_NORETURN __attribute__((__noreturn__))
#else
#define SCOPEALLOC_NORETURN
#endif

/* SCOPEALLOC_ABI_VERSION: see abi_constants.h. */

/* One LIFO arena. `cur` and `bound` are ABI: the compiler's inline fast
 * path bumps `cur` while the frame's end stays at or under `bound`, and
 * sends every other frame to the runtime (__scopealloc_frame_slow). */
typedef struct scopealloc_pool {
  char *cur;         /* next free byte (NULL: the thread has no arena yet) */
  char *limit;       /* end of usable memory; the slow path may raise it */
  char *high;        /* highest `cur` seen: peak use is high - base */
  char *base;        /* first byte of the arena */
  char *bound;       /* the inline fast path's: `high`, or NULL (see below) */
  char *reserve_end; /* how far `limit` may grow (== limit for fixed pools) */
  const char *name;
  char *unrounded;   /* runtime-private (the default pool's granule; a
                        shared named pool's partition size) */
  uint64_t allocs;   /* successful allocations (see scopealloc_set_exact_stats) */
  uint64_t failures; /* requests that could not be served */
  const void *owner; /* thread using a non-empty named pool (0 = none; the
                        pool itself: shared, one partition per thread) */
  struct scopealloc_pool *next_thread_pool; /* runtime-private (a list; a
                                               shared pool's partitions) */
} scopealloc_pool;

/* The compiler addresses the pool by the field indices of abi_constants.h,
 * over an LLVM struct of 8 pointers, 2 x i64 and 2 pointers: the same
 * offsets on LP64 and ILP32 (an even number of pointers before the i64s, so
 * that no ILP32 target pads them). */
#ifdef __cplusplus
#define SCOPEALLOC_STATIC_ASSERT(C, M) static_assert(C, M)
#else
#define SCOPEALLOC_STATIC_ASSERT(C, M) _Static_assert(C, M)
#endif
SCOPEALLOC_STATIC_ASSERT(offsetof(scopealloc_pool, cur) ==
                             SCOPEALLOC_POOL_FIELD_CUR * sizeof(void *),
                         "scopealloc_pool.cur");
SCOPEALLOC_STATIC_ASSERT(offsetof(scopealloc_pool, limit) ==
                             SCOPEALLOC_POOL_FIELD_LIMIT * sizeof(void *),
                         "scopealloc_pool.limit");
SCOPEALLOC_STATIC_ASSERT(offsetof(scopealloc_pool, high) ==
                             SCOPEALLOC_POOL_FIELD_HIGH * sizeof(void *),
                         "scopealloc_pool.high");
SCOPEALLOC_STATIC_ASSERT(offsetof(scopealloc_pool, base) ==
                             SCOPEALLOC_POOL_FIELD_BASE * sizeof(void *),
                         "scopealloc_pool.base");
SCOPEALLOC_STATIC_ASSERT(offsetof(scopealloc_pool, bound) ==
                             SCOPEALLOC_POOL_FIELD_BOUND * sizeof(void *),
                         "scopealloc_pool.bound");
SCOPEALLOC_STATIC_ASSERT(offsetof(scopealloc_pool, allocs) ==
                             SCOPEALLOC_POOL_FIELD_ALLOCS * sizeof(void *),
                         "scopealloc_pool.allocs");
SCOPEALLOC_STATIC_ASSERT(offsetof(scopealloc_pool, owner) ==
                             8 * sizeof(void *) + 2 * sizeof(uint64_t),
                         "scopealloc_pool.owner");
SCOPEALLOC_STATIC_ASSERT(sizeof(scopealloc_pool) ==
                             (SCOPEALLOC_POOL_FIELD_COUNT - 2) *
                                     sizeof(void *) +
                                 2 * sizeof(uint64_t),
                         "scopealloc_pool size");

/* Defined by the runtime; referenced by every module the pass rewrites. */
extern const char SCOPEALLOC_ABI_VERSION_SYMBOL;

/* ---- The default pool (do not call by hand unless you mean it) ---- */

/* Default workspace pool of the calling thread: one contiguous virtual
 * reservation per thread, which is also its cap (8 x the soft RLIMIT_STACK,
 * at least 64 MiB, at most 1 GiB; 16 to 256 MiB on 32-bit; env
 * SCOPEALLOC_RESERVE=<bytes>[K|M|G] sets it), between PROT_NONE guards,
 * committed on demand, unmapped when the thread exits.
 *
 * Freestanding (bare-metal) builds have no threads and no mmap: there the
 * default pool is the named pool `workspace`, a fixed buffer the application
 * places like any other pool, e.g.
 *   SCOPEALLOC_DEFINE_POOL(workspace, 16384);
 *   SCOPEALLOC_DEFINE_POOL_IN_SECTION(workspace, 16384, ".sram2");
 * A program that uses the default pool without defining it fails to link
 * with `undefined symbol: __scopealloc_pool_workspace`. It never grows; one
 * thread of execution (interrupt handlers nest, so they may use it too).
 *
 * __scopealloc_mark creates the thread's arena if needed, so a mark is always
 * a real position inside it and releasing is a single store of `cur` (the
 * inline fast path does exactly that, bypassing ASan poisoning and Valgrind
 * client requests, which is why the pass keeps the calls in functions built
 * with a sanitizer). Release also accepts NULL as "empty". */
void *__scopealloc_mark(void) SCOPEALLOC_NOTHROW SCOPEALLOC_RETURNS_NONNULL;
void *__scopealloc_alloc(size_t size, size_t align)
    SCOPEALLOC_NOTHROW SCOPEALLOC_RETURNS_NONNULL SCOPEALLOC_ALLOC_SIZE(1)
        SCOPEALLOC_ALLOC_ALIGN(2);
void __scopealloc_release(void *mark) SCOPEALLOC_NOTHROW;

/* The calling thread's default pool, for the inline fast path: a frame of
 * alignment <= 16 starts at `cur` (always a multiple of 16), its size is
 * rounded up to 16, and it fits when cur + size <= bound. `bound` is the
 * high-water mark `high` (<= limit), so a frame that would set a new peak
 * goes through the runtime, which records it: the peak stays exact without
 * the fast path updating it. The fast path does not count its frames in
 * `allocs`; when exact counts are asked for (scopealloc_set_exact_stats,
 * SCOPEALLOC_STATS=1) the runtime sets `bound` to NULL, and every frame goes
 * through the runtime, which counts it. `cur` and `bound` are NULL until
 * __scopealloc_mark or __scopealloc_alloc has created the arena (and again
 * after the thread's arena was returned at its exit), so the same check also
 * sends a thread's first frame to the slow path.
 *
 * Guarded frames (Linux on x86-64 and AArch64, at most
 * SCOPEALLOC_GUARDED_FRAME_MAX bytes, aligned to at most 16) only test
 * `bound` for NULL, then store SCOPEALLOC_GUARD_MARKER at cur + size (the
 * byte above the frame) and only then the new cur: the runtime's SIGSEGV
 * handler commits the arena or reports its exhaustion when that store
 * faults, and reads the peak from the highest marker. */
#if !defined(__STDC_HOSTED__) || __STDC_HOSTED__
extern __thread scopealloc_pool __scopealloc_tls_pool;
#endif

/* The fast path's slow path: a thread's first frame, growth, exhaustion.
 * Returns the mark before the frame and the frame, like __scopealloc_mark
 * then __scopealloc_alloc. On x86-64 and AArch64 it preserves almost every
 * register (preserve_most), so the inline bump needs no register spills to
 * make room for a call it almost never takes; elsewhere, and with
 * -scope-alloc-slow-path=standard, the pass calls __scopealloc_mark and
 * __scopealloc_alloc instead. A runtime built there by GCC or clang < 17
 * does not define it (see thread_arena.c); callers may use the standard
 * convention, since preserve_most only preserves more. */
typedef struct scopealloc_frame {
  void *mark;
  void *frame;
} scopealloc_frame;
#if defined(__clang__) && (defined(__x86_64__) || defined(__aarch64__))
#define SCOPEALLOC_SLOW_PATH_CC __attribute__((preserve_most))
#else
#define SCOPEALLOC_SLOW_PATH_CC
#endif
#if !defined(__STDC_HOSTED__) || __STDC_HOSTED__
SCOPEALLOC_SLOW_PATH_CC scopealloc_frame
__scopealloc_frame_slow(size_t size, size_t align) SCOPEALLOC_NOTHROW;
#endif
#if defined(__x86_64__) && defined(__ELF__)
/* The frameless slow path (-scope-alloc-slow-path=frameless, the default on
 * x86-64): not callable from C. The inline fast path's slow branch, an asm
 * call, passes the size in rax and the alignment in rdx and gets the mark
 * in rax and the frame in rdx; every other register is kept, vector
 * registers are not. The stack pointer does not move in the caller: the
 * thunk steps over the caller's red zone (thread_arena.c). */
void __scopealloc_frame_thunk_regs(void) SCOPEALLOC_NOTHROW;
/* The same for objects built before it: the caller stepped 128 bytes below
 * the stack pointer and pushed the alignment and the size. */
void __scopealloc_frame_thunk(void) SCOPEALLOC_NOTHROW;
#endif

/* ---- Named pools ----
 *
 * A named pool `global.<name>`: the pass references
 * `__scopealloc_pool_<name>`, which the application defines (see
 * SCOPEALLOC_DEFINE_POOL in scopealloc.h), so a program that forgets to
 * define a pool fails to link with the pool's name in the undefined symbol.
 * __scopealloc_pool_mark returns NULL to a thread that holds nothing in the
 * pool (it does not own it, or has no partition of a shared pool yet). The
 * calls are the same for plain and shared pools: the runtime finds the
 * calling thread's partition. */
void *__scopealloc_pool_mark(scopealloc_pool *pool) SCOPEALLOC_NOTHROW;
void *__scopealloc_pool_alloc(scopealloc_pool *pool, size_t size, size_t align)
    SCOPEALLOC_NOTHROW SCOPEALLOC_RETURNS_NONNULL SCOPEALLOC_ALLOC_SIZE(2)
        SCOPEALLOC_ALLOC_ALIGN(3);
void __scopealloc_pool_release(scopealloc_pool *pool,
                               void *mark) SCOPEALLOC_NOTHROW;

/* ---- AddressSanitizer frame notes ----
 *
 * AddressSanitizer builds: after allocating a frame in an instrumented
 * function, the pass notes it with a constant descriptor, so that an ASan
 * report on its memory (e.g. use-after-poison: a released buffer) also
 * names the variable, its function and whether the frame was released. */
typedef struct scopealloc_var_desc {
  const char *name;
  size_t offset; /* from the frame's first byte */
  size_t size;
} scopealloc_var_desc;
typedef struct scopealloc_frame_desc {
  const char *function;
  size_t size; /* the whole frame */
  size_t nvars;
  const scopealloc_var_desc *vars;
} scopealloc_frame_desc;
#if !defined(__STDC_HOSTED__) || __STDC_HOSTED__
void __scopealloc_note_frame(
    const void *frame, const scopealloc_frame_desc *desc) SCOPEALLOC_NOTHROW;
#endif

#ifdef __cplusplus
}
#endif

#endif /* SCOPEALLOC_ABI_H */
