/* The core arena: what every pool shares beyond the inline sa_bump and
 * sa_release of internal.h. Failures are filled and counted here, then go
 * to the exhaustion handler (exhaustion.c). Needs no libc, so it also
 * builds with -ffreestanding for bare-metal targets. */
#define _GNU_SOURCE 1 /* syscall */
#include "internal.h"
#include "msan_hooks.h"

#if SCOPEALLOC_HOSTED && defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* The ABI version stamp every module the pass rewrites references (in all
 * runtimes: arena.c is in each; the shared one exports it). */
const char SCOPEALLOC_ABI_VERSION_SYMBOL = SCOPEALLOC_ABI_VERSION;

/* The id gdb, top and /proc show for the calling thread. */
static long sa_thread_id(void) {
#if SCOPEALLOC_HOSTED && defined(__linux__)
  return syscall(SYS_gettid);
#else
  return 0;
#endif
}

/* What any failure in `pool` reports. Relaxed loads: for IN_USE the pool is
 * another thread's. */
static void sa_fill(scopealloc_failure *f, const scopealloc_pool *pool,
                    const char *name, const char *reason, size_t size,
                    size_t align, const void *mark, const void *caller) {
  f->pool = pool->name ? pool->name : name; /* a fiber arena in the TLS pool */
  f->reason = reason;
  f->requested = size;
  f->alignment = align ? align : 1;
  f->available = (size_t)(pool->reserve_end - SA_LOAD_RELAXED(&pool->cur));
  f->peak = sa_peak(pool);
  f->capacity = (size_t)(pool->reserve_end - pool->base);
  f->mark = mark;
  f->caller = caller;
  f->partition = SCOPEALLOC_NO_PARTITION;
  f->partition_bytes = 0;
  f->partitions = 0;
  f->thread = sa_thread_id();
}

void sa_fail(scopealloc_pool *pool, const char *name, const char *reason,
             size_t size, size_t align, const void *mark,
             const void *caller) {
  scopealloc_failure f;
  sa_fill(&f, pool, name, reason, size, align, mark, caller);
  SA_COUNT_BUMP_SHARED(&pool->failures);
  sa_msan_written(&f, sizeof f);
  sa_report(&f);
}

#if !SCOPEALLOC_SINGLE_THREADED
void sa_fail_partition(scopealloc_pool *pool, sa_partition *part,
                       const char *reason, size_t size, size_t align,
                       const void *mark, const void *caller) {
  scopealloc_failure f;
  if (part) {
    sa_fill(&f, &part->arena, pool->name, reason, size, align, mark, caller);
    f.partition = part->index;
    /* Only its holder fails in a partition, but a statistics reader may
     * be loading the count: one writer, relaxed. */
    SA_COUNT_BUMP(&part->arena.failures);
  } else {
    /* No partition to measure: nothing is available to this thread. */
    sa_fill(&f, pool, pool->name, reason, size, align, mark, caller);
    f.available = 0;
    f.peak = sa_shared_peak(pool);
    SA_COUNT_BUMP_SHARED(&pool->failures);
  }
  f.pool = pool->name;
  f.partition_bytes = sa_partition_size(pool);
  f.partitions = sa_partition_count(pool);
  sa_msan_written(&f, sizeof f);
  sa_report(&f);
}
#endif

void sa_release_or_fail(scopealloc_pool *pool, const char *name, void *mark,
                        const void *caller) {
  if (!mark)
    mark = pool->base;
  if (!sa_release(pool, mark))
    sa_fail(pool, name, SCOPEALLOC_REASON_BAD_RELEASE, 0, 0, mark, caller);
}
