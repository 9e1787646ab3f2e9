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
 * miss an update. An RTOS's tasks get arenas of their own switched into this
 * pool (task_arena.c); the pool's `owner` says whose frames it holds, and a
 * frame of another task is reported, not served (sa_task_claim). */
#include "internal.h"

#if SCOPEALLOC_HOSTED
#error "fixed_default_pool.c is for -ffreestanding builds; hosted builds use thread_arena.c"
#endif

#define SA_POOL_NAME "workspace"

void *__scopealloc_mark(void) { return __scopealloc_pool_workspace.cur; }

/* Cold: another task's frames are live here, the pool was last used by
 * another task (it becomes this one's), or the request does not fit. */
static SA_COLD void *sa_fixed_alloc_slow(size_t size, size_t align,
                                         const void *caller) {
  scopealloc_pool *pool = &__scopealloc_pool_workspace;
  if (!sa_task_claim(pool))
    sa_fail_other_task(pool, SA_POOL_NAME, size, align, caller);
  void *p;
  if (sa_bump(pool, size, align, &p))
    return p;
  sa_fail(pool, SA_POOL_NAME, sa_bump_failure(align), size, align, 0, caller);
}

/* Hot path: the owner check and sa_bump on the fixed buffer; it never
 * grows. */
void *__scopealloc_alloc(size_t size, size_t align) {
  void *p;
  if (SA_LIKELY(__scopealloc_pool_workspace.owner == sa_task_id()) &&
      SA_LIKELY(sa_bump(&__scopealloc_pool_workspace, size, align, &p)))
    return p;
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
