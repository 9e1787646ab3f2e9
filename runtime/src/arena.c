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

/* What any failure in `pool` reports. Relaxed loads: for IN_USE the pool is
 * another thread's. Inlined: a frame of its own would count against the
 * stack that bare-metal bounds assume for the runtime
 * (analysis/FreestandingRuntimeStack.def). */
static inline __attribute__((always_inline)) void
sa_fill(scopealloc_failure *f, const scopealloc_pool *pool, const char *name,
        const char *reason, size_t size, size_t align, const void *mark,
        const void *caller) {
  f->pool = pool->name ? pool->name : name; /* a fiber arena in the TLS pool */
  f->reason = reason;
  f->requested = size;
  f->alignment = align ? align : 1;
  f->available = sa_usable_capacity(pool) -
                 sa_used_to(pool, sa_counted_top(pool));
  f->peak = sa_peak(pool);
  f->capacity = sa_usable_capacity(pool);
  f->mark = mark;
  f->caller = caller;
  f->partition = 0;
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

#if SCOPEALLOC_SINGLE_THREADED
void sa_fail_other_task(scopealloc_pool *pool, const char *name, size_t size,
                        size_t align, const void *caller) {
  sa_fail(pool, name, SCOPEALLOC_REASON_OTHER_TASK, size, align,
          SA_LOAD_RELAXED(&pool->cur), caller);
}
#endif

#if !SCOPEALLOC_SINGLE_THREADED
/* The id gdb, top and /proc show for the calling thread. */
static long sa_thread_id(void) {
#if defined(__linux__)
  return syscall(SYS_gettid);
#else
  return 0;
#endif
}

/* Per thread, so that it outlives a handler that longjmps. */
static _Thread_local scopealloc_partition_failure sa_partition_failure;

void sa_fail_partition(scopealloc_pool *pool, sa_partition *part,
                       const char *reason, size_t size, size_t align,
                       const void *mark, const void *caller) {
  scopealloc_failure f;
  scopealloc_partition_failure *where = &sa_partition_failure;
  where->index = part ? part->index : SCOPEALLOC_NO_PARTITION;
  where->bytes = sa_partition_size(pool);
  where->count = sa_partition_count(pool);
  where->thread = sa_thread_id();
  if (part) {
    sa_fill(&f, &part->arena, pool->name, reason, size, align, mark, caller);
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
  f.partition = where;
  sa_msan_written(where, sizeof *where);
  sa_msan_written(&f, sizeof f);
  sa_report(&f);
}
#endif

void sa_release_or_fail(scopealloc_pool *pool, const char *name, void *mark,
                        const void *caller) {
  if (!mark)
    mark = pool->base;
  if (sa_release(pool, mark))
    return;
  /* Inside the pool but above the top: the frame is gone already, or it is
   * another context's that shares this arena (fibers switching stacks
   * without switching arenas), whose release has just freed it under us. */
  char *at = (char *)mark;
  int above = at > pool->cur && at <= pool->reserve_end;
  sa_fail(pool, name,
          above ? SCOPEALLOC_REASON_RELEASE_ABOVE_TOP
                : SCOPEALLOC_REASON_BAD_RELEASE,
          0, 0, mark, caller);
}
