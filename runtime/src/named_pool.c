/* Named pools: mark/alloc/release over a fixed buffer that one thread at a
 * time owns, and the fork rule for pools whose owner did not survive. Needs
 * no libc, so it also builds with -ffreestanding for bare-metal targets. */
#include "internal.h"

#if SCOPEALLOC_HOSTED && !SCOPEALLOC_SINGLE_THREADED
#include <pthread.h>
static void sa_named_pools_register_atfork(void);
#else
static inline void sa_named_pools_register_atfork(void) {}
#endif

#if SCOPEALLOC_SINGLE_THREADED
#define sa_self() ((const void *)1)
#else
/* A thread's identity: the address of one of its thread-locals. */
static _Thread_local char sa_thread_tag;
#define sa_self() ((const void *)&sa_thread_tag)
#endif

static const char *sa_pool_name(const scopealloc_pool *pool) {
  return pool->name ? pool->name : "(unnamed)";
}

/* An empty pool belongs to no thread. */
static inline void sa_disown_if_empty(scopealloc_pool *pool) {
  if (pool->cur == pool->base)
    SA_STORE(&pool->owner, (const void *)0);
}

/* A thread that does not own the pool holds nothing in it, and the top may
 * move under it (the owner's frames) before it claims the pool: its mark is
 * NULL, "everything this thread holds", never a top it might later take for
 * its own. */
void *__scopealloc_pool_mark(scopealloc_pool *pool) {
#if SCOPEALLOC_SINGLE_THREADED
  return pool->cur;
#else
  return SA_LOAD_RELAXED(&pool->owner) == sa_self() ? pool->cur : (void *)0;
#endif
}

/* Cold: first allocation into an empty pool (takes ownership), a request from
 * another thread, or one that does not fit. `caller` is where the program
 * called __scopealloc_pool_alloc, for the failure report. */
static SA_COLD void *sa_pool_alloc_slow(scopealloc_pool *pool, size_t size,
                                        size_t align, const void *caller) {
  const void *self = sa_self();
  sa_hooks_ensure();
  sa_named_pools_register_atfork();
#if !SCOPEALLOC_SINGLE_THREADED
  const void *owner = SA_LOAD(&pool->owner);
  if (owner != self) {
    const void *expected = 0;
    if (owner != 0 ||
        !__atomic_compare_exchange_n(&pool->owner, &expected, self, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      sa_fail(pool, sa_pool_name(pool), SCOPEALLOC_REASON_IN_USE, size, align,
              0, caller);
    if (sa_hooked())
      sa_hook_claimed(pool);
  }
#else
  if (!pool->owner && sa_hooked())
    sa_hook_claimed(pool);
  pool->owner = self;
#endif
  void *p;
  if (sa_bump(pool, size, align, &p))
    return p;
  sa_disown_if_empty(pool); /* do not keep claiming a pool we did not use */
  sa_fail(pool, sa_pool_name(pool),
          (align & (align - 1)) ? SCOPEALLOC_REASON_BAD_ALIGNMENT
                                : SCOPEALLOC_REASON_EXHAUSTED,
          size, align, 0, caller);
}

/* Hot path: owner check plus sa_bump. */
void *__scopealloc_pool_alloc(scopealloc_pool *pool, size_t size,
                              size_t align) {
  void *p;
  if (SA_LIKELY(SA_LOAD_RELAXED(&pool->owner) == sa_self()) &&
      SA_LIKELY(sa_bump(pool, size, align, &p)))
    return p;
  return sa_pool_alloc_slow(pool, size, align, __builtin_return_address(0));
}

/* Cold: the NULL mark, a release by a thread that does not own the pool,
 * or a bad mark. A thread that does not own the pool holds nothing in it, so
 * the releases it can mean, to NULL or to the current top, change nothing;
 * it must not store `cur` even then: the owner may be moving it right now. */
static SA_COLD void sa_pool_release_slow(scopealloc_pool *pool, void *mark,
                                         const void *caller) {
  const void *owner = SA_LOAD(&pool->owner);
  if (owner != sa_self()) {
    if (!mark || mark == SA_LOAD_RELAXED(&pool->cur))
      return;
    sa_fail(pool, sa_pool_name(pool),
            owner ? SCOPEALLOC_REASON_IN_USE : SCOPEALLOC_REASON_BAD_RELEASE,
            0, 0, mark, caller);
  }
  /* A NULL mark: everything this thread holds (it owns the whole pool). */
  sa_release_or_fail(pool, sa_pool_name(pool), mark, caller);
  sa_disown_if_empty(pool);
}

/* Hot path: a store of cur, plus giving up ownership when the pool empties
 * (the NULL mark, the usual one of a frame that claimed the pool, is its
 * base). Only a thread that does not own the pool, or a mark outside
 * [base, cur], goes cold. */
void __scopealloc_pool_release(scopealloc_pool *pool, void *mark) {
  if (SA_LIKELY(SA_LOAD_RELAXED(&pool->owner) == sa_self()) &&
      SA_LIKELY(sa_release(pool, mark ? mark : pool->base))) {
    sa_disown_if_empty(pool);
    return;
  }
  sa_pool_release_slow(pool, mark, __builtin_return_address(0));
}

#if SCOPEALLOC_HOSTED && !SCOPEALLOC_SINGLE_THREADED
/* fork: a pool owned by a thread that does not exist in the child would stay
 * "in use" for good, and the thread that later reuses the dead thread's TLS
 * block would pass for its owner. Empty it, as the child's copy of that
 * thread's stack is abandoned. */
static void sa_pool_forget_dead_owner(const scopealloc_pool *cpool, void *ctx) {
  scopealloc_pool *pool = (scopealloc_pool *)cpool;
  const void *owner = pool->owner;
  (void)ctx;
  if (!owner || owner == sa_self())
    return;
  if (sa_hooked())
    sa_hook_release(pool, pool->base, (size_t)(pool->cur - pool->base));
  pool->cur = pool->base;
  pool->owner = 0;
}

static void sa_pools_after_fork_child(void) {
  scopealloc_for_each_pool(sa_pool_forget_dead_owner, 0);
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
#endif
