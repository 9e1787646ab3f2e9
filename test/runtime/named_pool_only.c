/* A program that uses named pools only, linked against the static runtime:
 * check_named_pool_only.sh verifies that the link took no thread arena (no
 * thread_arena/fiber objects, no mmap, no pthread_key_create), and this
 * program that the layers it did take work on their own: mark, alloc and
 * release, ownership across threads, exhaustion through the handler, pool
 * statistics, the fork rule for a pool held by a thread that does not
 * survive, the return of a pool held by a thread that exits, and the
 * SCOPEALLOC_STATS=1 table at exit. */
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scopealloc/scopealloc.h"

SCOPEALLOC_DEFINE_POOL(only_pool, 4096);

#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "named_pool_only: %s:%d: check failed: %s\n", __FILE__,  \
              __LINE__, #c);                                                   \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static scopealloc_pool *const pool = &__scopealloc_pool_only_pool;

static jmp_buf g_jump;
static scopealloc_failure g_failure;
static void catch_failure(const scopealloc_failure *f) {
  g_failure = *f;
  longjmp(g_jump, 1);
}

static void count_pool(const scopealloc_pool *p, void *ctx) {
  if (p == pool)
    ++*(int *)ctx;
}

/* Another thread may not allocate while this one holds the pool. */
static void *other_thread_alloc(void *arg) {
  (void)arg;
  if (setjmp(g_jump) == 0) {
    __scopealloc_pool_alloc(pool, 16, 8);
    return (void *)0;
  }
  return (void *)1;
}

/* Holds the pool until told to go: the process forks meanwhile. */
static int g_held[2], g_go[2];
static void *holder(void *arg) {
  (void)arg;
  void *m = __scopealloc_pool_mark(pool);
  CHECK(__scopealloc_pool_alloc(pool, 1000, 8) != NULL);
  char c = 1;
  CHECK(write(g_held[1], &c, 1) == 1);
  CHECK(read(g_go[0], &c, 1) == 1);
  __scopealloc_pool_release(pool, m);
  return NULL;
}

/* Exits in the middle of a frame: the pool must come back all the same. */
static void *exit_holding(void *arg) {
  (void)arg;
  CHECK(__scopealloc_pool_alloc(pool, 500, 8) != NULL);
  return NULL;
}

int main(void) {
  scopealloc_set_exhaustion_handler(catch_failure);

  /* LIFO allocation and release. */
  void *m = __scopealloc_pool_mark(pool);
  char *a = (char *)__scopealloc_pool_alloc(pool, 100, 64);
  char *b = (char *)__scopealloc_pool_alloc(pool, 200, 8);
  CHECK(((uintptr_t)a & 63) == 0);
  CHECK(b >= a + 100);
  memset(a, 1, 100);
  memset(b, 2, 200);
  scopealloc_stats s;
  scopealloc_pool_stats(pool, &s);
  CHECK(strcmp(s.name, "only_pool") == 0);
  CHECK(s.current >= 300 && s.capacity == 4096 && s.allocs == 2);

  /* Held by this thread: another thread is refused. */
  pthread_t t;
  void *refused = NULL;
  CHECK(pthread_create(&t, NULL, other_thread_alloc, NULL) == 0);
  CHECK(pthread_join(t, &refused) == 0);
  CHECK(refused == (void *)1);
  CHECK(strcmp(g_failure.reason, SCOPEALLOC_REASON_IN_USE) == 0);

  __scopealloc_pool_release(pool, m);
  scopealloc_pool_stats(pool, &s);
  CHECK(s.current == 0 && s.peak >= 300);

  /* Exhaustion goes to the handler, naming the pool. */
  if (setjmp(g_jump) == 0) {
    __scopealloc_pool_alloc(pool, 8192, 8);
    CHECK(!"an 8 KiB request fit a 4 KiB pool");
  }
  CHECK(strcmp(g_failure.pool, "only_pool") == 0);
  CHECK(strcmp(g_failure.reason, SCOPEALLOC_REASON_EXHAUSTED) == 0);
  CHECK(g_failure.requested == 8192 && g_failure.capacity == 4096);

  int seen = 0;
  CHECK(scopealloc_for_each_pool(count_pool, &seen) >= 1);
  CHECK(seen == 1);

  /* fork while another thread holds the pool: in the child that thread is
   * gone, and the pool is empty and free again. */
  CHECK(pipe(g_held) == 0 && pipe(g_go) == 0);
  CHECK(pthread_create(&t, NULL, holder, NULL) == 0);
  char c;
  CHECK(read(g_held[0], &c, 1) == 1);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    scopealloc_set_exhaustion_handler(NULL); /* g_jump is stale here */
    scopealloc_pool_stats(pool, &s);
    if (s.current != 0)
      _exit(2);
    void *cm = __scopealloc_pool_mark(pool);
    if (!__scopealloc_pool_alloc(pool, 64, 8))
      _exit(3);
    __scopealloc_pool_release(pool, cm);
    _exit(0);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(write(g_go[1], &c, 1) == 1);
  CHECK(pthread_join(t, NULL) == 0);

  /* A thread that exits holding the pool gives it back (the named pools'
   * own thread-exit work; no thread arena), and this thread may use it. */
  CHECK(pthread_create(&t, NULL, exit_holding, NULL) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  CHECK(pool->owner == NULL && pool->cur == pool->base);
  m = __scopealloc_pool_mark(pool);
  CHECK(m == NULL && __scopealloc_pool_alloc(pool, 0, 8) == pool->base);
  __scopealloc_pool_release(pool, m);

  scopealloc_pool_stats(pool, &s);
  CHECK(s.current == 0 && s.failures == 2);
  printf("named pool only ok\n");
  return 0;
}
