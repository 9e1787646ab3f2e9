/* The replaceable exhaustion handler. Everything here is cold. */
#include "internal.h"

#if SCOPEALLOC_HOSTED
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#endif

SA_PULL_IN_STATS();

static scopealloc_exhaustion_handler sa_handler; /* NULL: the default */

#if SCOPEALLOC_HOSTED
static void sa_print_failure(const scopealloc_failure *f) {
  if (f->reason && strcmp(f->reason, SCOPEALLOC_REASON_BAD_RELEASE) == 0) {
    fprintf(stderr,
            "scopealloc: pool '%s': %s (mark %p; %zu bytes in use, "
            "capacity %zu)\n",
            f->pool, f->reason, f->mark, f->capacity - f->available,
            f->capacity);
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
}
#endif

void scopealloc_default_exhaustion_handler(const scopealloc_failure *f) {
#if SCOPEALLOC_HOSTED
  sa_print_failure(f);
  abort();
#else
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
  (h ? h : scopealloc_default_exhaustion_handler)(f);
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
