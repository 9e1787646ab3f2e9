/* The core arena: what every pool shares beyond the inline sa_bump and
 * sa_release of internal.h. Failures are filled and counted here, then go
 * to the exhaustion handler (exhaustion.c). Needs no libc, so it also
 * builds with -ffreestanding for bare-metal targets. */
#include "internal.h"
#include "msan_hooks.h"

/* The ABI version stamp every module the pass rewrites references (in all
 * runtimes: arena.c is in each; the shared one exports it). */
const char SCOPEALLOC_ABI_VERSION_SYMBOL = SCOPEALLOC_ABI_VERSION;

void sa_fail(scopealloc_pool *pool, const char *name, const char *reason,
             size_t size, size_t align, const void *mark,
             const void *caller) {
  scopealloc_failure f;
  f.pool = pool->name ? pool->name : name; /* a fiber arena in the TLS pool */
  f.reason = reason;
  f.requested = size;
  f.alignment = align ? align : 1;
  /* Relaxed loads: for IN_USE the pool is another thread's. */
  f.available = (size_t)(pool->reserve_end - SA_LOAD_RELAXED(&pool->cur));
  f.peak = sa_peak(pool);
  f.capacity = (size_t)(pool->reserve_end - pool->base);
  f.mark = mark;
  f.caller = caller;
  SA_COUNT_BUMP_SHARED(&pool->failures);
  sa_msan_written(&f, sizeof f);
  sa_report(&f);
}

void sa_release_or_fail(scopealloc_pool *pool, const char *name, void *mark,
                        const void *caller) {
  if (!mark)
    mark = pool->base;
  if (!sa_release(pool, mark))
    sa_fail(pool, name, SCOPEALLOC_REASON_BAD_RELEASE, 0, 0, mark, caller);
}
