/* What the runtime tells the tools that watch memory, all cold:
 *
 *  - AddressSanitizer (the program is built with it, the runtime is not):
 *    released memory and alignment padding are poisoned, allocations
 *    unpoisoned, through the weak __asan_* functions.
 *  - Valgrind memcheck (client requests, compiled in when
 *    <valgrind/memcheck.h> was found at build time; not other Valgrind
 *    tools, see sa_hooks_init): every pool is a
 *    memcheck mempool, so an allocation is UNDEFINED, a release frees the
 *    allocations above the mark (reading them is an "Invalid read" that
 *    names the block and where it was allocated and released), and committed
 *    memory no allocation covers is NOACCESS.
 *  - ThreadSanitizer (the program is built with it, the runtime may not be):
 *    a named pool handed from one thread to the next through its owner word
 *    is a release/acquire pair TSan would not see in uninstrumented code, so
 *    the buffer's reuse by the next thread would look like a data race.
 *
 * Natively a client request is a few register moves, but they still stay out
 * of the fast paths: those test sa_hooks once and come here only when a tool
 * is present. */
#include "internal.h"

#if !SCOPEALLOC_HOSTED
#error "tool_hooks.c is hosted-only; freestanding builds inline the ASan hooks"
#endif

#if defined(SCOPEALLOC_HAVE_VALGRIND) && SCOPEALLOC_HAVE_VALGRIND
#include <valgrind/memcheck.h>
#define SA_VALGRIND 1
#else
#define SA_VALGRIND 0
#endif

/* The TSan interface (sanitizer/tsan_interface.h), weak so that the runtime
 * links without TSan. */
void __tsan_acquire(void *addr) __attribute__((weak));
void __tsan_release(void *addr) __attribute__((weak));

unsigned char sa_hooks;
unsigned char sa_hooks_ready;

void sa_hooks_init(void) {
  unsigned hooks = 0;
  if (__asan_poison_memory_region && __asan_unpoison_memory_region)
    hooks |= SA_HOOK_ASAN;
#if SA_VALGRIND
  /* Only a tool that keeps mempool records (memcheck) is told anything:
   * under callgrind, cachegrind or helgrind the client requests would do
   * nothing, and the runtime runs as it does natively (the arena cache
   * included), so that instruction counts are the native program's. A
   * mempool made and asked about at once tells the tools apart: the others
   * answer the question with 0. (On this thread's stack: threads that
   * race here each ask about their own.) */
  if (RUNNING_ON_VALGRIND) {
    char probe;
    VALGRIND_CREATE_MEMPOOL(&probe, 0, 0);
    if (VALGRIND_MEMPOOL_EXISTS(&probe))
      hooks |= SA_HOOK_VALGRIND;
    VALGRIND_DESTROY_MEMPOOL(&probe);
  }
#endif
  if (__tsan_acquire && __tsan_release)
    hooks |= SA_HOOK_TSAN;
  /* Every thread computes the same value: racing stores are harmless. */
  SA_STORE_RELAXED(&sa_hooks, (unsigned char)hooks);
  SA_STORE(&sa_hooks_ready, (unsigned char)1);
}

#if SA_VALGRIND
/* A pool's memcheck mempool is keyed by the pool's address. A thread's pool
 * lives in its TLS block, which a later thread may reuse (after fork, the
 * dead threads' pools are never destroyed): start such a pool afresh. */
static void sa_valgrind_open(scopealloc_pool *pool, const void *from,
                             size_t size) {
  if (VALGRIND_MEMPOOL_EXISTS(pool))
    VALGRIND_DESTROY_MEMPOOL(pool);
  VALGRIND_CREATE_MEMPOOL(pool, 0, 0);
  VALGRIND_MAKE_MEM_NOACCESS(from, size);
}
#endif

void sa_hook_commit(scopealloc_pool *pool, const void *start, size_t size) {
  (void)pool;
  if (sa_hooked() & SA_HOOK_ASAN)
    sa_poison(start, size);
#if SA_VALGRIND
  if (sa_hooked() & SA_HOOK_VALGRIND)
    VALGRIND_MAKE_MEM_NOACCESS(start, size);
#endif
}

void sa_hook_alloc(scopealloc_pool *pool, const void *cur, size_t pad,
                   const void *p, size_t size) {
  (void)pool;
  if (sa_hooked() & SA_HOOK_ASAN) {
    sa_poison(cur, pad);
    sa_unpoison(p, size);
  }
#if SA_VALGRIND
  /* The padding stays NOACCESS: it was above the top until now. An empty
   * allocation has nothing to access, and as a block it would overlap the
   * next one at the same address, which memcheck calls a bad mempool. */
  if ((sa_hooked() & SA_HOOK_VALGRIND) && size)
    VALGRIND_MEMPOOL_ALLOC(pool, p, size);
#endif
}

void sa_hook_release(scopealloc_pool *pool, const void *mark, size_t size) {
  if (sa_hooked() & SA_HOOK_ASAN)
    sa_poison(mark, size);
#if SA_VALGRIND
  /* LIFO: what survives is exactly the allocations in [base, mark). */
  if ((sa_hooked() & SA_HOOK_VALGRIND) && size)
    VALGRIND_MEMPOOL_TRIM(pool, pool->base,
                          (size_t)((const char *)mark - pool->base));
#endif
  /* Emptying a named pool gives it up (sa_disown_if_empty): publish this
   * thread's use of the buffer to whoever claims it next. */
  if ((sa_hooked() & SA_HOOK_TSAN) && (const char *)mark == pool->base)
    __tsan_release(&pool->owner);
}

void sa_hook_arena_created(scopealloc_pool *pool) {
  if (sa_hooked() & SA_HOOK_ASAN)
    sa_poison(pool->base, (size_t)(pool->limit - pool->base));
#if SA_VALGRIND
  if (sa_hooked() & SA_HOOK_VALGRIND)
    sa_valgrind_open(pool, pool->base, (size_t)(pool->limit - pool->base));
#endif
}

void sa_hook_arena_unmapping(scopealloc_pool *pool, const void *from) {
  /* ASan keeps shadow state for unmapped ranges; leave it clean for reuse. */
  if (sa_hooked() & SA_HOOK_ASAN)
    sa_unpoison(from, (size_t)(pool->limit - (const char *)from));
#if SA_VALGRIND
  if ((sa_hooked() & SA_HOOK_VALGRIND) && (const char *)from == pool->base)
    VALGRIND_DESTROY_MEMPOOL(pool);
#endif
}

void sa_hook_claimed(scopealloc_pool *pool) {
  if (sa_hooked() & SA_HOOK_TSAN)
    __tsan_acquire(&pool->owner);
#if SA_VALGRIND
  /* A named pool's first claim: its buffer was plain (defined) data until
   * now. Later claims find it NOACCESS above the top already. */
  if ((sa_hooked() & SA_HOOK_VALGRIND) && !VALGRIND_MEMPOOL_EXISTS(pool))
    sa_valgrind_open(pool, pool->cur, (size_t)(pool->reserve_end - pool->cur));
#endif
}

/* Only code built with the inline fast path calls __scopealloc_frame_slow
 * (at least for every thread's first frame). Its other bumps and its
 * releases do not call the runtime, so memcheck would miss reads of released
 * buffers and see inline-bumped ones as NOACCESS: say so once, with the
 * cure. */
void sa_hook_inline_fast_path(void) {
#if SA_VALGRIND
  static unsigned char warned;
  if (__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
    return;
  VALGRIND_PRINTF_BACKTRACE(
      "scopealloc: this code was built with the inline fast path, which "
      "bypasses the runtime's memcheck client requests, so memcheck misses "
      "or misreports errors in demoted buffers; rebuild it with -mllvm "
      "-scope-alloc-inline-fast-path=false to run it under Valgrind\n");
#endif
}

/* Reads of released or never-used arena memory that the runtime means to
 * make (the peak's scan for guarded frames' markers): memcheck would report
 * them. */
void sa_hook_quiet(int quiet) {
#if SA_VALGRIND
  if (sa_hooked() & SA_HOOK_VALGRIND) {
    if (quiet)
      VALGRIND_DISABLE_ERROR_REPORTING;
    else
      VALGRIND_ENABLE_ERROR_REPORTING;
  }
#else
  (void)quiet;
#endif
}
