/* MemorySanitizer and the runtime's outputs.
 *
 * The runtime is not built with MSan, so the memory it writes for an
 * instrumented caller (a statistics struct on the caller's stack, the
 * failure record a custom exhaustion handler reads) keeps the shadow it had:
 * often "uninitialised" from an earlier frame at the same address. The
 * runtime marks what it wrote as initialised; __msan_unpoison is weak and
 * resolves only in MSan programs. */
#ifndef SCOPEALLOC_MSAN_HOOKS_H
#define SCOPEALLOC_MSAN_HOOKS_H

#include <stddef.h>

void __msan_unpoison(const volatile void *addr, size_t size)
    __attribute__((weak));

static inline void sa_msan_written(const void *p, size_t n) {
  if (__msan_unpoison)
    __msan_unpoison(p, n);
}

#endif
