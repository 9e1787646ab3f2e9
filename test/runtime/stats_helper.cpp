// Does a fixed amount of pool work and exits; with SCOPEALLOC_STATS=1 the
// runtime prints its table at exit (checked by stats_test.cpp):
//   workspace: 6 allocs over 3 threads, peak 200000 (main thread)
//   helper_pool: 2 allocs, peak 4096, 1 failure
#include <csetjmp>
#include <thread>

#include "scopealloc/scopealloc.h"

SCOPEALLOC_DEFINE_POOL(helper_pool, 65536);

static std::jmp_buf g_jump;

int main() {
  void *m = __scopealloc_mark();
  __scopealloc_alloc(200000, 16);
  __scopealloc_release(m);

  std::thread([] {
    __scopealloc_alloc(100, 8);
    __scopealloc_alloc(50, 8);
  }).join();
  std::thread([] {
    for (int i = 0; i < 3; ++i)
      __scopealloc_alloc(10, 8);
  }).join();

  scopealloc_pool *pool = &__scopealloc_pool_helper_pool;
  void *pm = __scopealloc_pool_mark(pool);
  __scopealloc_pool_alloc(pool, 4000, 8);
  __scopealloc_pool_alloc(pool, 96, 8);
  scopealloc_set_exhaustion_handler(
      [](const scopealloc_failure *) { std::longjmp(g_jump, 1); });
  if (setjmp(g_jump) == 0)
    __scopealloc_pool_alloc(pool, 1 << 20, 8);
  __scopealloc_pool_release(pool, pm);
  return 0;
}
