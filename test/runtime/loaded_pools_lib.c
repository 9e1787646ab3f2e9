/* A library with a named pool, dlopen'ed by loaded_pools_replaced.c. */
#include "scopealloc/scopealloc.h"

SCOPEALLOC_DEFINE_POOL(dl_pool, 4096);

__attribute__((visibility("default"))) void loaded_pools_lib_use(void) {
  scopealloc_pool *pool = &__scopealloc_pool_dl_pool;
  void *m = __scopealloc_pool_mark(pool);
  char *p = (char *)__scopealloc_pool_alloc(pool, 100, 16);
  p[0] = 1;
  __scopealloc_pool_release(pool, m);
}
