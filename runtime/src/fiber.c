/* Fiber arenas: a default-pool arena per fiber or coroutine stack, switched
 * into the thread's pool, hosted only.
 *
 * The inline fast path reads and writes the thread's __scopealloc_tls_pool
 * directly, so an arena cannot be switched by pointer: switching copies the
 * state of the arena being left out of the TLS pool into its parking place
 * (the arena object, or `sa_home` for the thread's own arena) and copies the
 * target's state in. Every arena's statistics travel with it; the TLS pool's
 * `next_thread_pool` link stays put.
 *
 * Switches, creation, destruction and the statistics walk all hold the
 * threads lock of thread_arena.c (sa_threads_lock), so a reader in another
 * thread never sees a TLS pool half copied, and fork finds the arena list
 * whole. thread_arena.c does not reference this file: the first arena
 * created registers the hooks (sa_fiber_hooks) it calls at thread exit, in
 * the process totals and in the fork child. */
#define _GNU_SOURCE 1
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(SCOPEALLOC_HAVE_VALGRIND) && SCOPEALLOC_HAVE_VALGRIND
#include <valgrind/memcheck.h>
#define SA_VALGRIND 1
#else
#define SA_VALGRIND 0
#endif

struct scopealloc_arena {
  scopealloc_pool pool;  /* the arena's state while parked; stale while in */
  scopealloc_pool *tls;  /* the thread pool it is switched into, or NULL */
  scopealloc_pool *home; /* that thread's own arena, parked meanwhile */
  struct scopealloc_arena *prev, *next; /* sa_arenas */
  char name[32];                        /* "workspace/fiber<N>" */
};

/* The thread's own arena while a fiber arena is switched in, and which one
 * is (NULL: the thread's own). */
static __thread scopealloc_pool sa_home;
static __thread scopealloc_arena *sa_current;

/* Under the threads lock: every arena, and what destroyed ones counted. */
static scopealloc_arena *sa_arenas;
static uint64_t sa_gone_allocs, sa_gone_failures;
static size_t sa_gone_peak;
static uint64_t sa_arena_count; /* names the arenas; atomic */

static pthread_once_t sa_fiber_once = PTHREAD_ONCE_INIT;
static pthread_key_t sa_fiber_key;
static int sa_fiber_key_made, sa_fiber_unloaded;

static void sa_fiber_thread_exit(void);
static void sa_fiber_totals_add(scopealloc_stats *s);
static void sa_fiber_after_fork_child(void);
static const sa_fiber_hooks sa_fiber_hooks_impl = {
    sa_fiber_thread_exit, sa_fiber_totals_add, sa_fiber_after_fork_child};

/* A thread that exits with a fiber arena switched in leaves it parked as it
 * is (its own arena is then unmapped by thread_arena.c). */
static void sa_fiber_key_destroy(void *arg) {
  (void)arg;
  sa_fiber_thread_exit();
}

static void sa_fiber_init(void) {
  if (pthread_key_create(&sa_fiber_key, sa_fiber_key_destroy) != 0) {
    fprintf(stderr, "scopealloc: pthread_key_create failed\n");
    abort();
  }
  SA_STORE(&sa_fiber_key_made, 1);
  sa_thread_arena_set_fiber_hooks(&sa_fiber_hooks_impl);
}

/* Unload (dlclose) or exit: like thread_arena.c's key, so that threads
 * ending later call no destructor that may be unmapped by then (their fiber
 * arenas then stay as they are). */
__attribute__((destructor)) static void sa_fiber_unload(void) {
  SA_STORE(&sa_fiber_unloaded, 1);
  if (SA_LOAD(&sa_fiber_key_made))
    pthread_key_delete(sa_fiber_key);
}

/* Copies an arena's state, leaving the destination's list link alone. */
static void sa_pool_move(scopealloc_pool *to, const scopealloc_pool *from) {
  scopealloc_pool *link = to->next_thread_pool;
  *to = *from;
  to->next_thread_pool = link;
}

static void sa_stats_add(scopealloc_stats *s, const scopealloc_pool *p) {
  s->current += (size_t)(SA_LOAD_RELAXED(&p->cur) - p->base);
  if (sa_peak(p) > s->peak)
    s->peak = sa_peak(p);
  s->allocs += SA_COUNT_LOAD(&p->allocs);
  s->failures += SA_COUNT_LOAD(&p->failures);
}

/* Memcheck keys a mempool by the pool's address: move it with the state. */
static void sa_valgrind_move(scopealloc_pool *to, scopealloc_pool *from) {
#if SA_VALGRIND
  if ((sa_hooked() & SA_HOOK_VALGRIND) && VALGRIND_MEMPOOL_EXISTS(from))
    VALGRIND_MOVE_MEMPOOL(from, to);
#else
  (void)to;
  (void)from;
#endif
}

/* Reports a misuse of `a` (in use elsewhere, destroyed while in use or not
 * empty) through the handler, with a copy of its state: the failure is the
 * caller's, not a request the arena could not serve, so it is not counted. */
static SA_NORETURN void sa_arena_misuse(scopealloc_arena *a, const char *reason,
                                        const void *caller) {
  scopealloc_pool state = a->tls ? *a->tls : a->pool;
  sa_threads_unlock();
  sa_fail(&state, a->name, reason, 0, 0, 0, caller);
}

scopealloc_arena *scopealloc_arena_create(size_t cap) {
  pthread_once(&sa_fiber_once, sa_fiber_init);
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t rounded = cap ? (cap + page - 1) / page * page : 0;
  if (cap && rounded < cap) {
    errno = ENOMEM;
    return NULL;
  }
  scopealloc_arena *a = (scopealloc_arena *)calloc(1, sizeof *a);
  if (!a)
    return NULL;
  if (sa_arena_map(&a->pool, rounded) != 0) {
    int err = errno;
    free(a);
    errno = err;
    return NULL;
  }
  snprintf(a->name, sizeof a->name, "workspace/fiber%llu",
           (unsigned long long)__atomic_add_fetch(&sa_arena_count, 1,
                                                  __ATOMIC_RELAXED));
  a->pool.name = a->name;
  sa_threads_lock();
  a->next = sa_arenas;
  if (sa_arenas)
    sa_arenas->prev = a;
  sa_arenas = a;
  sa_threads_unlock();
  return a;
}

/* Under the threads lock: park the calling thread's current arena and
 * switch `to` in (NULL: the thread's own). */
static void sa_switch_locked(scopealloc_arena *to) {
  scopealloc_pool *tls = &__scopealloc_tls_pool;
  scopealloc_arena *from = sa_current;
  scopealloc_pool *park = from ? &from->pool : &sa_home;
  sa_pool_move(park, tls);
  sa_valgrind_move(park, tls);
  if (from)
    from->tls = from->home = NULL;
  scopealloc_pool *load = to ? &to->pool : &sa_home;
  sa_valgrind_move(tls, load);
  sa_pool_move(tls, load);
  /* Exact counts turned on while it was parked (sa_exact_on reaches only
   * the threads' pools): its frames go to the slow path from now on. */
  if (SA_LOAD_RELAXED(&tls->bound) && sa_exact_stats())
    SA_STORE_RELAXED(&tls->bound, NULL);
  if (to) {
    to->tls = tls;
    to->home = &sa_home;
  }
  sa_current = to;
}

scopealloc_arena *scopealloc_arena_switch(scopealloc_arena *to) {
  scopealloc_arena *from = sa_current;
  if (to == from)
    return from;
  /* Leaving the thread's own arena: see to it at thread exit. */
  if (!from && !SA_LOAD(&sa_fiber_unloaded))
    pthread_setspecific(sa_fiber_key, (void *)1);
  sa_threads_lock();
  if (to && to->tls) /* switched in by another thread */
    sa_arena_misuse(to, SCOPEALLOC_REASON_IN_USE, __builtin_return_address(0));
  sa_switch_locked(to);
  sa_threads_unlock();
  return from;
}

scopealloc_arena *scopealloc_arena_current(void) { return sa_current; }

void scopealloc_arena_destroy(scopealloc_arena *a) {
  if (!a)
    return;
  sa_threads_lock();
  if (a->tls)
    sa_arena_misuse(a, SCOPEALLOC_REASON_ARENA_CURRENT,
                    __builtin_return_address(0));
  if (a->pool.cur != a->pool.base)
    sa_arena_misuse(a, SCOPEALLOC_REASON_ARENA_NOT_EMPTY,
                    __builtin_return_address(0));
  if (a->prev)
    a->prev->next = a->next;
  else
    sa_arenas = a->next;
  if (a->next)
    a->next->prev = a->prev;
  sa_gone_allocs += a->pool.allocs;
  sa_gone_failures += a->pool.failures;
  if (sa_peak(&a->pool) > sa_gone_peak)
    sa_gone_peak = sa_peak(&a->pool);
  sa_threads_unlock();
  sa_arena_unmap(&a->pool);
  free(a);
}

void scopealloc_arena_stats(const scopealloc_arena *a, scopealloc_stats *out) {
  sa_threads_lock();
  const scopealloc_pool *p = a->tls ? a->tls : &a->pool;
  out->name = a->name;
  out->current = 0;
  out->peak = 0;
  out->allocs = 0;
  out->failures = 0;
  sa_stats_add(out, p);
  out->capacity = (size_t)(p->reserve_end - p->base);
  sa_threads_unlock();
}

static void sa_fiber_thread_exit(void) {
  if (!sa_current)
    return;
  sa_threads_lock();
  sa_switch_locked(NULL);
  sa_threads_unlock();
}

/* The threads' walk in sa_process_totals_get counts what each thread's TLS
 * pool holds now, a fiber arena or the thread's own; add the arenas parked
 * elsewhere, each once. */
static void sa_fiber_totals_add(scopealloc_stats *s) {
  s->allocs += sa_gone_allocs;
  s->failures += sa_gone_failures;
  if (sa_gone_peak > s->peak)
    s->peak = sa_gone_peak;
  for (const scopealloc_arena *a = sa_arenas; a; a = a->next) {
    if (!a->tls)
      sa_stats_add(s, &a->pool);
    else if (a->home->base) /* the thread's own arena, parked */
      sa_stats_add(s, a->home);
    else /* a thread without an arena of its own is not in the walk */
      sa_stats_add(s, a->tls);
  }
}

/* fork: only the forking thread survives. A fiber arena another thread had
 * switched in was running code the child does not have: park it empty, and
 * put that thread's own arena back into its TLS pool, where thread_arena.c
 * returns it like any dead thread's. */
static void sa_fiber_after_fork_child(void) {
  scopealloc_pool *self = &__scopealloc_tls_pool;
  for (scopealloc_arena *a = sa_arenas; a; a = a->next) {
    if (!a->tls || a->tls == self)
      continue;
    sa_pool_move(&a->pool, a->tls);
    sa_pool_move(a->tls, a->home);
    a->tls = a->home = NULL;
    if (sa_hooked())
      sa_hook_release(&a->pool, a->pool.base,
                      (size_t)(a->pool.cur - a->pool.base));
    a->pool.cur = a->pool.base;
  }
}
