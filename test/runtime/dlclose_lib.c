/* A shared library with its own static copy of the runtime, for the
 * dlclose test in key_destructor_test.cpp: the runtime's symbols are hidden
 * (--exclude-libs), so it does not share the test program's runtime. */
#include "scopealloc/scopealloc.h"

/* A demoted-style frame; returns the calling thread's arena base. */
__attribute__((visibility("default"))) void *dlclose_lib_use(void) {
  void *m = __scopealloc_mark();
  char *p = (char *)__scopealloc_alloc(4096, 16);
  p[0] = 1;
  p[4095] = 2;
  __scopealloc_release(m);
  return __scopealloc_tls_pool.base;
}
