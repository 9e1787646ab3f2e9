// Built twice: with -fsanitize=address (the runtime is not), where each mode
// touches memory the runtime must have poisoned, so ASan has to report
// use-after-poison; and plainly, run under Valgrind memcheck, which has to
// report an invalid read or write thanks to the runtime's client requests.
// "clean" exercises legitimate use and must stay silent under both.
#include <cstdio>
#include <cstring>
#include <thread>

#include "scopealloc/scopealloc.h"

SCOPEALLOC_DEFINE_POOL(asan_pool, 8192);
SCOPEALLOC_DEFINE_POOL_SHARED(asan_shared, 4 * 1024, 1024);

static void touch(volatile char *p) { *p = 1; }
static int peek(const volatile char *p) { return *p; }

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (!std::strcmp(mode, "workspace-after-release")) {
    void *m = __scopealloc_mark();
    char *p = static_cast<char *>(__scopealloc_alloc(64, 16));
    p[0] = 1;
    __scopealloc_release(m);
    touch(p + 8);
  } else if (!std::strcmp(mode, "workspace-read-after-release")) {
    void *m = __scopealloc_mark();
    char *p = static_cast<char *>(__scopealloc_alloc(64, 16));
    std::memset(p, 7, 64);
    __scopealloc_release(m);
    return peek(p + 8) == 7 ? 0 : 1;
  } else if (!std::strcmp(mode, "pool-read-after-release")) {
    scopealloc_pool *pool = &__scopealloc_pool_asan_pool;
    void *m = __scopealloc_pool_mark(pool);
    char *p = static_cast<char *>(__scopealloc_pool_alloc(pool, 100, 8));
    std::memset(p, 7, 100);
    __scopealloc_pool_release(pool, m);
    return peek(p + 40) == 7 ? 0 : 1;
  } else if (!std::strcmp(mode, "pool-after-release")) {
    scopealloc_pool *pool = &__scopealloc_pool_asan_pool;
    char *keep = static_cast<char *>(__scopealloc_pool_alloc(pool, 16, 8));
    void *m = __scopealloc_pool_mark(pool);
    char *p = static_cast<char *>(__scopealloc_pool_alloc(pool, 100, 8));
    p[99] = 1;
    __scopealloc_pool_release(pool, m);
    keep[15] = 1; // still live: fine
    touch(p + 40);
  } else if (!std::strcmp(mode, "partition-after-release")) {
    scopealloc_pool *pool = &__scopealloc_pool_asan_shared;
    void *m = __scopealloc_pool_mark(pool);
    char *p = static_cast<char *>(__scopealloc_pool_alloc(pool, 100, 8));
    p[99] = 1;
    __scopealloc_pool_release(pool, m);
    touch(p + 40);
  } else if (!std::strcmp(mode, "partition-after-exit")) {
    // A thread that exits holding its partition gives it back released.
    scopealloc_pool *pool = &__scopealloc_pool_asan_shared;
    char *p = nullptr;
    std::thread([&] {
      p = static_cast<char *>(__scopealloc_pool_alloc(pool, 100, 8));
      std::memset(p, 7, 100);
    }).join();
    return peek(p + 40) == 7 ? 0 : 1;
  } else if (!std::strcmp(mode, "padding")) {
    char *a = static_cast<char *>(__scopealloc_alloc(3, 1));
    char *b = static_cast<char *>(__scopealloc_alloc(16, 64));
    a[2] = b[15] = 1;
    touch(a + 16); // between a and b: alignment padding
  } else if (!std::strcmp(mode, "beyond-top")) {
    char *p = static_cast<char *>(__scopealloc_alloc(32, 8));
    p[31] = 1;
    touch(p + 256); // committed but never allocated
  } else if (!std::strcmp(mode, "clean")) {
    auto work = [] {
      for (int round = 0; round < 3; ++round) {
        void *m = __scopealloc_mark();
        for (size_t size = 1; size < (3u << 20); size = size * 3 + 1) {
          char *p = static_cast<char *>(__scopealloc_alloc(size, 1 << (size % 7)));
          std::memset(p, round, size);
          __scopealloc_alloc(0, 1); // empty: at the next one's address
        }
        __scopealloc_release(m);
      }
    };
    work();
    std::thread(work).join();
    std::thread(work).join(); // may reuse the first thread's addresses
    scopealloc_pool *pool = &__scopealloc_pool_asan_pool;
    for (int round = 0; round < 3; ++round) {
      void *m = __scopealloc_pool_mark(pool);
      for (size_t size = 1; size < 1000; size = size * 2 + 1) {
        __scopealloc_pool_alloc(pool, 0, 1);
        std::memset(__scopealloc_pool_alloc(pool, size, 1), round, size);
      }
      __scopealloc_pool_release(pool, m);
    }
    // A shared pool: threads at once, and one after the other in the same
    // partition (the first one's exit gives it back).
    scopealloc_pool *shared = &__scopealloc_pool_asan_shared;
    auto use_shared = [shared](int round) {
      void *m = __scopealloc_pool_mark(shared);
      for (size_t size = 1; size < 500; size = size * 2 + 1) {
        __scopealloc_pool_alloc(shared, 0, 1);
        std::memset(__scopealloc_pool_alloc(shared, size, 1 << (size % 5)),
                    round, size);
      }
      __scopealloc_pool_release(shared, m);
      std::memset(__scopealloc_pool_alloc(shared, 1024, 8), round, 1024);
    };
    std::thread a(use_shared, 1), b(use_shared, 2);
    a.join();
    b.join();
    std::thread(use_shared, 3).join();
    std::puts("clean ok");
  } else {
    std::fprintf(stderr, "usage: %s MODE\n", argv[0]);
    return 2;
  }
  return 0;
}
