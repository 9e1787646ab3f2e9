/* ScopeAlloc runtime: the workspace memory that demoted stack buffers use.
 *
 * Two audiences:
 *  - the ScopeAlloc pass emits calls to the __scopealloc_* ABI below;
 *  - applications define named pools, read statistics and replace the
 *    exhaustion handler with the scopealloc_* functions.
 *
 * Memory model: every pool is a LIFO bump arena. A frame takes a *mark*
 * (the current top), allocates, and on every way out releases back to its
 * mark. Releasing to an older mark also frees everything allocated after it,
 * which is what makes exceptions and longjmp recoverable: the frame that
 * resumes only has to restore its own mark.
 *
 * Allocation: `align` is a power of two (0 means 1); every allocation starts
 * at least 8-aligned (the ASan shadow granule); size 0 yields the aligned top.
 * A request that does not fit, even one whose size would wrap the address
 * space, goes to the exhaustion handler. Under AddressSanitizer, released
 * memory and alignment padding are poisoned, allocations unpoisoned. Under
 * Valgrind memcheck (runtime built where <valgrind/memcheck.h> exists) every
 * pool is a memcheck mempool: an allocation is undefined memory, a release
 * frees the blocks above the mark, and memory no allocation covers is
 * inaccessible. Under ThreadSanitizer, a named pool passing from one thread
 * to the next is a release/acquire pair.
 *
 * Threads and processes: a thread's default pool is unmapped when the thread
 * exits; in the child of fork the forking thread keeps its pool, new threads
 * get new ones, and named pools held by threads that did not survive the
 * fork are empty again.
 */
#ifndef SCOPEALLOC_SCOPEALLOC_H
#define SCOPEALLOC_SCOPEALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "abi_constants.h"

#ifdef __cplusplus
#define SCOPEALLOC_EXTERN_C extern "C"
extern "C" {
#else
#define SCOPEALLOC_EXTERN_C
#endif

/* SCOPEALLOC_ABI_VERSION: see abi_constants.h. */

/* One LIFO arena. `cur`, `high` and `allocs` are ABI: the compiler's
 * inline fast path bumps `cur` while it stays under `high` and counts the
 * allocation itself, so statistics stay exact without a call. */
typedef struct scopealloc_pool {
  char *cur;         /* next free byte (NULL: the thread has no arena yet) */
  char *limit;       /* end of usable memory; the slow path may raise it */
  char *high;        /* highest `cur` seen: peak use is high - base */
  char *base;        /* first byte of the arena */
  char *reserve_end; /* how far `limit` may grow (== limit for fixed pools) */
  const char *name;
  uint64_t allocs;   /* successful allocations (a fast-path frame is one) */
  uint64_t failures; /* requests that could not be served */
  const void *owner; /* thread using a non-empty named pool (0 = none) */
  struct scopealloc_pool *next_thread_pool; /* runtime-private list */
} scopealloc_pool;

/* The compiler addresses the pool by the field indices of abi_constants.h,
 * over an LLVM struct of 6 pointers, 2 x i64 and 2 pointers: the same
 * offsets on LP64 and ILP32. */
#ifdef __cplusplus
#define SCOPEALLOC_STATIC_ASSERT(C, M) static_assert(C, M)
#else
#define SCOPEALLOC_STATIC_ASSERT(C, M) _Static_assert(C, M)
#endif
SCOPEALLOC_STATIC_ASSERT(offsetof(scopealloc_pool, cur) ==
                             SCOPEALLOC_POOL_FIELD_CUR * sizeof(void *),
                         "scopealloc_pool.cur");
SCOPEALLOC_STATIC_ASSERT(offsetof(scopealloc_pool, high) ==
                             SCOPEALLOC_POOL_FIELD_HIGH * sizeof(void *),
                         "scopealloc_pool.high");
SCOPEALLOC_STATIC_ASSERT(offsetof(scopealloc_pool, allocs) ==
                             SCOPEALLOC_POOL_FIELD_ALLOCS * sizeof(void *),
                         "scopealloc_pool.allocs");
SCOPEALLOC_STATIC_ASSERT(offsetof(scopealloc_pool, owner) ==
                             6 * sizeof(void *) + 2 * sizeof(uint64_t),
                         "scopealloc_pool.owner");
SCOPEALLOC_STATIC_ASSERT(sizeof(scopealloc_pool) ==
                             (SCOPEALLOC_POOL_FIELD_COUNT - 2) *
                                     sizeof(void *) +
                                 2 * sizeof(uint64_t),
                         "scopealloc_pool size");

/* Defined by the runtime; referenced by every module the pass rewrites. */
extern const char SCOPEALLOC_ABI_VERSION_SYMBOL;

/* ---- ABI emitted by the pass (do not call by hand unless you mean it) ---- */

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
void *__scopealloc_mark(void);
void *__scopealloc_alloc(size_t size, size_t align);
void __scopealloc_release(void *mark);

/* The calling thread's default pool, for the inline fast path: `cur` and
 * `limit` are NULL until __scopealloc_mark or __scopealloc_alloc has created
 * the arena (and again after the thread's arena was returned at its exit), so
 * the fast path's single check also sends a thread's first frame to the
 * slow path. That check is align_up(cur) + size <= high, against the
 * high-water mark rather than `limit` (high <= limit): a frame that would
 * set a new peak goes through the runtime, which records it, so the fast
 * path keeps the peak exact without updating it. */
#if !defined(__STDC_HOSTED__) || __STDC_HOSTED__
extern __thread scopealloc_pool __scopealloc_tls_pool;
#endif

/* The fast path's slow path: a thread's first frame, growth, exhaustion.
 * Returns the mark before the frame and the frame, like __scopealloc_mark
 * then __scopealloc_alloc. On x86-64 and AArch64 it preserves almost every
 * register (preserve_most), so the inline bump needs no register spills to
 * make room for a call it almost never takes; elsewhere the pass calls
 * __scopealloc_mark and __scopealloc_alloc instead. */
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
SCOPEALLOC_SLOW_PATH_CC scopealloc_frame __scopealloc_frame_slow(size_t size,
                                                                size_t align);
#endif

/* A named pool `global.<name>`: the pass references
 * `__scopealloc_pool_<name>`, defined by SCOPEALLOC_DEFINE_POOL below, so a
 * program that forgets to define a pool fails to link with the pool's name
 * in the undefined symbol. */
void *__scopealloc_pool_mark(scopealloc_pool *pool);
void *__scopealloc_pool_alloc(scopealloc_pool *pool, size_t size, size_t align);
void __scopealloc_pool_release(scopealloc_pool *pool, void *mark);

/* AddressSanitizer builds: after allocating a frame in an instrumented
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
void __scopealloc_note_frame(const void *frame,
                             const scopealloc_frame_desc *desc);
#endif

/* ---- Named pools, placed by the application ---- */

/* A named pool is a fixed buffer; it never grows. Like any LIFO arena it
 * serves one thread at a time: while non-empty it belongs to the thread that
 * allocated from it first (`owner`), and another thread's request is reported
 * through the exhaustion handler as SCOPEALLOC_REASON_IN_USE. A mark taken
 * by a thread that does not own the pool is NULL ("all this thread holds"),
 * since the owner may move the top before this thread gets the pool; its
 * release frees what the thread allocated since, or nothing. */

#define SCOPEALLOC_POOL_ALIGN 64

/* A pool over a buffer the application already has (any section, any
 * address), e.g. SCOPEALLOC_DEFINE_POOL_OVER(npu_sram, (char *)0x20000000, 65536).
 * `used`: under LTO the pass references the pool only at the link, after
 * ThinLTO would have internalised a pool nothing referenced yet. */
#define SCOPEALLOC_DEFINE_POOL_OVER(NAME, BUFFER, SIZE)                        \
  SCOPEALLOC_EXTERN_C scopealloc_pool __scopealloc_pool_##NAME;                \
  __attribute__((used)) scopealloc_pool __scopealloc_pool_##NAME = {          \
      (char *)(BUFFER),          (char *)(BUFFER) + (SIZE),                    \
      (char *)(BUFFER),          (char *)(BUFFER),                             \
      (char *)(BUFFER) + (SIZE), #NAME, 0, 0, 0, 0};                                                   \
  __attribute__((used, section("scopealloc_pools"))) static scopealloc_pool    \
      *const scopealloc_pool_entry_##NAME = &__scopealloc_pool_##NAME

/* A pool with its own zero-initialised buffer in linker section SECTION. */
#define SCOPEALLOC_DEFINE_POOL_IN_SECTION(NAME, SIZE, SECTION)                 \
  __attribute__((aligned(SCOPEALLOC_POOL_ALIGN), section(SECTION))) static    \
      char scopealloc_buffer_##NAME[(SIZE)];                                   \
  SCOPEALLOC_DEFINE_POOL_OVER(NAME, scopealloc_buffer_##NAME, (SIZE))

/* A pool with its own buffer in .bss. */
#define SCOPEALLOC_DEFINE_POOL(NAME, SIZE)                                     \
  SCOPEALLOC_DEFINE_POOL_IN_SECTION(NAME, SIZE, ".bss.scopealloc." #NAME)

/* ---- Exhaustion ---- */

typedef struct scopealloc_failure {
  const char *pool;   /* "workspace" for the default pool, else the pool name */
  const char *reason; /* "exhausted", "in use by another thread", ... */
  size_t requested;   /* bytes asked for */
  size_t alignment;
  size_t available;   /* bytes left in the pool at the time */
  size_t peak;        /* the pool's peak use so far */
  size_t capacity;    /* the most the pool can ever hold */
  const void *mark;   /* the offending mark for a bad release, else NULL */
  /* Return address into the code that called the runtime (the demoted
   * function, or whoever called the scopealloc_* function that failed);
   * NULL if unknown. Appended last: handlers get the struct by pointer. */
  const void *caller;
} scopealloc_failure;

/* The `reason` strings (compare with strcmp). */
#define SCOPEALLOC_REASON_EXHAUSTED "exhausted"
#define SCOPEALLOC_REASON_IN_USE "in use by another thread"
#define SCOPEALLOC_REASON_BAD_RELEASE "release of a mark outside the pool"
#define SCOPEALLOC_REASON_BAD_ALIGNMENT "alignment is not a power of two"
#define SCOPEALLOC_REASON_NO_MEMORY "the system refused to reserve or commit memory"
#define SCOPEALLOC_REASON_ARENA_CURRENT                                        \
  "arena destroyed while a thread has it switched in"
#define SCOPEALLOC_REASON_ARENA_NOT_EMPTY                                      \
  "arena destroyed while it holds allocations"

/* Called when a request cannot be served. The default prints the failure to
 * stderr, with the caller's function when the dynamic symbol table names it
 * (exported functions: shared libraries, programs linked with -rdynamic),
 * else its object and the offset to give `addr2line -f -e <object>`, and
 * aborts. A replacement must not return: it may abort, exit or
 * longjmp; if it returns, the runtime aborts, since the generated code has
 * no way to continue without the memory. It must not throw: the runtime's
 * entry points are nounwind, so the compiler emits no unwind path for them
 * and a C++ exception from the handler ends in std::terminate. */
typedef void (*scopealloc_exhaustion_handler)(const scopealloc_failure *failure);

/* Installs `handler` (NULL restores the default); returns the previous one
 * (scopealloc_default_exhaustion_handler when none was installed). */
scopealloc_exhaustion_handler
scopealloc_set_exhaustion_handler(scopealloc_exhaustion_handler handler);

/* Prints the failure to stderr and aborts (freestanding builds: traps).
 * Custom handlers may log and then delegate to it. */
void scopealloc_default_exhaustion_handler(const scopealloc_failure *failure);

/* ---- Statistics ---- */

typedef struct scopealloc_stats {
  const char *name;
  size_t current;  /* bytes in use now */
  size_t peak;     /* most bytes in use at once */
  size_t capacity; /* most bytes the pool can hold */
  uint64_t allocs;
  uint64_t failures;
} scopealloc_stats;

/* The calling thread's default pool: the arena it allocates from now (its
 * own, or the fiber arena switched in, below). */
void scopealloc_thread_stats(scopealloc_stats *out);
/* The default pool over the whole process: current and allocation counts
 * summed over live and exited threads and over fiber arenas (live and
 * destroyed), peak = the largest peak of any of these arenas, capacity =
 * a thread's. */
void scopealloc_process_stats(scopealloc_stats *out);
/* A named pool. */
void scopealloc_pool_stats(const scopealloc_pool *pool, scopealloc_stats *out);
/* Calls `fn` for every named pool linked into the program; returns the count. */
int scopealloc_for_each_pool(void (*fn)(const scopealloc_pool *pool, void *ctx),
                             void *ctx);
/* Prints every pool's statistics to stderr. SCOPEALLOC_STATS=1 in the
 * environment does this at exit. */
void scopealloc_print_stats(void);

/* ---- Fibers and coroutines (hosted only) ---- */

/* The default pool is one LIFO arena per thread. Fibers or stackful
 * coroutines (ucontext, boost.context, a scheduler's own stacks) that take
 * turns on one thread would share it, and one fiber's release would free
 * the buffers another still uses. Give each fiber an arena of its own and
 * switch the thread to it right before switching to the fiber:
 *
 *   scopealloc_arena *arena = scopealloc_arena_create(0);  // per fiber
 *   ...
 *   scopealloc_arena *prev = scopealloc_arena_switch(arena);
 *   swapcontext(&scheduler, &fiber);     // the fiber runs on its arena
 *   scopealloc_arena_switch(prev);       // back on the scheduler's
 *   ...
 *   scopealloc_arena_destroy(arena);     // once the fiber has finished
 *
 * Switching copies the arena's state into the thread's pool (which the
 * inline fast path reads), so it works with code built either way; it
 * takes the runtime's process-wide lock briefly (not async-signal-safe).
 * An arena is switched in by one thread at a time; a parked one may move to
 * another thread (an M:N scheduler). Statistics travel with the arena:
 * scopealloc_thread_stats reports the one switched in, and failures name
 * it ("workspace/fiber<N>", N counting arenas from 1).
 *
 * A thread that exits with a fiber arena switched in leaves it parked as it
 * is. In the child of fork, the forking thread keeps the arena it has
 * switched in and every parked one; arenas other threads had switched in
 * are parked there, empty (the code that used them is not in the child). */
#if !defined(__STDC_HOSTED__) || __STDC_HOSTED__
typedef struct scopealloc_arena scopealloc_arena;

/* A new arena with its own reservation of `cap` bytes (rounded up to whole
 * pages; 0: a thread's cap, see the default pool above), between guard
 * pages, committed on demand. Returns NULL with errno set if the system
 * refuses the reservation. */
scopealloc_arena *scopealloc_arena_create(size_t cap);
/* Makes `to` the calling thread's default pool (NULL: the thread's own
 * arena) and returns the previous one (NULL: the thread's own). Switching
 * to an arena another thread has switched in is reported through the
 * exhaustion handler (SCOPEALLOC_REASON_IN_USE, naming the arena). */
scopealloc_arena *scopealloc_arena_switch(scopealloc_arena *to);
/* The arena the calling thread has switched in (NULL: its own). */
scopealloc_arena *scopealloc_arena_current(void);
/* Returns the arena's memory. It must be empty and switched in by no
 * thread: anything else is reported through the exhaustion handler
 * (SCOPEALLOC_REASON_ARENA_NOT_EMPTY, SCOPEALLOC_REASON_ARENA_CURRENT) and
 * the arena is left alone. NULL is ignored. */
void scopealloc_arena_destroy(scopealloc_arena *arena);
/* The arena's statistics, wherever it is switched in. */
void scopealloc_arena_stats(const scopealloc_arena *arena,
                            scopealloc_stats *out);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SCOPEALLOC_SCOPEALLOC_H */
