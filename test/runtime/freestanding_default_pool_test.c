/* The freestanding runtime's default pool (runtime/src/fixed_default_pool.c)
 * on the host: the library is built with -ffreestanding, this program is an
 * ordinary hosted one that links only that library and defines the fixed
 * `workspace` pool, as a bare-metal application would. */
#include "scopealloc/scopealloc.h"

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKSPACE_SIZE 4096
SCOPEALLOC_DEFINE_POOL(workspace, WORKSPACE_SIZE);
/* Shared: 4 partitions of 1024 bytes on a threaded runtime. */
SCOPEALLOC_DEFINE_POOL_SHARED(shared, 4096, 1024);

static int failed;
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      failed = 1;                                                              \
    }                                                                          \
  } while (0)

static jmp_buf handler_return;
static scopealloc_failure last_failure;

static void record_and_jump(const scopealloc_failure *f) {
  last_failure = *f;
  longjmp(handler_return, 1);
}

static void test_lifo(void) {
  char *base = __scopealloc_pool_workspace.base;
  void *m0 = __scopealloc_mark();
  CHECK(m0 == base);
  char *a = __scopealloc_alloc(100, 64);
  CHECK(((uintptr_t)a & 63) == 0);
  CHECK(a >= base && a + 100 <= base + WORKSPACE_SIZE);
  void *m1 = __scopealloc_mark();
  char *b = __scopealloc_alloc(1000, 8);
  CHECK(b >= a + 100);
  memset(a, 0xa, 100);
  memset(b, 0xb, 1000);
  __scopealloc_release(m1);
  CHECK(__scopealloc_mark() == m1);
  char *c = __scopealloc_alloc(16, 16);
  CHECK(c == (char *)(((uintptr_t)m1 + 15) & ~(uintptr_t)15));
  CHECK(a[99] == 0xa);
  __scopealloc_release(m0);
  CHECK(__scopealloc_mark() == base);

  /* NULL is the "empty" mark. */
  __scopealloc_alloc(64, 8);
  __scopealloc_release(NULL);
  CHECK(__scopealloc_mark() == base);
}

static void test_stats(void) {
  scopealloc_stats t, p, named;
  scopealloc_thread_stats(&t);
  scopealloc_process_stats(&p);
  scopealloc_pool_stats(&__scopealloc_pool_workspace, &named);
  CHECK(strcmp(t.name, "workspace") == 0);
  CHECK(t.current == 0);
  CHECK(t.capacity == WORKSPACE_SIZE);
  CHECK(t.allocs == 4);
  /* a at 0..100, m1 = 100, b at 104..1104 */
  CHECK(t.peak == 1104);
  CHECK(p.peak == t.peak && p.allocs == t.allocs);
  CHECK(named.peak == t.peak && named.allocs == t.allocs);
  /* The workspace is a named pool too: it shows up in the pool list (with
   * the shared pool). */
  CHECK(scopealloc_for_each_pool(NULL, NULL) == 2);
}

static void expect_failure(const char *reason, size_t size, size_t align) {
  scopealloc_exhaustion_handler old =
      scopealloc_set_exhaustion_handler(record_and_jump);
  memset(&last_failure, 0, sizeof last_failure);
  if (setjmp(handler_return) == 0) {
    __scopealloc_alloc(size, align);
    CHECK(!"the handler was not called");
  }
  scopealloc_set_exhaustion_handler(old);
  CHECK(last_failure.pool && strcmp(last_failure.pool, "workspace") == 0);
  CHECK(last_failure.reason && strcmp(last_failure.reason, reason) == 0);
  CHECK(last_failure.requested == size);
  CHECK(last_failure.capacity == WORKSPACE_SIZE);
}

static void test_failures(void) {
  void *m = __scopealloc_mark();
  __scopealloc_alloc(1000, 8);
  expect_failure(SCOPEALLOC_REASON_EXHAUSTED, WORKSPACE_SIZE, 8);
  CHECK(last_failure.available == WORKSPACE_SIZE - 1000);
  expect_failure(SCOPEALLOC_REASON_EXHAUSTED, (size_t)-1, 8);
  expect_failure(SCOPEALLOC_REASON_BAD_ALIGNMENT, 8, 3);
  __scopealloc_release(m);

  scopealloc_set_exhaustion_handler(record_and_jump);
  if (setjmp(handler_return) == 0) {
    __scopealloc_release(__scopealloc_pool_workspace.base + 8); /* > cur */
    CHECK(!"the handler was not called");
  }
  scopealloc_set_exhaustion_handler(NULL);
  /* Inside the pool but above the top: a frame released already. */
  CHECK(strcmp(last_failure.reason, SCOPEALLOC_REASON_RELEASE_ABOVE_TOP) == 0);

  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  CHECK(s.failures == 4);
}

/* Without a handler the freestanding runtime traps: no stdio, no abort. */
static void test_default_handler_traps(void) {
  pid_t pid = fork();
  if (pid == 0) {
    __scopealloc_alloc(WORKSPACE_SIZE + 1, 8);
    _exit(0);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGILL);
}

/* One thread of execution: a shared pool serves it whole, like a plain one
 * (no partitions, no partition limit). */
static void test_shared_pool_is_whole(void) {
  scopealloc_pool *pool = &__scopealloc_pool_shared;
  size_t bytes = 1;
  CHECK(scopealloc_pool_partitions(pool, &bytes) == 0 && bytes == 0);
  CHECK(scopealloc_pool_set_partition(pool, 5000) != 0); /* does not fit */
  CHECK(scopealloc_pool_set_partition(pool, 2048) == 0);
  CHECK(scopealloc_pool_partitions(pool, NULL) == 0);
  void *m = __scopealloc_pool_mark(pool);
  CHECK(m == pool->base);
  char *a = __scopealloc_pool_alloc(pool, 3000, 16);
  CHECK(a == pool->base);
  char *b = __scopealloc_pool_alloc(pool, 1000, 8);
  CHECK(b == a + 3000);
  memset(a, 1, 4000);
  __scopealloc_pool_release(pool, m);
  CHECK(__scopealloc_pool_mark(pool) == pool->base);
  scopealloc_stats s;
  scopealloc_pool_stats(pool, &s);
  CHECK(s.current == 0 && s.peak == 4000 && s.capacity == 4096 &&
        s.allocs == 2);
  CHECK(scopealloc_pool_partition_stats(pool, 0, &s) == -1);
}

int main(void) {
  test_shared_pool_is_whole();
  test_lifo();
  test_stats();
  test_failures();
  test_default_handler_traps();
  if (failed)
    return 1;
  printf("freestanding default pool ok\n");
  return 0;
}
