/* Statistics: per-pool getters and the list of named pools
 * (freestanding-capable); hosted, the default pool's process totals as its
 * layer registers them, the table printer and SCOPEALLOC_STATS=1 at exit.
 * Every layer that serves requests references this file, so the table is
 * printed at exit whichever of them a static program links. */
#include "internal.h"
#include "msan_hooks.h"

#if SCOPEALLOC_HOSTED
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#endif

/* Bounds of the linker section holding a pointer to every named pool of this
 * link unit; weak, so a program without named pools links too. */
extern scopealloc_pool *const __start_scopealloc_pools[]
    __attribute__((weak, visibility("hidden")));
extern scopealloc_pool *const __stop_scopealloc_pools[]
    __attribute__((weak, visibility("hidden")));

void scopealloc_pool_stats(const scopealloc_pool *pool, scopealloc_stats *out) {
  /* Relaxed loads: another thread may be using the pool. */
  out->name = pool->name;
  out->current = (size_t)(SA_LOAD_RELAXED(&pool->cur) - pool->base);
  out->peak = sa_peak(pool);
  out->capacity = (size_t)(pool->reserve_end - pool->base);
  out->allocs = SA_COUNT_LOAD(&pool->allocs);
  out->failures = SA_COUNT_LOAD(&pool->failures);
  sa_msan_written(out, sizeof *out);
}

int scopealloc_for_each_pool(void (*fn)(const scopealloc_pool *pool, void *ctx),
                             void *ctx) {
  int n = 0;
#if SCOPEALLOC_HOSTED
  if (sa_loaded_pools) /* the shared runtime */
    return sa_loaded_pools(fn, ctx);
#endif
  if (!__start_scopealloc_pools || !__stop_scopealloc_pools)
    return 0;
  for (scopealloc_pool *const *p = __start_scopealloc_pools;
       p < __stop_scopealloc_pools; p++)
    if (*p) {
      if (fn)
        fn(*p, ctx);
      n++;
    }
  return n;
}

/* Exact counts of the default pool (scopealloc_set_exact_stats): -1 until
 * SCOPEALLOC_STATS has been read. */
#if SCOPEALLOC_HOSTED
int sa_exact_state = -1;
static void (*sa_default_pool_exact_on)(void);

static int sa_stats_env(void) {
  const char *env = getenv("SCOPEALLOC_STATS");
  return env && *env && strcmp(env, "0") != 0;
}
#else
int sa_exact_state = 0;
#endif

int sa_exact_stats(void) {
  int exact = SA_LOAD_RELAXED(&sa_exact_state);
#if SCOPEALLOC_HOSTED
  if (SA_UNLIKELY(exact < 0)) {
    int unread = -1;
    exact = sa_stats_env();
    /* A concurrent scopealloc_set_exact_stats wins. */
    if (!__atomic_compare_exchange_n(&sa_exact_state, &unread, exact, 0,
                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      exact = unread;
  }
#endif
  return exact;
}

int scopealloc_set_exact_stats(int exact) {
  int old = sa_exact_stats();
  exact = exact != 0;
#if SCOPEALLOC_SINGLE_THREADED
  sa_exact_state = exact;
#else
  __atomic_store_n(&sa_exact_state, exact, __ATOMIC_SEQ_CST);
#endif
#if SCOPEALLOC_HOSTED
  /* The threads' fast paths see the flag only in their slow paths: send
   * them there. Turning it off needs nothing: a slow path that finds it off
   * opens the fast path again. */
  void (*on)(void) = SA_LOAD(&sa_default_pool_exact_on);
  if (exact && on)
    on();
#endif
  return old;
}

#if SCOPEALLOC_HOSTED
static sa_totals_fn sa_default_pool_totals;

void sa_stats_set_default_pool(sa_totals_fn totals, void (*exact_on)(void)) {
  SA_STORE(&sa_default_pool_exact_on, exact_on);
  SA_STORE(&sa_default_pool_totals, totals);
}

/* The default pool's totals; zero while no default pool has served. */
static void sa_totals(sa_process_totals *out) {
  sa_totals_fn totals = SA_LOAD(&sa_default_pool_totals);
  if (totals) {
    totals(out);
    return;
  }
  memset(out, 0, sizeof *out);
  out->stats.name = "workspace";
}

void scopealloc_process_stats(scopealloc_stats *out) {
  sa_process_totals t;
  sa_totals(&t);
  *out = t.stats;
  sa_msan_written(out, sizeof *out);
}

static void sa_name_width(const scopealloc_pool *pool, void *ctx) {
  int *width = (int *)ctx;
  int n = (int)strlen(pool->name ? pool->name : "");
  if (n > *width)
    *width = n;
}

static void sa_print_row(const scopealloc_stats *s, int width) {
  fprintf(stderr, "  %-*s %14zu %14zu %14zu %12llu %9llu\n", width,
          s->name ? s->name : "(unnamed)", s->current, s->peak, s->capacity,
          (unsigned long long)s->allocs, (unsigned long long)s->failures);
}

static void sa_print_pool(const scopealloc_pool *pool, void *ctx) {
  scopealloc_stats s;
  scopealloc_pool_stats(pool, &s);
  sa_print_row(&s, *(int *)ctx);
}

void scopealloc_print_stats(void) {
  sa_process_totals t;
  sa_totals(&t);
  int width = 9; /* "workspace" */
  scopealloc_for_each_pool(sa_name_width, &width);
  fprintf(stderr, "scopealloc statistics (bytes):\n");
  fprintf(stderr, "  %-*s %14s %14s %14s %12s %9s\n", width, "pool", "current",
          "peak", "capacity", "allocs", "failures");
  sa_print_row(&t.stats, width);
  scopealloc_for_each_pool(sa_print_pool, &width);
  fprintf(stderr,
          "  (workspace: default pool of %llu thread(s), %llu running; "
          "current/allocs/failures summed, peak = largest thread peak, "
          "capacity per thread)\n",
          (unsigned long long)t.threads, (unsigned long long)t.live_threads);
}

static void sa_print_stats_at_exit(void) { scopealloc_print_stats(); }

__attribute__((constructor)) static void sa_stats_init(void) {
  if (sa_stats_env())
    atexit(sa_print_stats_at_exit);
}
#endif
