/* Named pools: mark/alloc/release over a fixed buffer. A plain pool is owned
 * by one thread at a time; a shared pool is cut into partitions, one per
 * thread that uses it (internal.h). What a thread holds goes back when it
 * exits, and what threads that did not survive a fork held goes back in the
 * child. Single-threaded (bare-metal) builds need no libc: they keep the
 * plain pool and compile the rest out. */
#include "internal.h"

#if !SCOPEALLOC_SINGLE_THREADED
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static void sa_named_pools_register_atfork(void);
#elif !defined(EINVAL)
#define EINVAL 22 /* freestanding: no <errno.h>; the usual value */
#endif

static const char *sa_pool_name(const scopealloc_pool *pool) {
  return pool->name ? pool->name : "(unnamed)";
}

/* Whether partitions of `bytes` (0: none), rounded up to SA_PARTITION_ALIGN
 * into `*rounded`, fit the pool. */
static int sa_partition_fits(const scopealloc_pool *pool, size_t bytes,
                             size_t *rounded) {
  *rounded = sa_partition_round(bytes);
  return !bytes || (*rounded >= bytes &&
                    *rounded <= (size_t)(pool->reserve_end - pool->base));
}

#if SCOPEALLOC_SINGLE_THREADED
/* One thread of execution, or an RTOS's tasks taking turns on one core: no
 * partitions and no atomics. `owner` is the task whose frames a non-empty
 * pool holds (internal.h, sa_task_id: NULL without tasks), checked where a
 * frame takes memory; the mark stays a load. */
const void *sa_task_running;
const void *const volatile *sa_task_id_word = &sa_task_running;

void *__scopealloc_pool_mark(scopealloc_pool *pool) { return pool->cur; }

/* Cold: another task holds the pool (or it is empty and someone else's),
 * the first allocation (hooks), or a request that does not fit. */
static SA_COLD void *sa_pool_alloc_slow(scopealloc_pool *pool, size_t size,
                                        size_t align, const void *caller) {
  if (!sa_task_claim(pool))
    sa_fail_other_task(pool, sa_pool_name(pool), size, align, caller);
  if (sa_hooked())
    sa_hook_claimed(pool);
  void *p;
  if (sa_bump(pool, size, align, &p))
    return p;
  sa_fail(pool, sa_pool_name(pool), sa_bump_failure(align), size, align, 0,
          caller);
}

/* Hot path: owner check plus sa_bump. */
void *__scopealloc_pool_alloc(scopealloc_pool *pool, size_t size,
                              size_t align) {
  void *p;
  if (SA_LIKELY(pool->owner == sa_task_id()) &&
      SA_LIKELY(sa_bump(pool, size, align, &p)))
    return p;
  return sa_pool_alloc_slow(pool, size, align, __builtin_return_address(0));
}

/* Hot path: a store of cur. */
void __scopealloc_pool_release(scopealloc_pool *pool, void *mark) {
  if (SA_LIKELY(sa_release(pool, mark ? mark : pool->base)))
    return;
  sa_release_or_fail(pool, sa_pool_name(pool), mark,
                     __builtin_return_address(0));
}

/* One thread: a shared pool serves it whole. Only the size is checked. */
int scopealloc_pool_set_partition(scopealloc_pool *pool, size_t bytes) {
  size_t rounded;
  if (!sa_partition_fits(pool, bytes, &rounded))
    return EINVAL;
  return 0;
}

#else  /* threads */

/* What the calling thread holds in named pools. Its address is the thread's
 * identity in `owner`: never a pool's address (the shared mark), and given
 * up by the thread before it exits, so a later thread that gets the same
 * TLS block finds nothing to pass for. */
typedef struct sa_pool_thread {
  /* One-entry cache, read by the hot paths: a shared pool this thread
   * holds a partition of, and that partition's arena. */
  scopealloc_pool *cached_pool;
  scopealloc_pool *cached_part;
  sa_partition *held;  /* every partition it holds (linked by next_held) */
  size_t owned;        /* plain pools it owns now */
  unsigned char armed; /* the key is set: the exit destructor will run */
} sa_pool_thread;

static _Thread_local sa_pool_thread sa_thread;

static inline sa_pool_thread *sa_self(void) { return &sa_thread; }

static inline int sa_owns(const sa_pool_thread *t, scopealloc_pool *arena) {
  return SA_LOAD_RELAXED(&arena->owner) == (const void *)t;
}

/* The hot paths ask which arena the calling thread uses in `pool`: a plain
 * pool it owns (checked first, the code plain pools ran before pools were
 * shared), or the partition in the cache, the thread's for as long as it is
 * cached; anything else goes cold. */
static inline int sa_cached(const sa_pool_thread *t, scopealloc_pool *pool) {
  return t->cached_pool == pool;
}

/* ---- Thread exit ----
 *
 * The first claim of a pool or partition arms a pthread key whose
 * destructor gives back everything the thread still holds: at return from
 * the thread function, pthread_exit or cancellation, whichever frames were
 * live (C frames that a cancellation unwinds release nothing). Like the
 * thread arena's key (thread_arena.c), a claim in a later key destructor
 * arms it again, for the next round; the key is deleted at unload. */
static pthread_once_t sa_pool_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t sa_pool_key;
static int sa_pool_key_made, sa_pool_unloaded;

/* Empties `arena` (the calling thread's) and gives it up. */
static void sa_give_back(scopealloc_pool *arena) {
  char *cur = arena->cur;
  if (sa_hooked()) /* also TSan's release to the next holder */
    sa_hook_release(arena, arena->base, (size_t)(cur - arena->base));
  SA_STORE_RELAXED(&arena->cur, arena->base);
  SA_STORE(&arena->owner, (const void *)0);
}

static void sa_give_back_if_mine(const scopealloc_pool *cpool, void *ctx) {
  scopealloc_pool *pool = (scopealloc_pool *)cpool;
  if (SA_LOAD_RELAXED(&pool->owner) == ctx)
    sa_give_back(pool);
}

static void sa_pool_thread_exit(void *arg) {
  sa_pool_thread *t = (sa_pool_thread *)arg;
  t->armed = 0;
  t->cached_pool = t->cached_part = NULL;
  for (sa_partition *p = t->held, *next; p; p = next) {
    next = p->next_held;
    p->next_held = NULL;
    sa_give_back(&p->arena);
  }
  t->held = NULL;
  /* Rare (a thread that died inside a frame): find its plain pools. */
  if (t->owned) {
    scopealloc_for_each_pool(sa_give_back_if_mine, t);
    t->owned = 0;
  }
}

static void sa_pool_key_init(void) {
  if (pthread_key_create(&sa_pool_key, sa_pool_thread_exit) != 0) {
    fprintf(stderr, "scopealloc: pthread_key_create failed\n");
    abort();
  }
  SA_STORE(&sa_pool_key_made, 1);
}

static SA_COLD void sa_arm(sa_pool_thread *t) {
  pthread_once(&sa_pool_key_once, sa_pool_key_init);
  if (!SA_LOAD(&sa_pool_unloaded))
    pthread_setspecific(sa_pool_key, t);
  t->armed = 1;
}

/* Unload (dlclose of a library with its own copy of the runtime) or exit:
 * threads ending later must not call a destructor that may be unmapped;
 * what they hold then stays held. */
__attribute__((destructor)) static void sa_named_pools_unload(void) {
  SA_STORE(&sa_pool_unloaded, 1);
  if (SA_LOAD(&sa_pool_key_made))
    pthread_key_delete(sa_pool_key);
}

/* ---- Plain pools: one owner at a time ---- */

static inline void sa_disown_if_empty(sa_pool_thread *t,
                                      scopealloc_pool *pool) {
  if (pool->cur == pool->base) {
    SA_STORE(&pool->owner, (const void *)0);
    t->owned--;
  }
}

/* Takes the (empty) plain pool for `t`; 0 if another thread has it. */
static int sa_claim(sa_pool_thread *t, scopealloc_pool *pool) {
  const void *expected = 0;
  if (!__atomic_compare_exchange_n(&pool->owner, &expected, (const void *)t, 0,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return 0;
  t->owned++;
  if (!t->armed)
    sa_arm(t);
  if (sa_hooked())
    sa_hook_claimed(pool);
  return 1;
}

/* ---- Shared pools: a partition per thread ---- */

/* The partitions of `pool`, made by the first thread to use it. */
static SA_COLD sa_partition *sa_partitions_make(scopealloc_pool *pool) {
  sa_partition *parts = sa_partitions(pool);
  size_t count = sa_partition_count(pool);
  if (parts || !count)
    return parts;
  size_t size = sa_partition_size(pool);
  parts = (sa_partition *)calloc(count, sizeof *parts);
  if (!parts)
    return NULL;
  for (size_t i = 0; i < count; i++) {
    scopealloc_pool *a = &parts[i].arena;
    a->base = a->cur = a->high = pool->base + i * size;
    a->limit = a->reserve_end = a->base + size;
    a->name = pool->name;
    parts[i].pool = pool;
    parts[i].index = i;
  }
  /* Another thread may have made them meanwhile: the first one wins. */
  scopealloc_pool *expected = NULL;
  if (!__atomic_compare_exchange_n(&pool->next_thread_pool, &expected,
                                   &parts->arena, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    free(parts);
    return (sa_partition *)expected;
  }
  return parts;
}

/* The partition `t` holds in `pool`, now in the cache; NULL if none. */
static sa_partition *sa_held(sa_pool_thread *t, scopealloc_pool *pool) {
  for (sa_partition *p = t->held; p; p = p->next_held)
    if (p->pool == pool) {
      t->cached_pool = pool;
      t->cached_part = &p->arena;
      return p;
    }
  return NULL;
}

/* The thread's partition of `pool`: the one it holds, or a free one it
 * takes now (lowest first). Reports a pool with none free. */
static SA_COLD sa_partition *sa_partition_get(sa_pool_thread *t,
                                              scopealloc_pool *pool,
                                              size_t size, size_t align,
                                              const void *caller) {
  sa_partition *p = sa_held(t, pool);
  if (p)
    return p;
  sa_partition *parts = sa_partitions_make(pool);
  if (!parts && sa_partition_count(pool))
    sa_fail_partition(pool, NULL, SCOPEALLOC_REASON_NO_MEMORY, size, align, 0,
                      caller);
  for (size_t i = 0, n = sa_partition_count(pool); i < n; i++) {
    const void *expected = 0;
    if (SA_LOAD_RELAXED(&parts[i].arena.owner) ||
        !__atomic_compare_exchange_n(&parts[i].arena.owner, &expected,
                                     (const void *)t, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_RELAXED))
      continue;
    p = &parts[i];
    p->next_held = t->held;
    t->held = p;
    if (!t->armed)
      sa_arm(t);
    if (sa_hooked())
      sa_hook_claimed(&p->arena);
    return sa_held(t, pool);
  }
  sa_fail_partition(pool, NULL, SCOPEALLOC_REASON_NO_PARTITION, size, align, 0,
                    caller);
}

/* ---- Entry points ---- */

/* Cold: a shared pool not in the cache, or a plain pool this thread does
 * not own. A thread that does not own a plain pool holds nothing in it, and
 * the top may move under it (the owner's frames) before it claims the pool:
 * its mark is NULL, "everything this thread holds", never a top it might
 * later take for its own. The same for a shared pool it has no partition
 * of yet. */
static SA_COLD void *sa_pool_mark_slow(sa_pool_thread *t,
                                       scopealloc_pool *pool) {
  if (sa_pool_is_shared(pool)) {
    sa_partition *p = sa_held(t, pool);
    return p ? p->arena.cur : (void *)0;
  }
  return (void *)0;
}

/* Hot path: the owner or cache check, and cur. */
void *__scopealloc_pool_mark(scopealloc_pool *pool) {
  sa_pool_thread *t = sa_self();
  if (SA_LIKELY(sa_owns(t, pool)))
    return pool->cur;
  if (sa_cached(t, pool))
    return t->cached_part->cur;
  return sa_pool_mark_slow(t, pool);
}

/* Cold: a shared pool not in the cache (a partition to find or take), the
 * first allocation into an empty plain pool (takes ownership), a request
 * from another thread, or one that does not fit. `caller` is where the
 * program called __scopealloc_pool_alloc, for the failure report. */
static SA_COLD void *sa_pool_alloc_slow(sa_pool_thread *t,
                                        scopealloc_pool *pool, size_t size,
                                        size_t align, const void *caller) {
  sa_hooks_ensure();
  sa_named_pools_register_atfork();
  void *p;
  if (sa_pool_is_shared(pool)) {
    sa_partition *part = sa_partition_get(t, pool, size, align, caller);
    if (sa_bump(&part->arena, size, align, &p))
      return p;
    sa_fail_partition(pool, part, sa_bump_failure(align), size, align, 0,
                      caller);
  }
  if (!sa_owns(t, pool) && !sa_claim(t, pool))
    sa_fail(pool, sa_pool_name(pool), SCOPEALLOC_REASON_IN_USE, size, align, 0,
            caller);
  if (sa_bump(pool, size, align, &p))
    return p;
  sa_disown_if_empty(t, pool); /* do not keep claiming a pool we did not use */
  sa_fail(pool, sa_pool_name(pool), sa_bump_failure(align), size, align, 0,
          caller);
}

/* Hot path: the owner or cache check, plus sa_bump. */
void *__scopealloc_pool_alloc(scopealloc_pool *pool, size_t size,
                              size_t align) {
  sa_pool_thread *t = sa_self();
  scopealloc_pool *a;
  void *p;
  if (SA_LIKELY(sa_owns(t, pool)))
    a = pool;
  else if (sa_cached(t, pool))
    a = t->cached_part;
  else
    goto cold;
  if (SA_LIKELY(sa_bump(a, size, align, &p)))
    return p;
cold:
  return sa_pool_alloc_slow(t, pool, size, align, __builtin_return_address(0));
}

/* Cold: the NULL mark, a shared pool not in the cache, a release by a
 * thread that does not own the plain pool, or a bad mark. A thread that
 * does not own a plain pool (or has no partition of a shared one) holds
 * nothing in it, so the releases it can mean, to NULL or to the current
 * top, change nothing; it must not store `cur` even then: the owner may be
 * moving it right now. */
static SA_COLD void sa_pool_release_slow(sa_pool_thread *t,
                                         scopealloc_pool *pool, void *mark,
                                         const void *caller) {
  if (sa_pool_is_shared(pool)) {
    sa_partition *part = sa_held(t, pool);
    if (!part) {
      if (!mark)
        return;
      sa_fail_partition(pool, NULL, SCOPEALLOC_REASON_BAD_RELEASE, 0, 0, mark,
                        caller);
    }
    /* A partition stays with its thread when it empties. */
    if (!sa_release(&part->arena, mark ? mark : part->arena.base))
      sa_fail_partition(pool, part, SCOPEALLOC_REASON_BAD_RELEASE, 0, 0, mark,
                        caller);
    return;
  }
  const void *owner = SA_LOAD(&pool->owner);
  if (owner != (const void *)t) {
    if (!mark || mark == SA_LOAD_RELAXED(&pool->cur))
      return;
    sa_fail(pool, sa_pool_name(pool),
            owner ? SCOPEALLOC_REASON_IN_USE : SCOPEALLOC_REASON_BAD_RELEASE, 0,
            0, mark, caller);
  }
  /* A NULL mark: everything this thread holds (it owns the whole pool). */
  sa_release_or_fail(pool, sa_pool_name(pool), mark, caller);
  sa_disown_if_empty(t, pool);
}

/* Hot path: a store of cur; a plain pool that empties is given up (the
 * NULL mark, the usual one of a frame that claimed the pool, is its base),
 * a partition is kept. Only a thread that holds nothing here (or a shared
 * pool not in the cache), or a mark outside [base, cur], goes cold. */
void __scopealloc_pool_release(scopealloc_pool *pool, void *mark) {
  sa_pool_thread *t = sa_self();
  if (SA_LIKELY(sa_owns(t, pool))) {
    if (SA_LIKELY(sa_release(pool, mark ? mark : pool->base))) {
      sa_disown_if_empty(t, pool);
      return;
    }
  } else if (sa_cached(t, pool)) {
    scopealloc_pool *a = t->cached_part;
    if (SA_LIKELY(sa_release(a, mark ? mark : a->base)))
      return;
  }
  sa_pool_release_slow(t, pool, mark, __builtin_return_address(0));
}

/* Shared is marked by `owner` == the pool, which no thread's claim can
 * take (claims need 0), set after the size so that a thread that sees the
 * mark sees the size. Sizes change only before a thread used the pool
 * shared (its partitions are made then). */
int scopealloc_pool_set_partition(scopealloc_pool *pool, size_t bytes) {
  size_t rounded;
  if (!sa_partition_fits(pool, bytes, &rounded))
    return EINVAL;
  const void *shared = (const void *)pool;
  if (sa_pool_is_shared(pool)) {
    if (sa_partitions(pool))
      return bytes && rounded == sa_partition_size(pool) ? 0 : EBUSY;
    if (bytes) {
      SA_STORE(&pool->unrounded, (char *)(uintptr_t)bytes);
      return 0;
    }
    /* Plain again: give the pool to claims. */
    if (!__atomic_compare_exchange_n(&pool->owner, &shared, (const void *)0, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return EBUSY;
    SA_STORE(&pool->unrounded, (char *)0);
    return 0;
  }
  if (!bytes)
    return 0;
  SA_STORE(&pool->unrounded, (char *)(uintptr_t)bytes);
  const void *expected = 0;
  if (SA_LOAD_RELAXED(&pool->cur) != pool->base ||
      !__atomic_compare_exchange_n(&pool->owner, &expected, shared, 0,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    SA_STORE(&pool->unrounded, (char *)0);
    return EBUSY;
  }
  return 0;
}

/* fork: a pool or partition held by a thread that does not exist in the
 * child would stay taken for good, and the thread that later reuses the
 * dead thread's TLS block would pass for its holder. Empty it, as the
 * child's copy of that thread's stack is abandoned. The forking thread
 * keeps what it holds. */
static void sa_forget_dead_holder(scopealloc_pool *arena) {
  const void *owner = arena->owner;
  if (!owner || owner == (const void *)sa_self())
    return;
  if (sa_hooked())
    sa_hook_release(arena, arena->base, (size_t)(arena->cur - arena->base));
  arena->cur = arena->base;
  arena->owner = 0;
}

static void sa_pool_after_fork(const scopealloc_pool *cpool, void *ctx) {
  scopealloc_pool *pool = (scopealloc_pool *)cpool;
  (void)ctx;
  if (!sa_pool_is_shared(pool)) {
    sa_forget_dead_holder(pool);
    return;
  }
  sa_partition *parts = sa_partitions(pool);
  if (parts)
    for (size_t i = 0, n = sa_partition_count(pool); i < n; i++)
      sa_forget_dead_holder(&parts[i].arena);
}

static void sa_pools_after_fork_child(void) {
  scopealloc_for_each_pool(sa_pool_after_fork, 0);
}

/* Registered at load time and, should a constructor of another object claim
 * a pool first, at the first claim. Only a child handler: it takes no lock,
 * and running it twice (pthread_once restarted in a child forked during the
 * registration) only empties the same pools twice. */
static pthread_once_t sa_named_pools_once = PTHREAD_ONCE_INIT;
static void sa_named_pools_atfork(void) {
  pthread_atfork(0, 0, sa_pools_after_fork_child);
}
static void sa_named_pools_register_atfork(void) {
  pthread_once(&sa_named_pools_once, sa_named_pools_atfork);
}
__attribute__((constructor)) static void sa_named_pools_load(void) {
  sa_named_pools_register_atfork();
}
#endif /* threads */
