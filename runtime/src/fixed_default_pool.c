/* The default workspace pool of freestanding (bare-metal) builds: the fixed
 * buffer of the named pool `workspace`, which the application defines with
 * SCOPEALLOC_DEFINE_POOL(workspace, SIZE) (or the _IN_SECTION/_OVER forms).
 * The reference to __scopealloc_pool_workspace below is deliberate: a program
 * whose code was demoted to the default pool but that defines no workspace
 * fails to link, naming that symbol.
 *
 * Single-threaded: no TLS, no atomics (Cortex-M0 has none; others would need
 * no libatomic either). Interrupt handlers nest like stack frames and the
 * pass releases every frame it opens, so a handler running demoted code
 * leaves `cur` where it found it; only the `high`/`allocs` counters may then
 * miss an update. Code the pass built for Arm bumps this pool inline
 * (`cur` against `bound`, see sa_default_bound) and releases with a store
 * of `cur`: the calls below are then its slow path. An RTOS's tasks get arenas of their own switched into this
 * pool (task_arena.c); the pool's `owner` says whose frames it holds, and a
 * frame of another task is reported, not served (sa_task_claim). */
#include "internal.h"

#if SCOPEALLOC_HOSTED
#error "fixed_default_pool.c is for -ffreestanding builds; hosted builds use thread_arena.c"
#endif

#define SA_POOL_NAME "workspace"

void *__scopealloc_mark(void) { return __scopealloc_pool_workspace.cur; }

/* Returns `p`, the frame sa_bump just served, after rounding the pool's
 * top up to SA_MIN_ALIGN (at most to `limit`), as scopealloc-bound counts
 * every bump, and setting the inline fast path's bound (sa_default_bound):
 * code the pass built for Arm starts a frame aligned to at most 8 at `cur`
 * itself. A top off that alignment is the limit itself, where no frame fits
 * inline. Apart and tail-called, so that the entry points' own frames, which
 * the stack bounds count below every demoted frame, stay as they were. */
static __attribute__((noinline)) void *sa_fixed_served(scopealloc_pool *pool,
                                                       void *p) {
  uintptr_t top = ((uintptr_t)pool->cur + (SA_MIN_ALIGN - 1)) &
                  ~(uintptr_t)(SA_MIN_ALIGN - 1);
  if (top > (uintptr_t)pool->limit)
    top = (uintptr_t)pool->limit;
  pool->cur = (char *)top;
  if ((char *)top > pool->high)
    pool->high = (char *)top;
  pool->bound = sa_default_bound(pool);
  return p;
}

/* Cold: another task's frames are live here, the pool was last used by
 * another task (it becomes this one's), or the request does not fit. */
static SA_COLD void *sa_fixed_alloc_slow(size_t size, size_t align,
                                         const void *caller) {
  scopealloc_pool *pool = &__scopealloc_pool_workspace;
  if (!sa_task_claim(pool))
    sa_fail_other_task(pool, SA_POOL_NAME, size, align, caller);
  void *p;
  if (sa_bump(pool, size, align, &p))
    return sa_fixed_served(pool, p);
  sa_fail(pool, SA_POOL_NAME, sa_bump_failure(align), size, align, 0, caller);
}

/* The owner check and the bump on the fixed buffer (it never grows), then
 * the inline fast path's bound: a frame that set a new peak, a task's first
 * frame in its arena, the first frame after a switch to a task that has not
 * claimed the pool, all come here (docs/internals.md). */
void *__scopealloc_alloc(size_t size, size_t align) {
  scopealloc_pool *pool = &__scopealloc_pool_workspace;
  void *p;
  if (SA_LIKELY(pool->owner == sa_task_id()) &&
      SA_LIKELY(sa_bump(pool, size, align, &p)))
    return sa_fixed_served(pool, p);
  return sa_fixed_alloc_slow(size, align, __builtin_return_address(0));
}

/* Hot path: a single store of cur (plus the unsigned range check). */
void __scopealloc_release(void *mark) {
  if (SA_LIKELY(sa_release(&__scopealloc_pool_workspace, mark)))
    return;
  sa_release_or_fail(&__scopealloc_pool_workspace, SA_POOL_NAME, mark,
                     __builtin_return_address(0));
}

/* One thread: the thread's pool and the process's are the workspace. */
void scopealloc_thread_stats(scopealloc_stats *out) {
  scopealloc_pool_stats(&__scopealloc_pool_workspace, out);
  out->name = SA_POOL_NAME;
}

void scopealloc_process_stats(scopealloc_stats *out) {
  scopealloc_thread_stats(out);
}
