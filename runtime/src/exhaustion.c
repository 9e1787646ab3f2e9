/* The replaceable exhaustion handler. Everything here is cold. */
#define _GNU_SOURCE 1 /* dladdr, dladdr1 */
#include "internal.h"

#if SCOPEALLOC_HOSTED
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <link.h>
#endif
#endif

static scopealloc_exhaustion_handler sa_handler; /* NULL: the default */

#if SCOPEALLOC_HOSTED
/* Names the code that made the failing request. dladdr sees only the dynamic
 * symbol table (exported functions: shared libraries, -rdynamic programs);
 * for the rest it still knows the object, and the object-relative address is
 * what addr2line takes. */
static void sa_print_caller(const void *caller) {
  if (!caller)
    return;
  /* A return address may lie just past the end of its function (a call to
   * a noreturn function last): look up the call instruction's last byte. */
  const char *call = (const char *)caller - 1;
  Dl_info info;
  uintptr_t bias;
#ifdef __GLIBC__
  /* l_addr is the load bias, which addr2line needs subtracted: unlike
   * dli_fbase it is also right for non-PIE programs (bias 0). */
  struct link_map *map = NULL;
  int found = dladdr1(call, &info, (void **)&map, RTLD_DL_LINKMAP);
  bias = found && map ? (uintptr_t)map->l_addr : (uintptr_t)info.dli_fbase;
#else
  int found = dladdr(call, &info);
  bias = (uintptr_t)info.dli_fbase;
#endif
  if (!found || !info.dli_fname) {
    fprintf(stderr, "scopealloc:   called from %p\n", caller);
    return;
  }
  /* glibc names the main program "" */
  const char *object = *info.dli_fname ? info.dli_fname : "/proc/self/exe";
  if (info.dli_sname && info.dli_saddr) {
    fprintf(stderr, "scopealloc:   called from %s+0x%zx (%s)\n",
            info.dli_sname,
            (size_t)((const char *)caller - (const char *)info.dli_saddr),
            object);
    return;
  }
  fprintf(stderr,
          "scopealloc:   called from %s+0x%zx (not an exported function: "
          "`addr2line -f -e %s 0x%zx` names it)\n",
          object, (size_t)((uintptr_t)caller - bias), object,
          (size_t)((uintptr_t)call - bias));
}

static int sa_is(const scopealloc_failure *f, const char *reason) {
  return f->reason && strcmp(f->reason, reason) == 0;
}

/* A shared pool's failure names the partition and the thread. */
static void sa_print_partition_failure(const scopealloc_failure *f) {
  const scopealloc_partition_failure *p = f->partition;
  if (p->index == SCOPEALLOC_NO_PARTITION) {
    if (sa_is(f, SCOPEALLOC_REASON_BAD_RELEASE))
      fprintf(stderr,
              "scopealloc: pool '%s': %s (mark %p; thread %ld holds none of "
              "its %zu partitions of %zu bytes)\n",
              f->pool, f->reason, f->mark, p->thread, p->count, p->bytes);
    else
      fprintf(stderr,
              "scopealloc: pool '%s': %s (%zu partitions of %zu bytes, peak "
              "%zu; thread %ld requested %zu bytes (align %zu))\n",
              f->pool, f->reason, p->count, p->bytes, f->peak, p->thread,
              f->requested, f->alignment);
    if (sa_is(f, SCOPEALLOC_REASON_NO_PARTITION))
      fprintf(stderr, "scopealloc:   a thread keeps its partition until it "
                      "exits: the pool needs one for every thread that uses "
                      "it at once\n");
    sa_print_caller(f->caller);
    return;
  }
  if (sa_is(f, SCOPEALLOC_REASON_BAD_RELEASE)) {
    fprintf(stderr,
            "scopealloc: pool '%s' partition %zu (of %zu, %zu bytes each; "
            "thread %ld): %s (mark %p; %zu bytes in use, capacity %zu)\n",
            f->pool, p->index, p->count, p->bytes, p->thread, f->reason,
            f->mark, f->capacity - f->available, f->capacity);
    sa_print_caller(f->caller);
    return;
  }
  int is_exhausted = sa_is(f, SCOPEALLOC_REASON_EXHAUSTED);
  fprintf(stderr,
          "scopealloc: pool '%s' partition %zu (of %zu, %zu bytes each; "
          "thread %ld)%s%s: requested %zu bytes (align %zu), available %zu, "
          "peak %zu, capacity %zu\n",
          f->pool, p->index, p->count, p->bytes, p->thread,
          is_exhausted ? " " : ": ", f->reason, f->requested, f->alignment,
          f->available, f->peak, f->capacity);
  sa_print_caller(f->caller);
}

/* What makes the request fit: the pool's size, where it is set. */
static void sa_print_remedy(const scopealloc_failure *f) {
  size_t used = f->capacity - f->available;
  size_t needed =
      f->requested > SIZE_MAX - used ? SIZE_MAX : used + f->requested;
  if (strcmp(f->pool, "workspace") == 0) /* the thread arena */
    fprintf(stderr,
            "scopealloc:   the default pool is a per-thread arena of at most "
            "%zu bytes: raise the cap (SCOPEALLOC_RESERVE=<bytes>, at least "
            "%zu here), or keep more buffers on the stack "
            "(-scope-alloc-max-stack-alloca)\n",
            f->capacity, needed);
  else if (strncmp(f->pool, "workspace/", 10) == 0) /* a fiber's arena */
    fprintf(stderr,
            "scopealloc:   the arena holds at most %zu bytes: create it "
            "larger (scopealloc_arena_create(<bytes>), at least %zu here; "
            "SCOPEALLOC_RESERVE for those the runtime creates)\n",
            f->capacity, needed);
  else
    fprintf(stderr,
            "scopealloc:   define the pool larger: "
            "SCOPEALLOC_DEFINE_POOL(%s, <bytes>) with at least %zu bytes "
            "here; scopealloc-bound <program> gives its worst case\n",
            f->pool, needed);
}

static void sa_print_failure(const scopealloc_failure *f) {
  if (f->partition) {
    sa_print_partition_failure(f);
    return;
  }
  if (sa_is(f, SCOPEALLOC_REASON_BAD_RELEASE) ||
      sa_is(f, SCOPEALLOC_REASON_RELEASE_ABOVE_TOP)) {
    fprintf(stderr,
            "scopealloc: pool '%s': %s (mark %p; %zu bytes in use, "
            "capacity %zu)\n",
            f->pool, f->reason, f->mark, f->capacity - f->available,
            f->capacity);
    sa_print_caller(f->caller);
    if (sa_is(f, SCOPEALLOC_REASON_RELEASE_ABOVE_TOP))
      fprintf(stderr, "scopealloc:   the frame was released already, or it "
                      "belongs to another fiber or ucontext that shares this "
                      "arena (scopealloc_arena_switch, docs/fibers.md)\n");
    return;
  }
  /* Misuse of a fiber arena (destroy, switch): no request to describe. */
  if (f->reason && f->requested == 0 && !f->mark &&
      (strcmp(f->reason, SCOPEALLOC_REASON_ARENA_CURRENT) == 0 ||
       strcmp(f->reason, SCOPEALLOC_REASON_ARENA_NOT_EMPTY) == 0 ||
       strcmp(f->reason, SCOPEALLOC_REASON_ARENA_DESTROYED) == 0 ||
       strcmp(f->reason, SCOPEALLOC_REASON_IN_USE) == 0)) {
    fprintf(stderr,
            "scopealloc: pool '%s': %s (%zu bytes in use, peak %zu, "
            "capacity %zu)\n",
            f->pool, f->reason, f->capacity - f->available, f->peak,
            f->capacity);
    sa_print_caller(f->caller);
    return;
  }
  /* "pool 'x' exhausted: ..." reads as a sentence; other reasons are quoted
   * after a colon. */
  int is_exhausted =
      f->reason && strcmp(f->reason, SCOPEALLOC_REASON_EXHAUSTED) == 0;
  fprintf(stderr,
          "scopealloc: pool '%s'%s%s: requested %zu bytes (align %zu), "
          "available %zu, peak %zu, capacity %zu\n",
          f->pool, is_exhausted ? " " : ": ", f->reason, f->requested,
          f->alignment, f->available, f->peak, f->capacity);
  sa_print_caller(f->caller);
  /* A plain named pool refused to a second thread (a fiber arena's IN_USE
   * has no request): say how to share it. */
  if (sa_is(f, SCOPEALLOC_REASON_IN_USE))
    fprintf(stderr, "scopealloc:   a plain pool serves one thread at a time; "
                    "SCOPEALLOC_DEFINE_POOL_SHARED or "
                    "scopealloc_pool_set_partition gives each thread a "
                    "partition of it\n");
  if (is_exhausted)
    sa_print_remedy(f);
}
#endif

#if SCOPEALLOC_HOSTED
#define SA_DEFAULT_HANDLER scopealloc_default_exhaustion_handler
#else
/* No stderr to print to: the program's own report, if it defines one. The
 * failure path calls it in the default handler's place, so that it adds no
 * frame to the stack that bare-metal bounds count for the runtime. */
__attribute__((weak)) void
scopealloc_freestanding_failure(const scopealloc_failure *f) {
  (void)f;
  __builtin_trap();
}
#define SA_DEFAULT_HANDLER scopealloc_freestanding_failure
#endif

void scopealloc_default_exhaustion_handler(const scopealloc_failure *f) {
#if SCOPEALLOC_HOSTED
  sa_print_failure(f);
  abort();
#else
  /* A trap, with no frame: a call to the hook here would add one to every
   * bound of a program that installs a handler. Without one, sa_report
   * calls the hook itself. */
  (void)f;
  __builtin_trap();
#endif
}

scopealloc_exhaustion_handler
scopealloc_set_exhaustion_handler(scopealloc_exhaustion_handler handler) {
  scopealloc_exhaustion_handler old = SA_LOAD(&sa_handler);
#if SCOPEALLOC_SINGLE_THREADED
  sa_handler = handler;
#else
  old = __atomic_exchange_n(&sa_handler, handler, __ATOMIC_ACQ_REL);
#endif
  return old ? old : scopealloc_default_exhaustion_handler;
}

void sa_report(const scopealloc_failure *f) {
  scopealloc_exhaustion_handler h = SA_LOAD(&sa_handler);
  (h ? h : SA_DEFAULT_HANDLER)(f);
  /* The generated code has no way to continue without the memory. */
#if SCOPEALLOC_HOSTED
  fprintf(stderr,
          "scopealloc: the exhaustion handler returned for pool '%s' (%s); "
          "handlers must not return, aborting\n",
          f->pool, f->reason);
  abort();
#else
  __builtin_trap();
#endif
}
