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
 * the process totals and in the fork child.
 *
 * The shared runtime also gives every ucontext context an arena of its own
 * without the program's help: ucontext.c interposes makecontext, getcontext,
 * swapcontext and setcontext and calls the sa_context_* functions below,
 * which keep a table from ucontext_t addresses to the arena that context
 * runs on ("implicit" arenas, made here, mapped at their first allocation).
 *
 * Arena headers are never returned to malloc: a destroyed one keeps its
 * name and a DEAD state word and waits in a quarantine behind
 * SA_QUARANTINE newer ones before it is reused, so destroying or switching
 * to it again is reported instead of reading freed memory. */
#define _GNU_SOURCE 1
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(SCOPEALLOC_HAVE_VALGRIND) && SCOPEALLOC_HAVE_VALGRIND
#include <valgrind/memcheck.h>
#define SA_VALGRIND 1
#else
#define SA_VALGRIND 0
#endif

/* State words: a header of a live arena, of a destroyed one. */
#define SA_ARENA_LIVE 0x4c495645u
#define SA_ARENA_DEAD 0x44454144u
/* Destroyed headers reused only behind this many newer ones. */
#define SA_QUARANTINE 64

struct scopealloc_arena {
  scopealloc_pool pool;  /* the arena's state while parked; stale while in */
  scopealloc_pool *tls;  /* the thread pool it is switched into, or NULL */
  scopealloc_pool *home; /* that thread's own arena, parked meanwhile */
  struct scopealloc_arena *prev, *next; /* sa_arenas; next: quarantine */
  unsigned state;                       /* SA_ARENA_LIVE or _DEAD */
  unsigned implicit;                    /* made for a ucontext */
  size_t refs; /* implicit: table entries that resume into it */
  char name[32]; /* "workspace/fiber<N>", "workspace/ucontext<N>" */
};

/* The thread's own arena while a fiber arena is switched in, and which one
 * is (NULL: the thread's own). sa_api_switched: the program switched with
 * scopealloc_arena_switch since the last context switch, so the next one
 * keeps the arena it chose. */
static __thread scopealloc_pool sa_home;
static __thread scopealloc_arena *sa_current;
static __thread unsigned char sa_api_switched;

/* Under the threads lock: every arena, what destroyed ones counted, and
 * the quarantine of destroyed headers (oldest first). */
static scopealloc_arena *sa_arenas;
static uint64_t sa_gone_allocs, sa_gone_failures;
static size_t sa_gone_peak;
static scopealloc_arena *sa_dead_head, *sa_dead_tail;
static size_t sa_dead_count;
static uint64_t sa_arena_count, sa_context_count; /* name arenas; atomic */

static pthread_once_t sa_fiber_once = PTHREAD_ONCE_INIT;
static pthread_key_t sa_fiber_key;
static int sa_fiber_key_made, sa_fiber_unloaded;

static void sa_fiber_thread_exit(void);
static void sa_fiber_totals_add(scopealloc_stats *s);
static void sa_fiber_after_fork_child(void);
static int sa_fiber_map_switched_in(void);
static const sa_fiber_hooks sa_fiber_hooks_impl = {
    sa_fiber_thread_exit, sa_fiber_totals_add, sa_fiber_after_fork_child,
    sa_fiber_map_switched_in};

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
  s->current += (size_t)(sa_counted_top(p) - p->base);
  size_t peak = sa_arena_peak(p);
  if (peak > s->peak)
    s->peak = peak;
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
 * empty, destroyed already) through the handler, with a copy of its state:
 * the failure is the caller's, not a request the arena could not serve, so
 * it is not counted. Called with the threads lock held; releases it. */
static SA_NORETURN void sa_arena_misuse(scopealloc_arena *a, const char *reason,
                                        const void *caller) {
  scopealloc_pool state = a->tls ? *a->tls : a->pool;
  sa_threads_unlock();
  sa_fail(&state, a->name, reason, 0, 0, 0, caller);
}

/* Under the threads lock: reports `a` unless it is a live arena. A header
 * of a destroyed arena is still readable (never freed), and names it; any
 * other word there is not an arena of ours. */
static void sa_arena_check(scopealloc_arena *a, const void *caller) {
  if (SA_LIKELY(a->state == SA_ARENA_LIVE))
    return;
  if (a->state == SA_ARENA_DEAD)
    sa_arena_misuse(a, SCOPEALLOC_REASON_ARENA_DESTROYED, caller);
  scopealloc_pool none;
  memset(&none, 0, sizeof none);
  sa_threads_unlock();
  sa_fail(&none, "(not an arena)", SCOPEALLOC_REASON_ARENA_DESTROYED, 0, 0, 0,
          caller);
}

/* Under the threads lock: a zeroed header, listed and live. A quarantined
 * one is reused only once SA_QUARANTINE newer ones are dead; headers are
 * never freed. NULL if there is no memory for one. */
static scopealloc_arena *sa_arena_new_locked(void) {
  scopealloc_arena *a;
  if (sa_dead_count > SA_QUARANTINE) {
    a = sa_dead_head;
    sa_dead_head = a->next;
    sa_dead_count--;
    memset(a, 0, sizeof *a);
  } else if (!(a = (scopealloc_arena *)calloc(1, sizeof *a))) {
    return NULL;
  }
  a->state = SA_ARENA_LIVE;
  a->pool.name = a->name;
  a->next = sa_arenas;
  if (sa_arenas)
    sa_arenas->prev = a;
  sa_arenas = a;
  return a;
}

/* Under the threads lock: `a` (parked) is gone. Its counts stay in the
 * process totals, its reservation is returned, its header is quarantined
 * with its name, empty and marked dead. */
static void sa_arena_retire_locked(scopealloc_arena *a) {
  if (a->prev)
    a->prev->next = a->next;
  else
    sa_arenas = a->next;
  if (a->next)
    a->next->prev = a->prev;
  sa_gone_allocs += a->pool.allocs;
  sa_gone_failures += a->pool.failures;
  size_t peak = sa_arena_peak(&a->pool);
  if (peak > sa_gone_peak)
    sa_gone_peak = peak;
  if (a->pool.base)
    sa_arena_unmap(&a->pool);
  a->pool.cur = a->pool.base;
  a->state = SA_ARENA_DEAD;
  a->prev = a->next = NULL;
  if (sa_dead_tail)
    sa_dead_tail->next = a;
  else
    sa_dead_head = a;
  sa_dead_tail = a;
  sa_dead_count++;
}

scopealloc_arena *scopealloc_arena_create(size_t cap) {
  pthread_once(&sa_fiber_once, sa_fiber_init);
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t rounded = cap ? (cap + page - 1) / page * page : 0;
  if (cap && rounded < cap) {
    errno = ENOMEM;
    return NULL;
  }
  scopealloc_pool mapped;
  memset(&mapped, 0, sizeof mapped);
  if (sa_arena_map(&mapped, rounded) != 0)
    return NULL;
  sa_threads_lock();
  scopealloc_arena *a = sa_arena_new_locked();
  if (a) {
    sa_pool_move(&a->pool, &mapped);
    sa_valgrind_move(&a->pool, &mapped);
    a->pool.name = a->name;
    snprintf(a->name, sizeof a->name, "workspace/fiber%llu",
             (unsigned long long)__atomic_add_fetch(&sa_arena_count, 1,
                                                    __ATOMIC_RELAXED));
  }
  sa_threads_unlock();
  if (!a) {
    sa_arena_unmap(&mapped);
    errno = ENOMEM;
  }
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

/* Under the threads lock: switches the calling thread from `from` (its
 * current arena) to `to`, reporting a dead `to` or one another thread has
 * in. An implicit arena switched out that no context resumes into any more
 * is retired. */
static void sa_switch_checked(scopealloc_arena *from, scopealloc_arena *to,
                              const void *caller) {
  if (to) {
    sa_arena_check(to, caller);
    if (to->tls) /* switched in by another thread */
      sa_arena_misuse(to, SCOPEALLOC_REASON_IN_USE, caller);
  }
  /* Leaving the thread's own arena: see to it at thread exit. */
  if (!from && !SA_LOAD(&sa_fiber_unloaded))
    pthread_setspecific(sa_fiber_key, (void *)1);
  sa_switch_locked(to);
  if (from && from->implicit && from->refs == 0)
    sa_arena_retire_locked(from);
}

scopealloc_arena *scopealloc_arena_switch(scopealloc_arena *to) {
  scopealloc_arena *from = sa_current;
  /* The program chose: the next interposed context switch keeps it. */
  sa_api_switched = 1;
  if (to == from)
    return from;
  sa_threads_lock();
  sa_switch_checked(from, to, __builtin_return_address(0));
  sa_threads_unlock();
  return from;
}

scopealloc_arena *scopealloc_arena_current(void) { return sa_current; }

static void sa_contexts_forget(const scopealloc_arena *a);

void scopealloc_arena_destroy(scopealloc_arena *a) {
  if (!a)
    return;
  const void *caller = __builtin_return_address(0);
  sa_threads_lock();
  sa_arena_check(a, caller);
  if (a->tls)
    sa_arena_misuse(a, SCOPEALLOC_REASON_ARENA_CURRENT, caller);
  if (a->pool.cur != a->pool.base)
    sa_arena_misuse(a, SCOPEALLOC_REASON_ARENA_NOT_EMPTY, caller);
  /* Contexts saved while it was in resume on whatever arena is current. */
  sa_contexts_forget(a);
  sa_arena_retire_locked(a);
  sa_threads_unlock();
}

void scopealloc_arena_stats(const scopealloc_arena *arena,
                            scopealloc_stats *out) {
  scopealloc_arena *a = (scopealloc_arena *)arena;
  sa_threads_lock();
  sa_arena_check(a, __builtin_return_address(0));
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

/* A fiber arena switched in before its first allocation (an implicit
 * arena, mapped lazily so that a context costs no reservation until its
 * code demotes something): thread_arena.c's slow path asks here before it
 * makes the thread an arena of its own. 0: no fiber arena is switched in;
 * 1: it is mapped now; -1: the system refused (errno set). */
static int sa_fiber_map_switched_in(void) {
  scopealloc_arena *a = sa_current;
  if (!a)
    return 0;
  scopealloc_pool *tls = &__scopealloc_tls_pool;
  int rc = 1;
  sa_threads_lock(); /* a statistics reader sees it unmapped or whole */
  if (!tls->cur && sa_arena_map(tls, 0) != 0)
    rc = -1;
  sa_threads_unlock();
  return rc;
}

/* ---- Contexts (the shared runtime's ucontext interposition) ----
 *
 * An open-addressing table from a ucontext_t's address to the arena code
 * resumed from it runs on (NULL: the resuming thread's own). Entries are
 * made by makecontext (a new implicit arena), and by getcontext and
 * swapcontext saving into a context (the arena current then); they are
 * dropped when a made context's function returns, or when the arena they
 * name is destroyed. All under the threads lock. An implicit arena counts
 * the entries naming it (refs) and is retired, once parked, when none is
 * left: its context was overwritten or has finished. */
#define SA_CONTEXT_GONE ((const void *)1) /* a deleted entry */

typedef struct sa_context {
  const void *key; /* the ucontext_t; NULL: never used; SA_CONTEXT_GONE */
  scopealloc_arena *arena;
  void *start; /* makecontext's start record until the context starts */
} sa_context;

static sa_context *sa_contexts;
static size_t sa_contexts_cap; /* a power of two, or 0 */
static size_t sa_contexts_used; /* keys and tombstones */

static size_t sa_context_slot(const void *key) {
  return (size_t)(((uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull) >> 32) &
         (sa_contexts_cap - 1);
}

static sa_context *sa_context_find(const void *key) {
  if (!sa_contexts_cap)
    return NULL;
  for (size_t i = sa_context_slot(key);; i = (i + 1) & (sa_contexts_cap - 1)) {
    if (sa_contexts[i].key == key)
      return &sa_contexts[i];
    if (!sa_contexts[i].key)
      return NULL;
  }
}

static SA_NORETURN void sa_contexts_no_memory(void) {
  sa_threads_unlock();
  fprintf(stderr, "scopealloc: out of memory for the ucontext table\n");
  abort();
}

/* A new entry for `key` (not in the table), rehashing at half full. */
static sa_context *sa_context_add(const void *key) {
  if (2 * (sa_contexts_used + 1) > sa_contexts_cap) {
    size_t live = 0;
    for (size_t i = 0; i < sa_contexts_cap; i++)
      live += sa_contexts[i].key > SA_CONTEXT_GONE;
    size_t cap = 64;
    while (cap < 4 * (live + 1))
      cap *= 2;
    sa_context *old = sa_contexts;
    size_t old_cap = sa_contexts_cap;
    sa_contexts = (sa_context *)calloc(cap, sizeof *sa_contexts);
    if (!sa_contexts)
      sa_contexts_no_memory();
    sa_contexts_cap = cap;
    sa_contexts_used = live;
    for (size_t i = 0; i < old_cap; i++) {
      if (old[i].key <= SA_CONTEXT_GONE)
        continue;
      size_t j = sa_context_slot(old[i].key);
      while (sa_contexts[j].key)
        j = (j + 1) & (cap - 1);
      sa_contexts[j] = old[i];
    }
    free(old);
  }
  size_t i = sa_context_slot(key);
  while (sa_contexts[i].key > SA_CONTEXT_GONE)
    i = (i + 1) & (sa_contexts_cap - 1);
  if (!sa_contexts[i].key)
    sa_contexts_used++;
  sa_contexts[i].key = key;
  sa_contexts[i].arena = NULL;
  sa_contexts[i].start = NULL;
  return &sa_contexts[i];
}

/* One entry fewer names `a`: retire an implicit arena nothing can resume
 * into any more, unless a thread has it switched in (then it goes when
 * switched out). */
static void sa_context_unref(scopealloc_arena *a) {
  if (a && a->implicit && --a->refs == 0 && !a->tls)
    sa_arena_retire_locked(a);
}

/* Code resumed from `key` runs on `a`. If the context is `overwritten`
 * (saved into, made anew), what the entry held before (another arena, a
 * start record) was the old context's and goes. */
static sa_context *sa_context_set(const void *key, scopealloc_arena *a,
                                  int overwritten) {
  sa_context *e = sa_context_find(key);
  if (!e)
    e = sa_context_add(key);
  if (overwritten) {
    free(e->start);
    e->start = NULL;
  }
  if (e->arena != a) {
    scopealloc_arena *old = e->arena;
    e->arena = a;
    if (a && a->implicit)
      a->refs++;
    sa_context_unref(old);
  }
  return e;
}

static void sa_context_drop(sa_context *e) {
  scopealloc_arena *a = e->arena;
  free(e->start);
  e->key = SA_CONTEXT_GONE;
  e->arena = NULL;
  e->start = NULL;
  sa_context_unref(a);
}

/* scopealloc_arena_destroy: no context resumes into `a` any more. */
static void sa_contexts_forget(const scopealloc_arena *a) {
  for (size_t i = 0; i < sa_contexts_cap; i++)
    if (sa_contexts[i].key > SA_CONTEXT_GONE && sa_contexts[i].arena == a)
      sa_context_drop(&sa_contexts[i]);
}

void sa_context_make(const void *ucp, void *start) {
  pthread_once(&sa_fiber_once, sa_fiber_init);
  sa_threads_lock();
  scopealloc_arena *a = sa_arena_new_locked();
  if (!a) /* no memory for a header: it shares the current arena */
    a = sa_current;
  else {
    a->implicit = 1;
    snprintf(a->name, sizeof a->name, "workspace/ucontext%llu",
             (unsigned long long)__atomic_add_fetch(&sa_context_count, 1,
                                                    __ATOMIC_RELAXED));
  }
  sa_context_set(ucp, a, 1)->start = start;
  sa_threads_unlock();
}

void sa_context_started(const void *ucp, void *start) {
  sa_threads_lock();
  sa_context *e = sa_context_find(ucp);
  if (e && e->start == start)
    e->start = NULL;
  sa_threads_unlock();
  free(start);
}

void sa_context_saved(const void *ucp) {
  pthread_once(&sa_fiber_once, sa_fiber_init);
  sa_threads_lock();
  sa_context_set(ucp, sa_current, 1);
  sa_threads_unlock();
}

scopealloc_arena *sa_context_switch(const void *save, const void *to,
                                    const void *caller) {
  pthread_once(&sa_fiber_once, sa_fiber_init);
  scopealloc_arena *from = sa_current;
  sa_threads_lock();
  if (save)
    sa_context_set(save, from, 1);
  scopealloc_arena *target = from;
  if (sa_api_switched) {
    /* scopealloc_arena_switch right before: the program manages this
     * switch; `to` runs on the arena it chose, from now on too. */
    sa_api_switched = 0;
    if (to)
      sa_context_set(to, from, 0);
  } else if (to) {
    sa_context *e = sa_context_find(to);
    if (e) /* else a context not seen saved or made: like longjmp */
      target = e->arena;
  }
  if (target != from)
    sa_switch_checked(from, target, caller);
  sa_threads_unlock();
  return from;
}

void sa_context_restore(scopealloc_arena *prev, const void *caller) {
  sa_threads_lock();
  if (prev != sa_current)
    sa_switch_checked(sa_current, prev, caller);
  sa_threads_unlock();
}

void sa_context_finish(const void *made, const void *link,
                       const void *caller) {
  scopealloc_arena *from = sa_current;
  sa_threads_lock();
  sa_api_switched = 0;
  /* The context has finished: resuming it again would be undefined. */
  sa_context *e = sa_context_find(made);
  if (e && e->arena == from)
    sa_context_drop(e);
  if (link) {
    /* glibc resumes uc_link itself (not through setcontext's PLT entry). */
    sa_context *l = sa_context_find(link);
    scopealloc_arena *target = l ? l->arena : NULL;
    if (target != from)
      sa_switch_checked(from, target, caller);
  }
  sa_threads_unlock();
}
