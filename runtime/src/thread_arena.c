/* The default workspace pool: one arena per thread, hosted only.
 *
 * Each arena is a single contiguous virtual reservation (PROT_NONE,
 * MAP_NORESERVE, so it costs address space only) committed with mprotect as
 * cur grows. Contiguity is what makes release a single store of cur. Guard
 * regions (PROT_NONE, never committed) sit below base and above reserve_end,
 * so a buffer overrun off either end faults instead of landing in another
 * thread's stack, TLS or arena. */
#define _GNU_SOURCE 1
#include "internal.h"
#include "msan_hooks.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* On a cache line of its own: the fast path reads cur and bound together. */
__thread scopealloc_pool __scopealloc_tls_pool __attribute__((aligned(64)));

#define SA_POOL_NAME "workspace"
#define SA_GRANULE ((uintptr_t)SCOPEALLOC_DEFAULT_POOL_GRANULE)
#define SA_COMMIT_STEP ((size_t)1 << 20)
/* What a cached arena keeps committed and resident, at most. */
#define SA_CACHE_RESIDENT ((size_t)64 << 10)
/* Guard below and above every arena (rounded up to whole pages). Above,
 * it also catches the marker of a guarded frame that overruns the arena. */
#define SA_GUARD_SIZE ((size_t)64 << 10)
_Static_assert(SA_GUARD_SIZE > SCOPEALLOC_GUARDED_FRAME_MAX,
               "the guard must hold a guarded frame's marker");
/* The default per-thread cap (the reservation): SA_CAP_STACKS times the
 * soft RLIMIT_STACK, between SA_CAP_MIN and SA_CAP_MAX (SA_CAP_MAX when the
 * stack is unlimited). Runaway recursion of demoted frames then ends in the
 * exhaustion handler soon after a plain build would have overflowed its
 * stack, and 10,000 threads' reservations fit in a 47-bit address space
 * many times over. */
#define SA_CAP_STACKS 8
#if UINTPTR_MAX > 0xffffffffu
#define SA_CAP_MIN ((size_t)64 << 20)
#define SA_CAP_MAX ((size_t)1 << 30)
#else
#define SA_CAP_MIN ((size_t)16 << 20)
#define SA_CAP_MAX ((size_t)256 << 20)
#endif

static pthread_once_t sa_once = PTHREAD_ONCE_INIT;
static pthread_once_t sa_atfork_once = PTHREAD_ONCE_INIT;
static pthread_key_t sa_key;
static size_t sa_page, sa_guard;
static size_t sa_stack_cap; /* see sa_default_cap */

/* Threads with an arena, and what exited threads leave behind for stats. */
static pthread_mutex_t sa_lock = PTHREAD_MUTEX_INITIALIZER;
static scopealloc_pool *sa_live;
static uint64_t sa_threads, sa_live_threads;
static uint64_t sa_exited_allocs, sa_exited_failures;
static size_t sa_exited_peak, sa_capacity;
/* Arenas mapped now (threads', fibers', zombies'); atomic, no lock needed. */
static uint64_t sa_reservations;
/* fiber.c's part in thread exit, totals and fork, once it has an arena. */
static const sa_fiber_hooks *sa_fiber;

void sa_thread_arena_set_fiber_hooks(const sa_fiber_hooks *hooks) {
  SA_STORE(&sa_fiber, hooks);
}

static size_t sa_round_up(size_t n, size_t to) {
  return n + (to - 1 - (n - 1) % to); /* n > 0; may wrap to 0: caller checks */
}

/* The highest marker a guarded frame left in [high, limit): the byte just
 * above each such frame is SCOPEALLOC_GUARD_MARKER, written before the frame
 * moved cur, and nothing writes at or above the highest frame's top, so the
 * highest nonzero byte there is that top. The memory was zero when mapped,
 * or when the arena went into the cache (sa_cache_clean; committed memory
 * is never given back while a thread holds the arena).
 *
 * What it costs must not be what the arena committed: a read of a page
 * never written maps the zero page, a fault per page. A cached arena comes
 * with only what its last thread wrote committed (at most
 * SA_CACHE_RESIDENT), all of it resident: up to that much is read whole.
 * Past it (a new arena's first commit, or one that grew) a marker can only
 * be in a page that was written: mincore says which, SA_SCAN_PAGES pages
 * per call, and only those are read, from the top down.
 *
 * Not instrumented: it reads another thread's arena while that thread runs
 * (a snapshot, whole words), and memory a tool has marked released
 * (memcheck is told to keep quiet). Async-signal-safe. */
#define SA_SCAN_PAGES 512

/* The highest nonzero byte of [lo, hi), or NULL: 64 bytes at a time. */
typedef uint64_t __attribute__((may_alias)) sa_word;
__attribute__((no_sanitize("address", "thread", "memory"))) static char *
sa_last_nonzero(char *lo, char *hi) {
  while (hi > lo && ((uintptr_t)hi & 7))
    if (*(volatile char *)--hi)
      return hi;
  char *words = (char *)(((uintptr_t)lo + 7) & ~(uintptr_t)7);
  for (; hi - words >= 64; hi -= 64) {
    const sa_word *w = (const sa_word *)(hi - 64);
    if (w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7])
      break;
  }
  while (hi > lo && hi - 8 >= words) {
    if (*(const volatile sa_word *)(hi - 8))
      break;
    hi -= 8;
  }
  while (hi > lo)
    if (*(volatile char *)--hi)
      return hi;
  return NULL;
}

__attribute__((no_sanitize("address", "thread", "memory"))) static char *
sa_arena_top(const scopealloc_pool *pool) {
  char *base = pool->base;
  char *high = SA_LOAD_RELAXED(&pool->high);
  if (!base || !high)
    return NULL;
  char *limit = SA_LOAD_RELAXED(&pool->limit);
  size_t page = sa_page ? sa_page : 4096;
  char *floor = (char *)((uintptr_t)high & -(uintptr_t)page);
  char *found = NULL;
  if (SA_UNLIKELY(sa_hooked()))
    sa_hook_quiet(1);
  if (limit - floor <= (ptrdiff_t)SA_CACHE_RESIDENT) {
    found = sa_last_nonzero(high, limit);
  } else {
    for (char *end = limit; end > floor && !found;) {
      size_t pages = (size_t)(end - floor) / page;
      if (pages > SA_SCAN_PAGES)
        pages = SA_SCAN_PAGES;
      char *from = end - pages * page;
      unsigned char resident[SA_SCAN_PAGES];
      int known = mincore(from, pages * page, resident) == 0;
      for (size_t i = pages; i-- > 0 && !found;)
        if (!known || (resident[i] & 1))
          found = sa_last_nonzero(from + i * page < high ? high : from + i * page,
                                  from + (i + 1) * page);
      end = from;
    }
  }
  if (SA_UNLIKELY(sa_hooked()))
    sa_hook_quiet(0);
  /* The marker starts its granule (a stray byte above it cannot lower the
   * peak below the granule it is in). */
  if (!found)
    return high;
  char *top = (char *)((uintptr_t)found & -(uintptr_t)SA_GRANULE);
  return top > high ? top : high;
}

size_t sa_arena_peak(const scopealloc_pool *pool) {
  char *top = sa_arena_top(pool);
  return top ? (size_t)(top - pool->base) : 0;
}

/* The calling thread's report: `high` brought up to the guarded frames'
 * peak first, so that the report's peak counts them. */
static SA_COLD SA_NORETURN void sa_default_fail(scopealloc_pool *pool,
                                                const char *reason,
                                                size_t size, size_t align,
                                                const void *caller) {
  if (pool->base) {
    char *peak = pool->base + sa_arena_peak(pool);
    if (peak > pool->high)
      SA_STORE_RELAXED(&pool->high, peak);
  }
  sa_fail(pool, SA_POOL_NAME, reason, size, align, 0, caller);
}

/* Commits the calling thread's reservation up to at least `end` (at least
 * 1 MiB more, and at least half again what is committed, so the number of
 * mprotect calls stays logarithmic; or just what `end` needs when the
 * system refuses more). 0, or -1 with nothing changed. Async-signal-safe:
 * the guard's fault handler calls it. */
static int sa_arena_commit(scopealloc_pool *pool, const char *end) {
  size_t committed = (size_t)(pool->limit - pool->base);
  size_t reserved = (size_t)(pool->reserve_end - pool->base);
  size_t need = (size_t)(end - pool->base);
  if (need <= committed)
    return 0;
  size_t grown = committed + committed / 2;
  size_t want = sa_round_up(need > grown ? need : grown, SA_COMMIT_STEP);
  if (want < need || want > reserved) /* wrapped, or past the end */
    want = reserved;
  if (mprotect(pool->limit, want - committed, PROT_READ | PROT_WRITE) != 0) {
    want = sa_round_up(need, sa_page);
    if (want < need || want > reserved)
      want = reserved;
    if (mprotect(pool->limit, want - committed, PROT_READ | PROT_WRITE) != 0)
      return -1;
  }
  if (sa_hooked())
    sa_hook_commit(pool, pool->limit, want - committed);
  SA_STORE_RELAXED(&pool->limit, pool->base + want);
  return 0;
}

static scopealloc_pool *sa_guard_pool(void) { return &__scopealloc_tls_pool; }
static SA_NORETURN void sa_guard_fail(scopealloc_pool *pool,
                                      const char *reason, size_t size,
                                      const void *caller) {
  sa_default_fail(pool, reason, size, SA_GRANULE, caller);
}
/* `guard` is set with the page size (sa_init_once). */
static sa_guard_ops sa_guard_handler = {sa_guard_pool, sa_arena_commit,
                                        sa_guard_fail, 0};


/* Arena creation and teardown run with the thread's signals blocked: a
 * handler that runs demoted code in the middle of them would find no arena
 * (pool->cur still NULL) and create a second one, listing the thread twice
 * (a cycle in sa_live that hung the next thread exit), or allocate from an
 * arena already unmapped. Signals sent meanwhile wait until the arena is
 * whole. Cancellation is disabled too: glibc never blocks SIGCANCEL, so an
 * asynchronous cancel (PTHREAD_CANCEL_ASYNCHRONOUS) would unwind out of the
 * middle, leaking a reservation that no destructor knows of, or leaving
 * sa_lock held; a cancel sent meanwhile is acted on when the section ends.
 * Four system calls at most, once per thread. */
typedef struct sa_critical {
  sigset_t signals;
  int cancel;
} sa_critical;
static void sa_critical_enter(sa_critical *old) {
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old->cancel);
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old->signals);
}
static void sa_critical_leave(const sa_critical *old) {
  pthread_sigmask(SIG_SETMASK, &old->signals, NULL);
  pthread_setcancelstate(old->cancel, NULL); /* a pending cancel acts here */
}

/* Thread exit runs the pthread-key destructors in up to
 * PTHREAD_DESTRUCTOR_ITERATIONS rounds, and the runtime's destructor returns
 * the arena in the first. An application destructor that runs demoted code
 * after that makes the arena again: a "zombie". Its thread is about to end,
 * and its TLS (the pool itself) ends with it, so a zombie is not on the live
 * list; a record outside the thread holds its mapping and a robust mutex
 * the thread keeps locked. The runtime's key is set again, so a later round
 * returns the zombie at once; after the last round nothing can, and the
 * mutex turns EOWNERDEAD when the thread is gone: cold paths of other
 * threads (arena creation, process statistics) then unmap it. */
typedef struct sa_zombie {
  pthread_mutex_t alive; /* robust; locked by the thread while it lives */
  char *start;           /* the whole mapping, guards included */
  size_t span;
  struct sa_zombie *next;
} sa_zombie;
static sa_zombie *sa_zombies;              /* under sa_lock */
static __thread unsigned char sa_tsd_done; /* our destructor has run */
static __thread unsigned char sa_listed;   /* the pool is on sa_live */
static __thread sa_zombie *sa_my_zombie;   /* this thread's, if any */
static int sa_key_made, sa_unloaded;

static void sa_zombie_unmap(sa_zombie *z) {
  if (sa_hooked() & SA_HOOK_ASAN)
    sa_unpoison(z->start + sa_guard, z->span - 2 * sa_guard);
  munmap(z->start, z->span);
  __atomic_fetch_sub(&sa_reservations, 1, __ATOMIC_RELAXED);
}

/* With sa_lock held: unmaps the zombies whose threads have ended. */
static void sa_zombies_reap(void) {
  for (sa_zombie **zp = &sa_zombies; *zp;) {
    sa_zombie *z = *zp;
    if (z != sa_my_zombie && pthread_mutex_trylock(&z->alive) == EOWNERDEAD) {
      *zp = z->next;
      pthread_mutex_consistent(&z->alive);
      pthread_mutex_unlock(&z->alive);
      pthread_mutex_destroy(&z->alive);
      sa_zombie_unmap(z);
      free(z);
    } else {
      zp = &z->next;
    }
  }
}

/* A record for the zombie arena `pool` of the calling thread, locked by it;
 * NULL if there is no memory for one (the arena then stays mapped). */
static sa_zombie *sa_zombie_new(scopealloc_pool *pool) {
  sa_zombie *z = (sa_zombie *)malloc(sizeof *z);
  if (!z)
    return NULL;
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  int err = pthread_mutex_init(&z->alive, &attr);
  pthread_mutexattr_destroy(&attr);
  if (err || pthread_mutex_lock(&z->alive) != 0) {
    free(z);
    return NULL;
  }
  z->start = pool->base - sa_guard;
  z->span = (size_t)(pool->reserve_end - pool->base) + 2 * sa_guard;
  z->next = NULL;
  return z;
}

/* Arenas of exited threads, kept for the next threads the way glibc keeps
 * thread stacks: taking one costs no mmap, mprotect or munmap, and its
 * alternate signal stack comes with it. At most SCOPEALLOC_ARENA_CACHE
 * arenas (default SA_CACHE_DEFAULT, 0: none), each with at most
 * SA_CACHE_RESIDENT bytes committed and resident, all of them zero (what
 * its thread wrote past that goes back to the system: sa_cache_clean), so
 * that a marker scan finds only the new thread's markers. An arena keeps its
 * reservation (its cap); one whose cap differs from what a new arena would
 * get now (SCOPEALLOC_RESERVE or RLIMIT_STACK changed) is unmapped instead
 * of handed out. A stack under sa_lock: the last arena in is the first
 * out, its pages the likeliest to be in the caches. Not used under ASan or
 * memcheck, whose records of the arena's memory end with its thread. */
#define SA_CACHE_DEFAULT 16
#define SA_CACHE_MAX 1024
typedef struct sa_cached_arena {
  char *base, *limit, *reserve_end;
  void *altstack; /* the alternate signal stack its thread had, or NULL */
} sa_cached_arena;
static sa_cached_arena sa_cache[SA_CACHE_MAX]; /* under sa_lock */
static size_t sa_cached;

/* SCOPEALLOC_ARENA_CACHE: how many arenas to keep, read at each thread's
 * exit (a program may change it). A value that is not a number from 0 to
 * SA_CACHE_MAX is reported once and the default kept. */
static size_t sa_cache_size(void) {
  const char *env = sa_getenv("SCOPEALLOC_ARENA_CACHE");
  if (!env || !*env)
    return SA_CACHE_DEFAULT;
  size_t n = 0;
  const char *s = env;
  for (; *s >= '0' && *s <= '9' && n <= SA_CACHE_MAX; s++)
    n = n * 10 + (size_t)(*s - '0');
  if (!*s && n <= SA_CACHE_MAX)
    return n;
  static int warned;
  if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
    fprintf(stderr,
            "scopealloc: ignoring SCOPEALLOC_ARENA_CACHE='%s': expected a "
            "number of arenas from 0 to %d; keeping up to %d\n",
            env, SA_CACHE_MAX, SA_CACHE_DEFAULT);
  return SA_CACHE_DEFAULT;
}

/* Makes the arena [base, limit) of an exiting thread, which wrote below
 * `dirty`, ready for the next: what it wrote, up to SA_CACHE_RESIDENT and
 * at least a page, stays committed, resident and zeroed; past that, the
 * memory goes back to the system and the reservation to PROT_NONE, so that
 * the next thread's marker scan reads little, and resident memory only.
 * Returns the new limit. */
__attribute__((no_sanitize("address", "thread", "memory"))) static char *
sa_cache_clean(char *base, char *dirty, char *limit) {
  size_t page = sa_page;
  size_t used = (size_t)(dirty - base);
  size_t kept = sa_round_up(used < SA_CACHE_RESIDENT ? (used ? used : 1)
                                                     : SA_CACHE_RESIDENT,
                            page);
  if (kept > (size_t)(limit - base))
    kept = (size_t)(limit - base);
  if (base + kept < limit) {
    size_t rest = (size_t)(limit - (base + kept));
    if (madvise(base + kept, rest, MADV_DONTNEED) != 0)
      memset(base + kept, 0, (size_t)(dirty > base + kept ? dirty - (base + kept) : 0));
    else if (mprotect(base + kept, rest, PROT_NONE) == 0)
      limit = base + kept;
  }
  memset(base, 0, kept);
  return limit;
}

/* Under sa_lock: an arena of `cap` bytes from the cache into `pool` (and
 * its alternate stack into *altstack), or 0 if none. Arenas of another cap
 * are unmapped on the way. */
static int sa_cache_take(scopealloc_pool *pool, size_t cap, void **altstack) {
  int found = 0;
  size_t n = sa_cached;
  while (n && !found) {
    sa_cached_arena *c = &sa_cache[--n];
    if ((size_t)(c->reserve_end - c->base) == cap) {
      pool->base = pool->cur = pool->high = c->base;
      pool->limit = c->limit;
      pool->reserve_end = c->reserve_end;
      *altstack = c->altstack;
      found = 1;
    } else {
      scopealloc_pool stale;
      stale.base = c->base;
      stale.limit = c->limit;
      stale.reserve_end = c->reserve_end;
      sa_arena_unmap(&stale);
      sa_guard_altstack_free(c->altstack);
    }
  }
  /* Read without the lock (whether to look at all): one whole value. */
  SA_STORE_RELAXED(&sa_cached, n);
  return found;
}

/* Thread exit: fold the statistics into the process totals, then put the
 * arena into the cache, or unmap it. A zombie (see sa_zombie) is unmapped:
 * its thread already gave one arena to the cache, and a cache that grew by
 * one per such thread would only fill with them. */
static void sa_thread_arena_destroy(void *arg) {
  scopealloc_pool *pool = (scopealloc_pool *)arg;
  sa_critical old;
  sa_critical_enter(&old);
  const sa_fiber_hooks *fiber = SA_LOAD(&sa_fiber);
  if (fiber) /* a fiber arena switched in is not ours to unmap */
    fiber->thread_exit();
  sa_zombie *z = sa_my_zombie;
  sa_tsd_done = 1;
  /* The arena is this thread's: its top is read without the lock. */
  char *top = sa_arena_top(pool);
  size_t room = !z && pool->base && !SA_LOAD(&sa_unloaded) &&
                        !(sa_hooked() & (SA_HOOK_ASAN | SA_HOOK_VALGRIND))
                    ? sa_cache_size()
                    : 0;
  int cache = room > SA_LOAD_RELAXED(&sa_cached);
  pthread_mutex_lock(&sa_lock);
  if (z) {
    for (sa_zombie **zp = &sa_zombies; *zp; zp = &(*zp)->next)
      if (*zp == z) {
        *zp = z->next;
        break;
      }
    sa_my_zombie = NULL;
  }
  if (sa_listed) {
    for (scopealloc_pool **p = &sa_live; *p; p = &(*p)->next_thread_pool)
      if (*p == pool) {
        *p = pool->next_thread_pool;
        break;
      }
    sa_live_threads--;
    sa_listed = 0;
  }
  sa_exited_allocs += pool->allocs;
  sa_exited_failures += pool->failures;
  size_t peak = top ? (size_t)(top - pool->base) : 0;
  if (peak > sa_exited_peak)
    sa_exited_peak = peak;
  pthread_mutex_unlock(&sa_lock);
  if (z) {
    pthread_mutex_unlock(&z->alive);
    pthread_mutex_destroy(&z->alive);
    free(z);
  }
  void *altstack = sa_guard_thread_end();
  if (cache) {
    /* Past the top's marker nothing was written; a marker is one byte. */
    char *dirty = top && top > pool->high ? top + 1 : pool->high;
    pool->limit = sa_cache_clean(pool->base, dirty, pool->limit);
    pthread_mutex_lock(&sa_lock);
    cache = sa_cached < room;
    if (cache) {
      sa_cached_arena *c = &sa_cache[sa_cached];
      c->base = pool->base;
      c->limit = pool->limit;
      c->reserve_end = pool->reserve_end;
      c->altstack = altstack;
      SA_STORE_RELAXED(&sa_cached, sa_cached + 1);
    }
    pthread_mutex_unlock(&sa_lock);
  }
  if (!cache) {
    sa_arena_unmap(pool);
    sa_guard_altstack_free(altstack);
  }
  /* A later pthread-key destructor may still use the pool: start afresh. */
  memset(pool, 0, sizeof *pool);
  sa_critical_leave(&old);
}

/* fork: sa_lock is held across it, so the child finds the list whole. Only
 * the forking thread lives on in the child: the other threads' pools stop
 * counting as live, and their reservations are returned except the part
 * below their top, which the child may still read like the rest of their
 * memory (a pointer the forking thread was handed, say). */
static void sa_atfork_prepare(void) { pthread_mutex_lock(&sa_lock); }
static void sa_atfork_parent(void) { pthread_mutex_unlock(&sa_lock); }
static void sa_atfork_child(void) {
  scopealloc_pool *self = &__scopealloc_tls_pool;
  scopealloc_pool *next;
  const sa_fiber_hooks *fiber = SA_LOAD(&sa_fiber);
  if (fiber) /* dead threads' TLS pools hold their own */
    fiber->after_fork_child();
  for (scopealloc_pool *p = sa_live; p; p = next) {
    next = p->next_thread_pool;
    if (p == self)
      continue;
    sa_exited_allocs += p->allocs;
    sa_exited_failures += p->failures;
    size_t peak = sa_arena_peak(p);
    if (peak > sa_exited_peak)
      sa_exited_peak = peak;
    sa_reservations--; /* what stays below its top is plain memory now */
    size_t used = (size_t)(p->cur - p->base);
    char *keep = used ? p->base + sa_round_up(used, sa_page) : p->base;
    if (keep < p->reserve_end) {
      if (sa_hooked())
        sa_hook_arena_unmapping(p, keep < p->limit ? keep : p->limit);
      munmap(keep, (size_t)(p->reserve_end - keep) + sa_guard);
    }
  }
  /* Other threads' zombies: their threads were ending and do not exist here
   * (nor would their mutexes ever turn EOWNERDEAD). */
  sa_zombie *mine = NULL;
  for (sa_zombie *z = sa_zombies, *znext; z; z = znext) {
    znext = z->next;
    if (z == sa_my_zombie) {
      mine = z;
      mine->next = NULL;
      continue;
    }
    sa_zombie_unmap(z);
    free(z);
  }
  sa_zombies = mine;
  sa_live = sa_listed ? self : NULL;
  self->next_thread_pool = NULL;
  sa_live_threads = sa_live ? 1 : 0;
  /* The child reads RLIMIT_STACK again (its limits may be set anew). */
  sa_stack_cap = 0;
  pthread_mutex_unlock(&sa_lock);
}

/* Registered at load time (and, should a constructor of another object get
 * here first, on first use): registering inside sa_init_once could happen
 * twice in a child forked while another thread ran it (pthread_once restarts
 * such an init in the child), and a prepare handler that ran twice would
 * deadlock on sa_lock. */
static void sa_register_atfork(void) {
  pthread_atfork(sa_atfork_prepare, sa_atfork_parent, sa_atfork_child);
}
/* Also the time to look for a second runtime in the process, whose threads
 * would each get a second arena. The pointer is loaded through the GOT in a
 * shared object (the runtime is built with -fPIC and without
 * -fno-semantic-interposition): it is the copy this object's calls reach. */
__attribute__((constructor)) static void sa_thread_arena_load(void) {
  pthread_once(&sa_atfork_once, sa_register_atfork);
  void *(*volatile entry)(void) = &__scopealloc_mark;
  sa_identity_check((const void *)entry);
}

static void sa_init_once(void) {
  sa_page = (size_t)sysconf(_SC_PAGESIZE);
  sa_guard = sa_round_up(SA_GUARD_SIZE, sa_page);
  sa_guard_handler.guard = sa_guard;
  pthread_once(&sa_atfork_once, sa_register_atfork);
  if (pthread_key_create(&sa_key, sa_thread_arena_destroy) != 0) {
    fprintf(stderr, "scopealloc: pthread_key_create failed\n");
    abort();
  }
  SA_STORE(&sa_key_made, 1);
}

/* Unload (dlclose of a shared library that links the runtime) or process
 * exit: delete the key, so that threads ending later do not call a
 * destructor that may no longer be mapped. Their arenas then stay mapped
 * until the process ends: this cannot tell an unload (where no code of the
 * library runs any more) from exit (where other threads may still be in
 * demoted frames), so it unmaps nothing. Nor is the key set again: its
 * number may belong to another key by then. */
__attribute__((destructor)) static void sa_thread_arena_unload(void) {
  SA_STORE(&sa_unloaded, 1);
  if (SA_LOAD(&sa_key_made))
    pthread_key_delete(sa_key);
  /* The cache's arenas belong to no thread: unmapped, so that a library
   * dlclose'd and loaded again does not leave them behind. (trylock: at
   * exit, a thread may be stopped anywhere.) */
  if (SA_LOAD_RELAXED(&sa_cached) && pthread_mutex_trylock(&sa_lock) == 0) {
    scopealloc_pool none;
    void *altstack = NULL;
    sa_cache_take(&none, 0, &altstack); /* no cap is 0: unmaps them all */
    pthread_mutex_unlock(&sa_lock);
  }
}

static SA_NORETURN void sa_bad_reserve(const char *value) {
  fprintf(stderr,
          "scopealloc: invalid SCOPEALLOC_RESERVE='%s': expected a number of "
          "bytes > 0 with an optional K, M or G suffix (e.g. 512M)\n",
          value);
  abort();
}

/* The default cap, from RLIMIT_STACK as the first arena of the process
 * finds it (0 until then): read once, as glibc reads it once for its
 * threads' default stack size, so that a thread taking a cached arena makes
 * no system call for it. A forked child reads it again (sa_atfork_child),
 * at its first new arena. */
static size_t sa_default_cap(void) {
  size_t known = SA_LOAD_RELAXED(&sa_stack_cap);
  if (known)
    return known;
  struct rlimit rl;
  size_t cap = SA_CAP_MAX;
  if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      rl.rlim_cur < SA_CAP_MAX / SA_CAP_STACKS)
    cap = (size_t)rl.rlim_cur * SA_CAP_STACKS;
  if (cap < SA_CAP_MIN)
    cap = SA_CAP_MIN;
  cap = sa_round_up(cap, sa_page);
  /* Threads racing here read the same limit, unless setrlimit ran
   * meanwhile: the first to store wins, as if it had read it alone. */
  size_t none = 0;
  if (!__atomic_compare_exchange_n(&sa_stack_cap, &none, cap, 0,
                                   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    cap = none;
  return cap;
}

/* The per-thread cap of a new arena (its reservation): SCOPEALLOC_RESERVE
 * or the default, in whole pages. Returns 1 if the user chose it. */
static int sa_reserve_size(size_t *out) {
  const char *env = sa_getenv("SCOPEALLOC_RESERVE");
  if (!env || !*env) {
    *out = sa_default_cap();
    return 0;
  }
  size_t n = 0;
  const char *s = env;
  if (*s < '0' || *s > '9')
    sa_bad_reserve(env);
  for (; *s >= '0' && *s <= '9'; s++) {
    if (n > ((size_t)-1 - (size_t)(*s - '0')) / 10)
      sa_bad_reserve(env);
    n = n * 10 + (size_t)(*s - '0');
  }
  unsigned shift = 0;
  switch (*s) {
  case 'k': case 'K': shift = 10; s++; break;
  case 'm': case 'M': shift = 20; s++; break;
  case 'g': case 'G': shift = 30; s++; break;
  }
  if (*s || n == 0 || n > ((size_t)-1 >> shift))
    sa_bad_reserve(env);
  n <<= shift;
  size_t rounded = sa_round_up(n, sa_page);
  if (rounded < n)
    sa_bad_reserve(env);
  *out = rounded;
  return 1;
}

static void sa_exact_on(void);

/* The reservation behind every default-pool arena (threads' and fibers'). */
int sa_arena_map(scopealloc_pool *pool, size_t cap) {
  pthread_once(&sa_once, sa_init_once);
  sa_hooks_ensure();
  /* Statistics reads the default pool's totals from here on. */
  sa_stats_set_default_pool(sa_process_totals_get, sa_exact_on);
  if (cap == 0)
    sa_reserve_size(&cap);
  size_t span = cap + 2 * sa_guard;
  if (span < cap) {
    errno = ENOMEM;
    return -1;
  }
  /* One mapping, guards included: the guards stay PROT_NONE for good. */
  char *start =
      (char *)mmap(NULL, span, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (start == (char *)MAP_FAILED)
    return -1;
  char *base = start + sa_guard;
  size_t commit = cap < SA_COMMIT_STEP ? cap : SA_COMMIT_STEP;
  if (mprotect(base, commit, PROT_READ | PROT_WRITE) != 0) {
    int err = errno;
    munmap(start, span);
    errno = err;
    return -1;
  }
  /* Before the fast path opens on it: guarded frames grow it by fault. */
  sa_guard_install(&sa_guard_handler);
  pool->base = pool->cur = pool->high = base;
  pool->bound = sa_exact_stats() ? NULL : base;
  pool->limit = base + commit;
  pool->reserve_end = base + cap;
  __atomic_fetch_add(&sa_reservations, 1, __ATOMIC_RELAXED);
  if (sa_hooked())
    sa_hook_arena_created(pool);
  return 0;
}

void sa_arena_unmap(scopealloc_pool *pool) {
  if (sa_hooked())
    sa_hook_arena_unmapping(pool, pool->base);
  munmap(pool->base - sa_guard,
         (size_t)(pool->reserve_end - pool->base) + 2 * sa_guard);
  __atomic_fetch_sub(&sa_reservations, 1, __ATOMIC_RELAXED);
}

/* First use in this thread: reserve, commit the first step, register. */
static SA_COLD void sa_thread_arena_create(size_t size, size_t align,
                                           const void *caller) {
  scopealloc_pool *pool = &__scopealloc_tls_pool;
  sa_critical old;
  sa_critical_enter(&old);
  /* A handler may have made it between the caller's check and here. */
  if (pool->cur) {
    sa_critical_leave(&old);
    return;
  }
  /* A fiber arena switched in before its first allocation is mapped, not
   * replaced by the thread's own. */
  const sa_fiber_hooks *fiber = SA_LOAD(&sa_fiber);
  int fiber_arena = fiber ? fiber->map_switched_in() : 0;
  if (fiber_arena) {
    sa_critical_leave(&old);
    if (fiber_arena < 0)
      sa_fail(pool, SA_POOL_NAME, SCOPEALLOC_REASON_NO_MEMORY, size, align, 0,
              caller);
    return;
  }
  pthread_once(&sa_once, sa_init_once);
  size_t reserve;
  int chosen = sa_reserve_size(&reserve);
  /* An exited thread's arena, unless this is a zombie (see sa_zombie). */
  void *altstack = NULL;
  int reused = 0;
  if (!sa_tsd_done && SA_LOAD_RELAXED(&sa_cached)) {
    pthread_mutex_lock(&sa_lock);
    reused = sa_cache_take(pool, reserve, &altstack);
    pthread_mutex_unlock(&sa_lock);
    if (reused)
      pool->bound = sa_exact_stats() ? NULL : pool->base;
  }
  while (!reused && sa_arena_map(pool, reserve) != 0) {
    /* The default is only a guess (ulimit -v, 32-bit hosts): shrink it. A
     * size the user asked for is kept or refused. */
    if (chosen || reserve <= SA_COMMIT_STEP) {
      /* The handler may longjmp: leave the thread's mask as it found it. */
      sa_critical_leave(&old);
      sa_fail(pool, SA_POOL_NAME, SCOPEALLOC_REASON_NO_MEMORY, size, align, 0,
              caller);
    }
    reserve = sa_round_up(reserve / 2, sa_page);
  }
  pool->name = SA_POOL_NAME;
  /* After the runtime's key destructor: a zombie (see sa_zombie). */
  sa_zombie *z = SA_UNLIKELY(sa_tsd_done) ? sa_zombie_new(pool) : NULL;

  pthread_mutex_lock(&sa_lock);
  sa_zombies_reap();
  if (z) {
    z->next = sa_zombies;
    sa_zombies = z;
    sa_my_zombie = z;
  } else if (!sa_tsd_done) {
    pool->next_thread_pool = sa_live;
    sa_live = pool;
    sa_listed = 1;
    sa_threads++;
    sa_live_threads++;
  }
  sa_capacity = reserve;
  pthread_mutex_unlock(&sa_lock);
  if (!SA_LOAD(&sa_unloaded))
    pthread_setspecific(sa_key, pool);
  if (z || !sa_guard_thread_start(altstack))
    sa_guard_altstack_free(altstack);
  sa_critical_leave(&old);
}

/* The entry points pass their return address down: a failure report names
 * the program's code that called the runtime. */
static inline void *sa_thread_mark(const void *caller) {
  char *cur = __scopealloc_tls_pool.cur;
  if (SA_UNLIKELY(!cur)) {
    sa_thread_arena_create(0, 0, caller);
    cur = __scopealloc_tls_pool.cur;
  }
  return cur;
}

void *__scopealloc_mark(void) {
  return sa_thread_mark(__builtin_return_address(0));
}

/* The inline fast path's bound, and the granule.
 *
 * `bound` is the high-water mark, so that a frame setting a new peak comes
 * to the runtime and the peak stays exact; or NULL, so that every frame
 * comes here: while exact counts are on (each is counted), and while the
 * pool may hold a top that is not a multiple of SA_GRANULE.
 *
 * With exact counts off the runtime rounds the end of every allocation up
 * to SA_GRANULE, so the top stays a multiple (the inline fast path rounds
 * its frames too). With them on it rounds to SA_MIN_ALIGN only (the peak is
 * the last byte asked for), and records in `unrounded` the lowest top it
 * allocated from that left a top off the granule. Every such value (a top,
 * or a mark taken at it) lies above that, so once an allocation starts from
 * at or below it (everything allocated since is released, and the new top
 * is rounded) none is left and the fast path may open again.
 *
 * The flag and the bound are a store-fence-load pair against
 * scopealloc_set_exact_stats (sa_exact_on), which stores them the other way
 * round: either this sees the flag, or sa_exact_on's NULL lands after this
 * store. */
static SA_COLD void sa_bound_sync(scopealloc_pool *pool, const char *from) {
  if (!sa_exact_stats()) {
    char *unrounded = pool->unrounded;
    if (unrounded && from > unrounded)
      goto closed;
    pool->unrounded = NULL;
    SA_STORE_RELAXED(&pool->bound, pool->high);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!sa_exact_stats())
      return;
  }
closed:
  SA_STORE_RELAXED(&pool->bound, NULL);
}

/* After every allocation with exact counts off (made from top `from`): one
 * compare unless the peak moved or the fast path is closed. */
static inline void sa_bound_follow(scopealloc_pool *pool, const char *from) {
  if (SA_UNLIKELY(SA_LOAD_RELAXED(&pool->bound) != pool->high))
    sa_bound_sync(pool, from);
}

/* Exact counts were turned on: every thread's next frame takes the slow
 * path. Fiber arenas parked now get their bound when switched in. */
static void sa_exact_on(void) {
  sa_threads_lock();
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  for (scopealloc_pool *p = sa_live; p; p = p->next_thread_pool)
    SA_STORE_RELAXED(&p->bound, NULL);
  sa_threads_unlock();
}

/* Cold: no arena yet, exact counts on, or [cur, limit) too small: commit
 * more of the reservation (sa_arena_commit), or report. */
static SA_COLD void *sa_thread_alloc_slow(size_t size, size_t align,
                                          const void *caller) {
  scopealloc_pool *pool = &__scopealloc_tls_pool;
  if (!pool->cur)
    sa_thread_arena_create(size, align, caller);
  int exact = sa_exact_stats();
  /* Exact counts: the top stays a multiple of SA_MIN_ALIGN, where every
   * allocation starts anyway, so that a frame aligned to at most 8 starts
   * at the top and the compiler's inline release may store the frame's
   * start as its mark (RuntimeABI.cpp); the peak stays the exact end. */
  uintptr_t granule = exact ? SA_MIN_ALIGN : SA_GRANULE;
  char *from = pool->cur;
  void *p;
  if (sa_bump_rounded_peak(pool, size, align, granule, exact, &p))
    goto served;
  if (align & (align - 1))
    sa_default_fail(pool, SCOPEALLOC_REASON_BAD_ALIGNMENT, size, align,
                    caller);
  uintptr_t cur = (uintptr_t)pool->cur;
  uintptr_t room = (uintptr_t)pool->reserve_end - cur;
  uintptr_t mask = align > SA_MIN_ALIGN ? align - 1 : SA_MIN_ALIGN - 1;
  uintptr_t pad = -cur & mask;
  if (pad > room || size > room - pad)
    sa_default_fail(pool, SCOPEALLOC_REASON_EXHAUSTED, size, align, caller);

  if (sa_arena_commit(pool, (char *)(cur + pad + size)) != 0)
    sa_default_fail(pool, SCOPEALLOC_REASON_NO_MEMORY, size, align, caller);
  if (!sa_bump_rounded_peak(pool, size, align, granule, exact, &p))
    __builtin_trap(); /* unreachable: the commit covers the request */
served:
  if (exact) {
    if (((uintptr_t)pool->cur & (SA_GRANULE - 1)) &&
        (!pool->unrounded || from < pool->unrounded))
      pool->unrounded = from;
    if (SA_LOAD_RELAXED(&pool->bound))
      SA_STORE_RELAXED(&pool->bound, NULL);
  } else {
    sa_bound_follow(pool, from);
  }
  return p;
}

/* The calling thread's pool. The empty asm stops the compiler from
 * recomputing the TLS address (a __tls_get_addr call in PIC code) at every
 * use instead of keeping it in a register. */
static inline scopealloc_pool *sa_tls_pool(void) {
  scopealloc_pool *pool = &__scopealloc_tls_pool;
  __asm__("" : "+r"(pool));
  return pool;
}

/* Hot path, exact counts off: sa_bump on this thread's arena, its top kept
 * a multiple of SA_GRANULE. */
static inline void *sa_thread_alloc(size_t size, size_t align,
                                    const void *caller) {
  scopealloc_pool *pool = sa_tls_pool();
  char *from = pool->cur;
  void *p;
  if (SA_LIKELY(from != NULL) &&
      SA_LIKELY(SA_LOAD_RELAXED(&sa_exact_state) == 0) &&
      SA_LIKELY(sa_bump_rounded(pool, size, align, SA_GRANULE, &p))) {
    sa_bound_follow(pool, from);
    return p;
  }
  return sa_thread_alloc_slow(size, align, caller);
}

void *__scopealloc_alloc(size_t size, size_t align) {
  return sa_thread_alloc(size, align, __builtin_return_address(0));
}

/* The inline fast path's slow path, for a frame of `caller`: the frame and
 * the mark it releases to. */
SA_COLD SA_HIDDEN __attribute__((used)) scopealloc_frame
sa_frame_slow_at(size_t size, size_t align, const void *caller) {
  scopealloc_frame f;
  f.mark = sa_thread_mark(caller);
  f.frame = sa_thread_alloc(size, align, caller);
  if (SA_UNLIKELY(sa_hooked() & SA_HOOK_VALGRIND))
    sa_hook_inline_fast_path();
  return f;
}

/* On x86-64 and AArch64 the slow path is preserve_most, which GCC cannot
 * define and clang 14-16 miscompile on x86-64 (RAX/RDX saved and restored
 * around the struct return: the frame comes back NULL). Such a runtime
 * leaves it undefined, so code built with -scope-alloc-slow-path=
 * preserve-most fails to link naming it instead of corrupting registers;
 * -scope-alloc-slow-path=standard calls __scopealloc_mark and
 * __scopealloc_alloc instead. The same rule as CMakeLists.txt's default. */
#if !(defined(__x86_64__) || defined(__aarch64__)) ||                          \
    (defined(__clang__) && __clang_major__ >= 17)
SA_COLD SCOPEALLOC_SLOW_PATH_CC scopealloc_frame
__scopealloc_frame_slow(size_t size, size_t align) {
  return sa_frame_slow_at(size, align, __builtin_return_address(0));
}
#endif

/* -scope-alloc-slow-path=frameless on x86-64 (ELF): the inline fast path's
 * slow branch is an inline asm call, so that the function needs no stack
 * frame of its own for it (a call in LLVM IR makes the whole function set
 * one up, 8% of a 2 KiB frame's call):
 *     mov -8(%rsp), %r11          (the red zone's word the call overwrites)
 *     call *__scopealloc_frame_thunk_regs@GOTPCREL(%rip)
 *     mov %r11, -8(%rsp)
 * with the size in rax and the alignment in rdx (a direct call under
 * retpoline). The caller's stack pointer never moves, so its own CFI holds
 * at each of its instructions, where an asynchronous cancel may unwind
 * from. The thunk steps over the rest of the red zone, keeps every register
 * but rax and rdx (the mark and the frame), aligns the stack itself and
 * calls sa_frame_slow_at with the standard convention, so any compiler can
 * build it. It starts with endbr64, the target of an indirect call under
 * CET's indirect branch tracking (a no-op elsewhere). Vector registers are
 * the caller's: its asm lists them as clobbered, as preserve_most leaves
 * them too.
 *
 * __scopealloc_frame_thunk is the same for objects built before: their
 * asm moved the stack pointer (lea -128(%rsp),%rsp; push $align; push
 * $size; call; lea 144(%rsp),%rsp), and its CFI puts the caller's stack
 * pointer 152 bytes above its entry's. */
#if defined(__x86_64__) && defined(__ELF__)
__asm__(".text\n"
        ".globl __scopealloc_frame_thunk_regs\n"
        ".type __scopealloc_frame_thunk_regs, @function\n"
        ".p2align 4\n"
        "__scopealloc_frame_thunk_regs:\n"
        ".cfi_startproc\n"
        "endbr64\n"
        "lea -120(%rsp), %rsp\n" /* with the return address: the red zone */
        ".cfi_adjust_cfa_offset 120\n"
        "push %rbp\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_offset %rbp, -136\n"
        "mov %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "push %rcx\n"
        "push %rsi\n"
        "push %rdi\n"
        "push %r8\n"
        "push %r9\n"
        "push %r10\n"
        "push %r11\n"
        "and $-16, %rsp\n"
        "mov %rax, %rdi\n"     /* size */
        "mov %rdx, %rsi\n"     /* align */
        "mov 128(%rbp), %rdx\n" /* the caller: inside its asm */
        "call sa_frame_slow_at\n"
        "lea -56(%rbp), %rsp\n"
        "pop %r11\n"
        "pop %r10\n"
        "pop %r9\n"
        "pop %r8\n"
        "pop %rdi\n"
        "pop %rsi\n"
        "pop %rcx\n"
        "pop %rbp\n"
        ".cfi_def_cfa %rsp, 128\n"
        ".cfi_restore %rbp\n"
        "lea 120(%rsp), %rsp\n"
        ".cfi_def_cfa_offset 8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size __scopealloc_frame_thunk_regs, . - __scopealloc_frame_thunk_regs\n"
        "\n"
        ".globl __scopealloc_frame_thunk\n"
        ".type __scopealloc_frame_thunk, @function\n"
        ".p2align 4\n"
        "__scopealloc_frame_thunk:\n"
        ".cfi_startproc\n"
        ".cfi_def_cfa_offset 152\n" /* ret, size, align, 128 of red zone */
        ".cfi_offset %rip, -152\n"
        "endbr64\n"
        "push %rbp\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_offset %rbp, -160\n"
        "mov %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "push %rcx\n"
        "push %rsi\n"
        "push %rdi\n"
        "push %r8\n"
        "push %r9\n"
        "push %r10\n"
        "and $-16, %rsp\n"
        "mov 16(%rbp), %rdi\n" /* size */
        "mov 24(%rbp), %rsi\n" /* align */
        "mov 8(%rbp), %rdx\n"  /* the caller: inside its asm */
        "call sa_frame_slow_at\n"
        "lea -48(%rbp), %rsp\n"
        "pop %r10\n"
        "pop %r9\n"
        "pop %r8\n"
        "pop %rdi\n"
        "pop %rsi\n"
        "pop %rcx\n"
        "pop %rbp\n"
        ".cfi_def_cfa %rsp, 152\n"
        ".cfi_restore %rbp\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size __scopealloc_frame_thunk, . - __scopealloc_frame_thunk\n");
#endif

/* Hot path: a single store of cur (plus the unsigned range check). */
void __scopealloc_release(void *mark) {
  if (SA_LIKELY(sa_release(sa_tls_pool(), mark)))
    return;
  sa_release_or_fail(sa_tls_pool(), SA_POOL_NAME, mark,
                     __builtin_return_address(0));
}

void scopealloc_thread_stats(scopealloc_stats *out) {
  const scopealloc_pool *pool = &__scopealloc_tls_pool;
  out->name = pool->name ? pool->name : SA_POOL_NAME; /* or a fiber arena's */
  out->current = (size_t)(sa_counted_top(pool) - pool->base);
  out->peak = sa_arena_peak(pool);
  out->capacity = (size_t)(pool->reserve_end - pool->base);
  out->allocs = pool->allocs;
  out->failures = pool->failures;
  sa_msan_written(out, sizeof *out);
}

/* Other threads' pools are read with relaxed loads while their owners run:
 * each value is whole, and the totals are exact once those threads are idle
 * or gone. */
void sa_process_totals_get(sa_process_totals *out) {
  sa_threads_lock();
  sa_zombies_reap();
  scopealloc_stats *s = &out->stats;
  s->name = SA_POOL_NAME;
  s->current = 0;
  s->peak = sa_exited_peak;
  s->capacity = sa_capacity;
  s->allocs = sa_exited_allocs;
  s->failures = sa_exited_failures;
  for (const scopealloc_pool *p = sa_live; p; p = p->next_thread_pool) {
    s->current += (size_t)(sa_counted_top(p) - p->base);
    size_t peak = sa_arena_peak(p);
    if (peak > s->peak)
      s->peak = peak;
    s->allocs += SA_COUNT_LOAD(&p->allocs);
    s->failures += SA_COUNT_LOAD(&p->failures);
  }
  const sa_fiber_hooks *fiber = SA_LOAD(&sa_fiber);
  if (fiber)
    fiber->totals_add(s);
  out->threads = sa_threads;
  out->live_threads = sa_live_threads;
  out->reservations = __atomic_load_n(&sa_reservations, __ATOMIC_RELAXED);
  out->cached = sa_cached;
  sa_threads_unlock();
}

/* sa_lock outside arena creation and teardown (statistics, exact counts,
 * fiber switches): with cancellation disabled, so that an asynchronous
 * cancel cannot end the thread while it holds the lock. The lock is not
 * recursive, so one saved state per thread is enough. sa_lock is only safe
 * to take once the fork handlers are registered. */
static __thread int sa_lock_cancel;
void sa_threads_lock(void) {
  int cancel;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
  pthread_once(&sa_atfork_once, sa_register_atfork);
  pthread_mutex_lock(&sa_lock);
  sa_lock_cancel = cancel;
}
void sa_threads_unlock(void) {
  int cancel = sa_lock_cancel;
  pthread_mutex_unlock(&sa_lock);
  pthread_setcancelstate(cancel, NULL);
}
