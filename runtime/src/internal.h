/* Private to the runtime: configuration, the bump/release fast paths shared by
 * the default and the named pools, the hooks for ASan, Valgrind and TSan, and
 * the calls between layers.
 *
 * The runtime is layered; an object references only objects of lower layers
 * (or earlier in its own layer), never the other way (test/runtime checks
 * this with nm on the archives: runtime.layers_*):
 *
 *  1. core arena      tool_hooks.c exhaustion.c arena.c: bump, release and
 *                     failure reporting on any scopealloc_pool (sa_bump,
 *                     sa_release below; sa_fail, the handler).
 *  2. statistics      loaded_pools.c stats.c: per-pool getters, the list of
 *                     named pools, the SCOPEALLOC_STATS=1 table. The default
 *                     pool's process totals come by callback from layer 4
 *                     (sa_stats_set_default_pool), so statistics needs no
 *                     thread arena.
 *  3. named pools     named_pool.c: ownership, mark/alloc/release, fork.
 *  4. default pool    hosted: runtime_identity.c thread_arena.c fiber.c
 *                     (mmap reservations, guards, pthread keys, fork,
 *                     fibers; fiber.c hooks into thread_arena.c by
 *                     callback); freestanding: fixed_default_pool.c.
 *     frame notes     asan_names.c (ASan builds only; needs no other layer).
 *
 * Statistics sits below the named pools, not on top: a static program links
 * only the archive members it references, and SCOPEALLOC_STATS=1 must print
 * at exit in any program, so every layer that serves requests references it
 * (named pools walk the list at fork; the default pool registers its totals).
 * A program that uses only named pools therefore links layers 1-3 and no
 * mmap or pthread key; a bare-metal runtime is layers 1-3 plus
 * fixed_default_pool.c (runtime/CMakeLists.txt lists the sources per layer). */
#ifndef SCOPEALLOC_INTERNAL_H
#define SCOPEALLOC_INTERNAL_H

#include "scopealloc/scopealloc.h"

/* -ffreestanding (bare metal) builds get only what needs no libc: named
 * pools, the handler (which then traps) and the statistics getters. */
#ifndef SCOPEALLOC_HOSTED
#if defined(__STDC_HOSTED__) && __STDC_HOSTED__ == 0
#define SCOPEALLOC_HOSTED 0
#else
#define SCOPEALLOC_HOSTED 1
#endif
#endif

/* Without threads there is no owner to check and no TLS to ask for. */
#ifndef SCOPEALLOC_SINGLE_THREADED
#define SCOPEALLOC_SINGLE_THREADED (!SCOPEALLOC_HOSTED)
#endif
#if !SCOPEALLOC_HOSTED && !SCOPEALLOC_SINGLE_THREADED
/* Named pools shared by threads cut partitions with malloc and give back a
 * dead thread's share from a pthread key destructor. */
#error "a threaded runtime needs a hosted C library (pthread keys, malloc)"
#endif

/* Shared words (handler, pool owner): atomic when threads exist; plain when
 * not, so small cores without atomic instructions need no libatomic. */
#if SCOPEALLOC_SINGLE_THREADED
#define SA_LOAD(p) (*(p))
#define SA_LOAD_RELAXED(p) (*(p))
#define SA_STORE(p, v) ((void)(*(p) = (v)))
#define SA_STORE_RELAXED(p, v) ((void)(*(p) = (v)))
#else
#define SA_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define SA_LOAD_RELAXED(p) __atomic_load_n((p), __ATOMIC_RELAXED) /* a mov */
#define SA_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define SA_STORE_RELAXED(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#endif

/* A pool's `cur`, `high` and counters change only in the thread using the
 * pool, but statistics readers in other threads load them: the owner stores
 * them relaxed-atomically (a plain mov) and readers load them the same way,
 * so a reader sees each value whole, never torn. The 64-bit counters get
 * this only where a 64-bit access is one instruction; 32-bit hosts keep them
 * plain (a concurrent reader may see a torn count, never a wrong pointer). */
#if SCOPEALLOC_SINGLE_THREADED || UINTPTR_MAX <= 0xffffffffu
#define SA_COUNT_LOAD(p) (*(p))
#define SA_COUNT_BUMP(p) ((void)++*(p))
#define SA_COUNT_BUMP_SHARED(p) ((void)++*(p))
#else
#define SA_COUNT_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
/* Single writer: a load and a store, no locked instruction. */
#define SA_COUNT_BUMP(p)                                                       \
  __atomic_store_n((p), __atomic_load_n((p), __ATOMIC_RELAXED) + 1,            \
                   __ATOMIC_RELAXED)
/* Several writers (failures of threads refused a pool they do not own). */
#define SA_COUNT_BUMP_SHARED(p)                                                \
  ((void)__atomic_fetch_add((p), 1, __ATOMIC_RELAXED))
#endif

/* ---- Layer 1: core arena (tool_hooks.c, exhaustion.c, arena.c) ---- */

#define SA_HIDDEN __attribute__((visibility("hidden")))
#define SA_COLD __attribute__((noinline, cold))
#define SA_NORETURN __attribute__((noreturn))
#define SA_LIKELY(x) __builtin_expect(!!(x), 1)
#define SA_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Every allocation starts at least this aligned: it is ASan's shadow granule,
 * so two allocations never share the head of a granule and poisoning one
 * cannot hide or expose the other. */
#define SA_MIN_ALIGN SCOPEALLOC_MIN_ALIGN

/* The runtime is not built with ASan; these resolve only when the program is. */
void __asan_poison_memory_region(void const volatile *addr, size_t size)
    __attribute__((weak));
void __asan_unpoison_memory_region(void const volatile *addr, size_t size)
    __attribute__((weak));

static inline void sa_poison(const void *p, size_t n) {
  if (__asan_poison_memory_region && n)
    __asan_poison_memory_region(p, n);
}
static inline void sa_unpoison(const void *p, size_t n) {
  if (__asan_unpoison_memory_region && n)
    __asan_unpoison_memory_region(p, n);
}

/* Tools that watch the arena: AddressSanitizer poisoning, Valgrind memcheck
 * client requests, ThreadSanitizer hand-over annotations. The fast paths
 * pay one load and an untaken branch (sa_hooked) and call the cold hooks
 * only when a tool is present. */
enum { SA_HOOK_ASAN = 1, SA_HOOK_VALGRIND = 2, SA_HOOK_TSAN = 4 };

#if SCOPEALLOC_HOSTED
/* tool_hooks.c. sa_hooks says which tools are present; it is set by
 * sa_hooks_init, which every cold path that creates an arena or claims a
 * named pool runs before the first allocation. */
extern unsigned char sa_hooks SA_HIDDEN;
extern unsigned char sa_hooks_ready SA_HIDDEN;
SA_HIDDEN SA_COLD void sa_hooks_init(void);
static inline void sa_hooks_ensure(void) {
  if (SA_UNLIKELY(!SA_LOAD_RELAXED(&sa_hooks_ready)))
    sa_hooks_init();
}
static inline unsigned sa_hooked(void) { return SA_LOAD_RELAXED(&sa_hooks); }
/* [start, start + size) became part of the pool but holds no allocation. */
SA_HIDDEN SA_COLD void sa_hook_commit(scopealloc_pool *pool, const void *start,
                                      size_t size);
/* [p, p + size) was handed out; [cur, p) is alignment padding. */
SA_HIDDEN SA_COLD void sa_hook_alloc(scopealloc_pool *pool, const void *cur,
                                     size_t pad, const void *p, size_t size);
/* Everything from mark up (size bytes, up to the old top) was released. */
SA_HIDDEN SA_COLD void sa_hook_release(scopealloc_pool *pool, const void *mark,
                                       size_t size);
/* A thread's arena was created: [base, limit) is committed and empty. */
SA_HIDDEN SA_COLD void sa_hook_arena_created(scopealloc_pool *pool);
/* A thread's arena is about to be unmapped (from `from` to reserve_end). */
SA_HIDDEN SA_COLD void sa_hook_arena_unmapping(scopealloc_pool *pool,
                                               const void *from);
/* Code built with the inline fast path runs under a tool that it bypasses. */
SA_HIDDEN SA_COLD void sa_hook_inline_fast_path(void);
/* This thread has just claimed the (empty) named pool. */
SA_HIDDEN SA_COLD void sa_hook_claimed(scopealloc_pool *pool);
/* Nonzero: the runtime is about to read arena memory no allocation holds
 * (memcheck is told not to report it); zero: done. */
SA_HIDDEN SA_COLD void sa_hook_quiet(int quiet);
#else
/* Bare metal: no Valgrind, no TSan, no tool_hooks.c (the fixed default pool
 * has no cold path to set sa_hooks in): ASan, for a host test of the
 * freestanding library, by its weak symbol. */
static inline void sa_hooks_ensure(void) {}
static inline unsigned sa_hooked(void) {
  return __asan_poison_memory_region ? SA_HOOK_ASAN : 0;
}
static inline SA_COLD void sa_hook_alloc(scopealloc_pool *pool,
                                         const void *cur, size_t pad,
                                         const void *p, size_t size) {
  (void)pool;
  sa_poison(cur, pad);
  sa_unpoison(p, size);
}
static inline SA_COLD void sa_hook_release(scopealloc_pool *pool,
                                           const void *mark, size_t size) {
  (void)pool;
  sa_poison(mark, size);
}
static inline void sa_hook_claimed(scopealloc_pool *pool) { (void)pool; }
#endif

/* Fast path, a handful of instructions: align cur, check the fit without
 * overflow (cur <= limit always holds), bump, count. Fails (returns 0) on a
 * non-power-of-two alignment or when [cur, limit) is too small; the caller's
 * cold path decides whether to grow or report. The new top is the end of
 * the allocation rounded up to `granule` (a power of two; 1 for none), which
 * `limit` must be a multiple of: the default pool keeps its top a multiple
 * of SCOPEALLOC_DEFAULT_POOL_GRANULE so that the inline fast path needs no
 * alignment. Tools are told about `size` bytes, so the rounding stays
 * poisoned under ASan. With `exact_peak` the peak (`high`) is the
 * allocation's own end, not the rounded top. */
static inline int sa_bump_rounded_peak(scopealloc_pool *pool, size_t size,
                                       size_t align, uintptr_t granule,
                                       int exact_peak, void **out) {
  uintptr_t cur = (uintptr_t)pool->cur;
  uintptr_t room = (uintptr_t)pool->limit - cur;
  uintptr_t mask = align > SA_MIN_ALIGN ? align - 1 : SA_MIN_ALIGN - 1;
  uintptr_t pad = -cur & mask;
  if (SA_UNLIKELY((align & (align - 1)) | (pad > room) | (size > room - pad)))
    return 0;
  char *p = (char *)(cur + pad);
  char *top = (char *)(((uintptr_t)p + size + (granule - 1)) & -granule);
  char *reach = exact_peak ? p + size : top;
  SA_STORE_RELAXED(&pool->cur, top);
  if (reach > pool->high)
    SA_STORE_RELAXED(&pool->high, reach);
  SA_COUNT_BUMP(&pool->allocs);
  if (SA_UNLIKELY(sa_hooked()))
    sa_hook_alloc(pool, (const void *)cur, pad, p, size);
  *out = p;
  return 1;
}

static inline int sa_bump_rounded(scopealloc_pool *pool, size_t size,
                                  size_t align, uintptr_t granule,
                                  void **out) {
  return sa_bump_rounded_peak(pool, size, align, granule, 0, out);
}

static inline int sa_bump(scopealloc_pool *pool, size_t size, size_t align,
                          void **out) {
  return sa_bump_rounded(pool, size, align, 1, out);
}

/* Fast path: one unsigned compare covers both mark < base and mark > cur. */
static inline int sa_release(scopealloc_pool *pool, void *mark) {
  uintptr_t base = (uintptr_t)pool->base;
  uintptr_t cur = (uintptr_t)pool->cur;
  if (SA_UNLIKELY((uintptr_t)mark - base > cur - base))
    return 0;
  if (SA_UNLIKELY(sa_hooked()))
    sa_hook_release(pool, mark, cur - (uintptr_t)mark);
  SA_STORE_RELAXED(&pool->cur, (char *)mark);
  return 1;
}

/* The first byte a frame can start at. A pool over memory the application
 * gives (SCOPEALLOC_DEFINE_POOL_OVER) may start off an SA_MIN_ALIGN boundary,
 * and every frame is at least that aligned: the bytes before it are never
 * usable. Capacity, use and peak count from here, as scopealloc-bound's
 * link check does. */
static inline char *sa_usable_base(const scopealloc_pool *pool) {
  return pool->base + (-(uintptr_t)pool->base & (SA_MIN_ALIGN - 1));
}

/* Bytes in use when the top is `top`. */
static inline size_t sa_used_to(const scopealloc_pool *pool, char *top) {
  char *from = sa_usable_base(pool);
  return top > from ? (size_t)(top - from) : 0;
}

/* The top the `current` statistic counts to: `cur`, or the peak where that
 * lies below it. With exact counts the thread arena keeps its top a
 * multiple of SA_MIN_ALIGN (where every allocation starts, so that the
 * compiler may release a frame to its own start) while the peak is the
 * last byte asked for: the last allocation's padding is not counted. */
static inline char *sa_counted_top(const scopealloc_pool *pool) {
  char *cur = SA_LOAD_RELAXED(&pool->cur);
  char *high = SA_LOAD_RELAXED(&pool->high);
  return high && high < cur ? high : cur;
}

/* Most bytes the pool can hold. */
static inline size_t sa_usable_capacity(const scopealloc_pool *pool) {
  return sa_used_to(pool, pool->reserve_end);
}

/* Most bytes the pool has held at once (any thread may ask). */
static inline size_t sa_peak(const scopealloc_pool *pool) {
  char *high = SA_LOAD_RELAXED(&pool->high);
  return high ? sa_used_to(pool, high) : 0;
}

/* ---- Shared named pools: partitions (layer 3's data) ----
 *
 * A shared pool (SCOPEALLOC_DEFINE_POOL_SHARED, scopealloc_pool_set_partition)
 * is cut into partitions of one size, each a LIFO arena of its own that one
 * thread holds from its first use of the pool until it exits. Nothing moves
 * in the pool struct: three fields the compiler never reads (and that a
 * plain pool's initializer sets to 0) say it, so that a define macro can set
 * them too:
 *   owner             the pool itself: no thread owns it whole (a thread's
 *                     identity is the address of one of its thread-locals);
 *   unrounded         the partition size asked for, in bytes;
 *   next_thread_pool  the partitions, an array of sa_partition made at the
 *                     first claim (published with a release CAS) whose
 *                     first member is the first partition's arena.
 * Named pools define these; statistics (layer 2) and failure reports
 * (layer 1) only read them, so no layer references a higher one.
 * Single-threaded builds have no partitions: the pool serves its one thread
 * whole. */
typedef struct sa_partition {
  scopealloc_pool arena;          /* first: the hot path bumps it as a pool */
  scopealloc_pool *pool;          /* the named pool it is carved from */
  struct sa_partition *next_held; /* the holding thread's list */
  size_t index;
} sa_partition;

/* Partitions start SCOPEALLOC_POOL_ALIGN apart: as aligned as the pool, and
 * two threads' partitions share no cache line. */
#define SA_PARTITION_ALIGN ((size_t)SCOPEALLOC_POOL_ALIGN)

static inline int sa_pool_is_shared(const scopealloc_pool *pool) {
#if SCOPEALLOC_SINGLE_THREADED
  (void)pool;
  return 0;
#else
  return SA_LOAD(&pool->owner) == (const void *)pool;
#endif
}

/* `asked` rounded up to whole partition alignment (0 if too large). */
static inline size_t sa_partition_round(size_t asked) {
  return (asked + (SA_PARTITION_ALIGN - 1)) & ~(SA_PARTITION_ALIGN - 1);
}

/* Bytes per partition (0 if too large to round). */
static inline size_t sa_partition_size(const scopealloc_pool *pool) {
  return sa_partition_round(
      (size_t)(uintptr_t)SA_LOAD_RELAXED(&pool->unrounded));
}

/* How many partitions a shared pool has (0: not shared). */
static inline size_t sa_partition_count(const scopealloc_pool *pool) {
  size_t size = sa_partition_size(pool);
  if (!sa_pool_is_shared(pool) || !size)
    return 0;
  return (size_t)(pool->reserve_end - pool->base) / size;
}

/* The partitions, or NULL before the first thread used the pool. */
static inline sa_partition *sa_partitions(const scopealloc_pool *pool) {
#if SCOPEALLOC_SINGLE_THREADED
  (void)pool;
  return (sa_partition *)0;
#else
  return (sa_partition *)SA_LOAD(&pool->next_thread_pool);
#endif
}

/* A shared pool's peak: the largest partition's. */
static inline size_t sa_shared_peak(const scopealloc_pool *pool) {
  const sa_partition *parts = sa_partitions(pool);
  size_t peak = 0;
  if (parts)
    for (size_t i = 0, n = sa_partition_count(pool); i < n; i++)
      if (sa_peak(&parts[i].arena) > peak)
        peak = sa_peak(&parts[i].arena);
  return peak;
}

/* Fills a failure for `pool`, counts it and calls the handler; never returns.
 * `caller` is the return address into the code that called the runtime's
 * entry point (__builtin_return_address(0) taken there, passed down). */
SA_HIDDEN SA_COLD SA_NORETURN void
sa_fail(scopealloc_pool *pool, const char *name, const char *reason,
        size_t size, size_t align, const void *mark, const void *caller);

/* Why a bump that did not fit failed: the alignment (not a power of two),
 * or no room. */
static inline const char *sa_bump_failure(size_t align) {
  return (align & (align - 1)) ? SCOPEALLOC_REASON_BAD_ALIGNMENT
                               : SCOPEALLOC_REASON_EXHAUSTED;
}

/* The same for the shared pool `pool`: in partition `part` (counted there),
 * or, when `part` is NULL, for a thread that has none (counted on the pool).
 * Threaded runtimes only. */
SA_HIDDEN SA_COLD SA_NORETURN void
sa_fail_partition(scopealloc_pool *pool, sa_partition *part, const char *reason,
                  size_t size, size_t align, const void *mark,
                  const void *caller);
/* The release the inline range check refused: the NULL ("empty") mark is
 * the pool's base; a mark outside [base, cur] is reported. */
SA_HIDDEN SA_COLD void sa_release_or_fail(scopealloc_pool *pool,
                                          const char *name, void *mark,
                                          const void *caller);
/* Calls the installed handler; aborts (or traps) if it returns. */
SA_HIDDEN SA_COLD SA_NORETURN void sa_report(const scopealloc_failure *f);

#if SCOPEALLOC_SINGLE_THREADED
/* ---- Tasks of an RTOS (bare metal) ----
 * named_pool.c (layer 3) keeps the running task's identity: the word
 * sa_task_id_word points to, sa_task_running (the task scopealloc_task_switch
 * switched in; NULL before) unless scopealloc_task_identity named the RTOS's
 * own. A pool's `owner` is the task whose frames it holds while non-empty. */
extern const void *sa_task_running SA_HIDDEN;
extern const void *const volatile *sa_task_id_word SA_HIDDEN;
static inline const void *sa_task_id(void) { return *sa_task_id_word; }

/* The calling task may take memory from `pool`: it holds the pool's frames,
 * or the pool is empty (it becomes the task's). 0: another task's frames
 * are live there. */
static inline int sa_task_claim(scopealloc_pool *pool) {
  const void *id = sa_task_id();
  if (pool->owner == id)
    return 1;
  if (pool->cur != pool->base)
    return 0;
  pool->owner = id;
  return 1;
}

/* stats.c (layer 2), declared below for every runtime. */
extern int sa_exact_state SA_HIDDEN;

/* The `bound` the inline fast path compares a default-pool frame's end with
 * (abi.h): the high-water mark while each frame it lets through is one
 * __scopealloc_alloc would serve the same way, else NULL (every frame
 * calls). That is, the running task is the switch's (no RTOS identity word:
 * with one, every frame goes through the owner check), it holds the pool's
 * frames (a task that has not claimed the pool, or finds another task's
 * frames there, calls: the owner check then claims or reports), the pool's
 * base is a multiple of 8 (its top then is too, but at the limit, where no
 * frame fits), and exact counts are off. Recomputed by each allocation the
 * runtime serves, each task switch and scopealloc_task_identity. */
static inline char *sa_default_bound(const scopealloc_pool *pool) {
  if ((const void *)sa_task_id_word != (const void *)&sa_task_running ||
      pool->owner != sa_task_running || sa_exact_state > 0 ||
      ((uintptr_t)pool->base & (SA_MIN_ALIGN - 1)))
    return (char *)0;
  return pool->high;
}

/* arena.c: reports a frame taken while another task's are live in `pool`
 * (SCOPEALLOC_REASON_OTHER_TASK; the failure's mark is their top). */
SA_HIDDEN SA_COLD SA_NORETURN void
sa_fail_other_task(scopealloc_pool *pool, const char *name, size_t size,
                   size_t align, const void *caller);

/* Task shares (task_arena.c): a pool's `next_thread_pool` is the share
 * whose state the pool holds (NULL: no task has a share of it), and the
 * pool's shares form a ring through `next`. */
static inline const scopealloc_task_share *
sa_share_loaded(const scopealloc_pool *pool) {
  return (const scopealloc_task_share *)pool->next_thread_pool;
}

/* Adds the figures of a share whose state is `st` (the pool itself if the
 * share is switched in, else a share's saved copy) to *out: current,
 * allocs, failures and capacity summed, peak the largest. Field by field:
 * no struct copy (no memcpy on bare metal) and a small frame, since
 * scopealloc_pool_stats sits in the program's stack chains. */
#define SA_SHARE_ADD(out, st)                                                  \
  do {                                                                         \
    char *from_ = (st)->base + (-(uintptr_t)(st)->base & (SA_MIN_ALIGN - 1));  \
    size_t cur_ = (st)->cur > from_ ? (size_t)((st)->cur - from_) : 0;         \
    size_t peak_ = (st)->high > from_ ? (size_t)((st)->high - from_) : 0;      \
    (out)->current += cur_;                                                    \
    if (peak_ > (out)->peak)                                                   \
      (out)->peak = peak_;                                                     \
    (out)->capacity += (st)->reserve_end > from_                               \
                           ? (size_t)((st)->reserve_end - from_)               \
                           : 0;                                                \
    (out)->allocs += (st)->allocs;                                             \
    (out)->failures += (st)->failures;                                         \
  } while (0)
#endif

/* stats.c (layer 2): whether the default pool counts every allocation
 * (scopealloc_set_exact_stats, SCOPEALLOC_STATS=1). sa_exact_state is 1 or
 * 0, or -1 until sa_exact_stats has read the environment. */
extern int sa_exact_state SA_HIDDEN;
SA_HIDDEN int sa_exact_stats(void);

#if SCOPEALLOC_HOSTED
/* ---- Layer 2: statistics (stats.c, loaded_pools.c) ---- */

/* stats.c: every SCOPEALLOC_* variable is read through sa_getenv, which
 * returns NULL in secure execution (AT_SECURE: setuid, setgid, file
 * capabilities), so a less privileged user cannot steer the runtime of a
 * privileged program. sa_env_flag reads a boolean: 1 for 1/true/yes, 0 for
 * 0/false/no (any case), unset or empty; -1 for anything else. */
SA_HIDDEN const char *sa_getenv(const char *name);
SA_HIDDEN int sa_env_flag(const char *value);

/* The default pool over the whole process, as its layer counts it. */
typedef struct sa_process_totals {
  scopealloc_stats stats;
  uint64_t threads;      /* threads that ever had an arena */
  uint64_t live_threads; /* of which still running */
  uint64_t reservations; /* arenas mapped now (sa_arena_map'ed, not unmapped) */
  uint64_t cached;       /* of which kept for the next threads (no owner) */
} sa_process_totals;
typedef void (*sa_totals_fn)(sa_process_totals *out);
/* The default pool's layer registers its totals before it first serves a
 * request; until then (or without one) the totals are zero. `exact_on` is
 * called when exact counts are turned on (scopealloc_set_exact_stats): it
 * sends every thread's next frame to the slow path. */
SA_HIDDEN void sa_stats_set_default_pool(sa_totals_fn totals,
                                         void (*exact_on)(void));

/* loaded_pools.c, in the shared runtime only: the named pools of every
 * loaded object (a shared runtime has none of its own). */
SA_HIDDEN int sa_loaded_pools(void (*fn)(const scopealloc_pool *pool,
                                         void *ctx),
                              void *ctx) __attribute__((weak));

/* ---- Layer 4: the default pool (thread arena) ---- */

/* runtime_identity.c: the check for a second runtime in the process (see
 * there), run by thread_arena.c when it is loaded. `entry` is
 * __scopealloc_mark as the caller's object is bound to it (a load through
 * the GOT). sa_identity_judge is the policy, apart for tests: `live` says
 * this object's calls reach this copy, `global` which object
 * dlsym(RTLD_DEFAULT) finds the runtime in. */
SA_HIDDEN void sa_identity_check(const void *entry);
typedef enum sa_identity_global {
  SA_GLOBAL_NONE,  /* no runtime in the global scope */
  SA_GLOBAL_OWN,   /* this copy */
  SA_GLOBAL_OTHER, /* a copy in another object */
} sa_identity_global;
typedef enum sa_identity_verdict {
  SA_IDENTITY_OK,
  SA_IDENTITY_PRIVATE_STATIC, /* the static runtime, hidden in a shared object */
  SA_IDENTITY_TWO_RUNTIMES,   /* the program's or shared runtime, and another */
} sa_identity_verdict;
SA_HIDDEN sa_identity_verdict sa_identity_judge(int shared_build,
                                                int own_is_main, int live,
                                                sa_identity_global global);

/* thread_arena.c: the default pool's process totals (registered with
 * statistics; also read directly by white-box tests). */
SA_HIDDEN void sa_process_totals_get(sa_process_totals *out);

/* guard_fault.c (layer 4, below thread_arena.c): the SIGSEGV handler that
 * commits an arena, or reports its exhaustion, when a guarded frame's
 * marker store faults (see guard_fault.c). thread_arena.c hands it what it
 * needs: the calling thread's pool, a commit, a report that does not
 * return, and the size of the guard above every arena. */
typedef struct sa_guard_ops {
  scopealloc_pool *(*pool)(void);
  /* Commits the reservation up to `end`: 0, or -1 (nothing changed). */
  int (*commit)(scopealloc_pool *pool, const char *end);
  void (*fail)(scopealloc_pool *pool, const char *reason, size_t size,
               const void *caller) __attribute__((noreturn));
  size_t guard;
} sa_guard_ops;
/* Once per process, with the first arena; keeps the previous handler, to
 * which every other fault goes. */
SA_HIDDEN void sa_guard_install(const sa_guard_ops *ops);
/* With a thread's arena: an alternate signal stack, unless it has one;
 * `spare` (or NULL: a new one) is what sa_guard_thread_end returned for an
 * earlier thread. Returns 1 if the thread took the spare, 0 if the caller
 * still holds it. */
SA_HIDDEN int sa_guard_thread_start(void *spare);
/* At its exit: takes the stack sa_guard_thread_start gave off the thread
 * and returns it (NULL: none), for the next thread or for
 * sa_guard_altstack_free. */
SA_HIDDEN void *sa_guard_thread_end(void);
SA_HIDDEN void sa_guard_altstack_free(void *stack);

/* thread_arena.c: the peak of a default-pool arena (a thread's or a
 * fiber's, any thread may ask): `high`, or the highest marker a guarded
 * frame left above it, whichever is higher. Reads at most what a cached
 * arena keeps resident, and beyond it only the pages that are resident
 * (mincore): a guarded frame's marker is a write, so a page never written
 * holds none, and reading it would only map the zero page there. */
SA_HIDDEN size_t sa_arena_peak(const scopealloc_pool *pool);

/* thread_arena.c: the reservation behind a default-pool arena (a thread's,
 * or a fiber's). sa_arena_map reserves `cap` bytes (a whole number of pages;
 * 0 means the per-thread cap: SCOPEALLOC_RESERVE or the default) of address space,
 * commits the first step and fills pool->base, cur, high, limit and
 * reserve_end (name, counters and lists are the caller's); tools are told.
 * Returns 0, or -1 with errno set when the system refuses. sa_arena_unmap
 * returns all of it; the pool's fields are left for the caller to clear. */
SA_HIDDEN int sa_arena_map(scopealloc_pool *pool, size_t cap);
SA_HIDDEN void sa_arena_unmap(scopealloc_pool *pool);

/* thread_arena.c: the lock over the threads' list and the process totals,
 * which fiber.c also holds while it switches a thread's arena. */
SA_HIDDEN void sa_threads_lock(void);
SA_HIDDEN void sa_threads_unlock(void);

/* fiber.c, above thread_arena.c, registers these when it creates its first
 * arena (before that no thread can have one switched in): called at thread
 * exit before the thread's own arena goes (switches a fiber arena out); in
 * sa_process_totals_get under the lock (adds the fiber arenas and parked
 * thread arenas); first thing in the fork child handler (parks the arenas
 * of threads that did not survive, giving them back their own). */
typedef struct sa_fiber_hooks {
  void (*thread_exit)(void);
  void (*totals_add)(scopealloc_stats *s);
  void (*after_fork_child)(void);
  /* In a thread's first-allocation path, before it makes the thread's own
   * arena: maps a fiber arena switched in unmapped (0: none is switched
   * in; 1: mapped; -1: the system refused). */
  int (*map_switched_in)(void);
} sa_fiber_hooks;
SA_HIDDEN void sa_thread_arena_set_fiber_hooks(const sa_fiber_hooks *hooks);

/* fiber.c, for ucontext.c (the shared runtime's interposition of
 * makecontext, getcontext, swapcontext and setcontext): the table from a
 * ucontext_t to the arena its code runs on. `ucp` is a ucontext_t *.
 *  sa_context_make     makecontext: a new arena (mapped at its first
 *                      allocation) for the context; `start` (malloc'ed,
 *                      or NULL) is freed if the context is overwritten
 *                      before it starts.
 *  sa_context_started  the made context's first instruction: frees start.
 *  sa_context_saved    getcontext: resuming `ucp` returns to the current
 *                      arena.
 *  sa_context_switch   swapcontext (save: oucp) and setcontext (save:
 *                      NULL): associates `save` with the current arena and
 *                      switches to `to`'s; returns the arena left, for
 *                      sa_context_restore should the switch fail.
 *  sa_context_finish   a made context's function returned: it is done, and
 *                      glibc resumes `link` (uc_link; NULL: none). */
SA_HIDDEN void sa_context_make(const void *ucp, void *start);
SA_HIDDEN void sa_context_started(const void *ucp, void *start);
SA_HIDDEN void sa_context_saved(const void *ucp);
SA_HIDDEN scopealloc_arena *sa_context_switch(const void *save, const void *to,
                                              const void *caller);
SA_HIDDEN void sa_context_restore(scopealloc_arena *prev, const void *caller);
SA_HIDDEN void sa_context_finish(const void *made, const void *link,
                                 const void *caller);
#endif

#endif /* SCOPEALLOC_INTERNAL_H */
