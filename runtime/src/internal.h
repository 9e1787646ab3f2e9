/* Private to the runtime: configuration, the bump/release fast paths shared by
 * the default and the named pools, and the ASan hooks. */
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

/* Shared words (handler, pool owner): atomic when threads exist; plain when
 * not, so small cores without atomic instructions need no libatomic. */
#if SCOPEALLOC_SINGLE_THREADED
#define SA_LOAD(p) (*(p))
#define SA_LOAD_RELAXED(p) (*(p))
#define SA_STORE(p, v) ((void)(*(p) = (v)))
#else
#define SA_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define SA_LOAD_RELAXED(p) __atomic_load_n((p), __ATOMIC_RELAXED) /* a mov */
#define SA_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#endif

#define SA_HIDDEN __attribute__((visibility("hidden")))
#define SA_COLD __attribute__((noinline, cold))
#define SA_NORETURN __attribute__((noreturn))
#define SA_LIKELY(x) __builtin_expect(!!(x), 1)
#define SA_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Every allocation starts at least this aligned: it is ASan's shadow granule,
 * so two allocations never share the head of a granule and poisoning one
 * cannot hide or expose the other. */
#define SA_MIN_ALIGN 8

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
/* Out of line so that the fast paths stay leaf-like without ASan. */
static SA_COLD void sa_asan_alloc(const void *cur, size_t pad, const void *p,
                                  size_t size) {
  sa_poison(cur, pad); /* alignment padding */
  sa_unpoison(p, size);
}
static SA_COLD void sa_asan_release(const void *mark, size_t size) {
  sa_poison(mark, size);
}

/* Fast path, a handful of instructions: align cur, check the fit without
 * overflow (cur <= limit always holds), bump, count. Fails (returns 0) on a
 * non-power-of-two alignment or when [cur, limit) is too small; the caller's
 * cold path decides whether to grow or report. */
static inline int sa_bump(scopealloc_pool *pool, size_t size, size_t align,
                          void **out) {
  uintptr_t cur = (uintptr_t)pool->cur;
  uintptr_t room = (uintptr_t)pool->limit - cur;
  uintptr_t mask = align > SA_MIN_ALIGN ? align - 1 : SA_MIN_ALIGN - 1;
  uintptr_t pad = -cur & mask;
  if (SA_UNLIKELY((align & (align - 1)) | (pad > room) | (size > room - pad)))
    return 0;
  char *p = (char *)(cur + pad);
  pool->cur = p + size;
  if (pool->cur > pool->high)
    pool->high = pool->cur;
  pool->allocs++;
  if (SA_UNLIKELY(__asan_unpoison_memory_region != 0))
    sa_asan_alloc((const void *)cur, pad, p, size);
  *out = p;
  return 1;
}

/* Fast path: one unsigned compare covers both mark < base and mark > cur. */
static inline int sa_release(scopealloc_pool *pool, void *mark) {
  uintptr_t base = (uintptr_t)pool->base;
  uintptr_t cur = (uintptr_t)pool->cur;
  if (SA_UNLIKELY((uintptr_t)mark - base > cur - base))
    return 0;
  if (SA_UNLIKELY(__asan_poison_memory_region != 0))
    sa_asan_release(mark, cur - (uintptr_t)mark);
  pool->cur = (char *)mark;
  return 1;
}

/* Most bytes the pool has held at once. */
static inline size_t sa_peak(const scopealloc_pool *pool) {
  return pool->high ? (size_t)(pool->high - pool->base) : 0;
}

/* Fills a failure for `pool`, counts it and calls the handler; never returns. */
SA_HIDDEN SA_COLD SA_NORETURN void
sa_fail(scopealloc_pool *pool, const char *name, const char *reason,
        size_t size, size_t align, const void *mark);
/* Calls the installed handler; aborts (or traps) if it returns. */
SA_HIDDEN SA_COLD SA_NORETURN void sa_report(const scopealloc_failure *f);

#if SCOPEALLOC_HOSTED
/* Default-pool bookkeeping kept by thread_arena.c for stats.c. */
typedef struct sa_process_totals {
  scopealloc_stats stats;
  uint64_t threads;      /* threads that ever had an arena */
  uint64_t live_threads; /* of which still running */
} sa_process_totals;
SA_HIDDEN void sa_process_totals_get(sa_process_totals *out);

/* Referenced from every hosted object so that linking any part of the
 * runtime also links stats.c and its SCOPEALLOC_STATS constructor. */
extern const char sa_stats_anchor SA_HIDDEN;
#define SA_PULL_IN_STATS()                                                     \
  __attribute__((used)) static const char *const sa_pull_stats = &sa_stats_anchor
#else
#define SA_PULL_IN_STATS() typedef int sa_no_stats_pull
#endif

#endif /* SCOPEALLOC_INTERNAL_H */
