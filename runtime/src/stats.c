/* Statistics: per-pool getters and the list of named pools
 * (freestanding-capable); hosted, the default pool's process totals as its
 * layer registers them, the table printer and SCOPEALLOC_STATS=1 at exit.
 * Every layer that serves requests references this file, so the table is
 * printed at exit whichever of them a static program links. */
#define _GNU_SOURCE 1 /* secure_getenv */
#include "internal.h"
#include "msan_hooks.h"

#if SCOPEALLOC_HOSTED
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#endif

/* Bounds of the linker section holding a pointer to every named pool of this
 * link unit; weak, so a program without named pools links too. */
extern scopealloc_pool *const __start_scopealloc_pools[]
    __attribute__((weak, visibility("hidden")));
extern scopealloc_pool *const __stop_scopealloc_pools[]
    __attribute__((weak, visibility("hidden")));

/* One arena's figures (a pool, or a partition of a shared one). */
static void sa_arena_stats(const scopealloc_pool *pool, scopealloc_stats *out) {
  /* Relaxed loads: another thread may be using the pool. */
  out->name = pool->name;
  out->current = sa_used_to(pool, sa_counted_top(pool));
  out->peak = sa_peak(pool);
  out->capacity = sa_usable_capacity(pool);
  out->allocs = SA_COUNT_LOAD(&pool->allocs);
  out->failures = SA_COUNT_LOAD(&pool->failures);
}

void scopealloc_pool_stats(const scopealloc_pool *pool, scopealloc_stats *out) {
  sa_arena_stats(pool, out);
  /* A shared pool: its own counts are the threads refused a partition. */
  const sa_partition *parts = sa_partitions(pool);
  if (parts && sa_pool_is_shared(pool))
    for (size_t i = 0, n = sa_partition_count(pool); i < n; i++) {
      scopealloc_stats p;
      sa_arena_stats(&parts[i].arena, &p);
      out->current += p.current;
      if (p.peak > out->peak)
        out->peak = p.peak;
      out->allocs += p.allocs;
      out->failures += p.failures;
    }
#if SCOPEALLOC_SINGLE_THREADED
  /* A pool whose state tasks switch (task_arena.c): its shares, the
   * start-up context's and every task's, like a shared pool's partitions;
   * the capacity is theirs together. */
  const scopealloc_task_share *first = sa_share_loaded(pool);
  if (first) {
    out->current = out->peak = out->capacity = 0;
    out->allocs = out->failures = 0;
    SA_SHARE_ADD(out, pool); /* `first`, switched in */
    for (const scopealloc_task_share *s = first->next; s && s != first;
         s = s->next)
      SA_SHARE_ADD(out, s);
  }
#endif
  sa_msan_written(out, sizeof *out);
}

size_t scopealloc_pool_partitions(const scopealloc_pool *pool,
                                  size_t *partition_bytes) {
  size_t count = sa_partition_count(pool);
  if (partition_bytes)
    *partition_bytes = count ? sa_partition_size(pool) : 0;
  return count;
}

int scopealloc_pool_partition_stats(const scopealloc_pool *pool, size_t index,
                                    scopealloc_stats *out) {
  size_t count = sa_partition_count(pool);
  if (index >= count)
    return -1;
  const sa_partition *parts = sa_partitions(pool);
  if (parts) {
    sa_arena_stats(&parts[index].arena, out);
  } else { /* no thread has used the pool yet */
    out->name = pool->name;
    out->current = out->peak = 0;
    out->capacity = sa_partition_size(pool);
    out->allocs = out->failures = 0;
  }
  sa_msan_written(out, sizeof *out);
  return 0;
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

const char *sa_getenv(const char *name) {
  /* secure_getenv: in a setuid/setgid or capability program (AT_SECURE)
   * the environment belongs to a less privileged user; ignore it. */
  return secure_getenv(name);
}

int sa_env_flag(const char *value) {
  static const char *const off[] = {"0", "false", "no"};
  static const char *const on[] = {"1", "true", "yes"};
  if (!value || !*value)
    return 0;
  for (size_t i = 0; i < sizeof off / sizeof *off; i++) {
    if (strcasecmp(value, off[i]) == 0)
      return 0;
    if (strcasecmp(value, on[i]) == 0)
      return 1;
  }
  return -1;
}

static int sa_stats_env(void) {
  const char *env = sa_getenv("SCOPEALLOC_STATS");
  int flag = sa_env_flag(env);
  if (flag < 0) {
    /* Read by the constructor and by the first exact-stats query: say it once.
     */
    static int warned;
    if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
      fprintf(stderr,
              "scopealloc: ignoring SCOPEALLOC_STATS='%s': expected 0, 1, "
              "false, true, no or yes; statistics stay off\n",
              env);
    flag = 0;
  }
  return flag;
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

/* A shared pool's partition row: "  <pool>[<index>]", below the pool's. */
static int sa_partition_label(char *buf, size_t size, const char *name,
                              size_t index) {
  return snprintf(buf, size, "  %s[%zu]", name ? name : "(unnamed)", index);
}

static void sa_name_width(const scopealloc_pool *pool, void *ctx) {
  int *width = (int *)ctx;
  int n = (int)strlen(pool->name ? pool->name : "");
  size_t count = sa_partition_count(pool);
  if (count) {
    char label[32];
    int m = sa_partition_label(label, sizeof label, pool->name, count - 1);
    if (m > n)
      n = m;
  }
  if (n > *width)
    *width = n;
}

static void sa_print_labelled(const char *label, const scopealloc_stats *s,
                              int width) {
  fprintf(stderr, "  %-*s %14zu %14zu %14zu %12llu %9llu\n", width, label,
          s->current, s->peak, s->capacity, (unsigned long long)s->allocs,
          (unsigned long long)s->failures);
}

static void sa_print_row(const scopealloc_stats *s, int width) {
  sa_print_labelled(s->name ? s->name : "(unnamed)", s, width);
}

/* A shared pool's row sums its partitions; below it, a row for each
 * partition a thread has used (an idle one adds nothing to read). */
static void sa_print_pool(const scopealloc_pool *pool, void *ctx) {
  int width = *(int *)ctx;
  scopealloc_stats s;
  scopealloc_pool_stats(pool, &s);
  sa_print_row(&s, width);
  for (size_t i = 0, n = sa_partition_count(pool); i < n; i++) {
    scopealloc_stats p;
    scopealloc_pool_partition_stats(pool, i, &p);
    if (!p.allocs && !p.failures && !p.current)
      continue;
    char label[256];
    sa_partition_label(label, sizeof label, pool->name, i);
    sa_print_labelled(label, &p, width);
  }
}

/* The footnote of each shared pool. */
static void sa_print_pool_note(const scopealloc_pool *pool, void *ctx) {
  (void)ctx;
  size_t bytes, count = scopealloc_pool_partitions(pool, &bytes);
  if (!count)
    return;
  size_t used = 0;
  for (size_t i = 0; i < count; i++) {
    scopealloc_stats p;
    scopealloc_pool_partition_stats(pool, i, &p);
    used += p.allocs || p.failures || p.current;
  }
  fprintf(stderr,
          "  (%s: shared, %zu partitions of %zu bytes, %zu used; "
          "current/allocs/failures summed, peak = largest partition peak, "
          "capacity of the whole pool)\n",
          pool->name ? pool->name : "(unnamed)", count, bytes, used);
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
  scopealloc_for_each_pool(sa_print_pool_note, 0);
}

static void sa_print_stats_at_exit(void) { scopealloc_print_stats(); }

__attribute__((constructor)) static void sa_stats_init(void) {
  if (sa_stats_env())
    atexit(sa_print_stats_at_exit);
}
#endif
