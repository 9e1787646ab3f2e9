/* Run against a runtime built by GCC (gcc_built_runtime.sh), compiled with
 * -scope-alloc-slow-path=standard at limit 0: every slow path of the
 * inline fast path through __scopealloc_mark + __scopealloc_alloc. Each
 * thread's first frame, a new peak at every depth of a recursion with
 * 2 KiB frames, a 2 MiB frame that grows the committed arena, four threads
 * holding their frames at once; `exhaust`: a 4 MiB frame beyond
 * SCOPEALLOC_RESERVE=1M. */
#include <pthread.h>
#include <scopealloc/scopealloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NTHREADS 4
static pthread_barrier_t barrier;

__attribute__((noinline)) static void escape(void *p) {
  __asm__ volatile("" ::"r"(p) : "memory");
}

/* Values kept live across the slow call in registers a preserve_most
 * callee would keep and a mismatched convention would lose. */
__attribute__((noinline)) static uint64_t rec(int depth, int id) {
  unsigned char frame[2048];
  memset(frame, (depth * 7 + id) & 0xff, sizeof frame);
  escape(frame);
  uint64_t below = depth ? rec(depth - 1, id) : (uint64_t)id;
  for (size_t i = 0; i < sizeof frame; i += 97)
    if (frame[i] != (unsigned char)((depth * 7 + id) & 0xff))
      return 0;
  return below * 31 + frame[depth % 2048];
}

__attribute__((noinline)) static int big(int id) {
  unsigned char frame[2 << 20];
  memset(frame, id + 1, sizeof frame);
  escape(frame);
  pthread_barrier_wait(&barrier); /* every thread holds its frame */
  for (size_t i = 0; i < sizeof frame; i += 4096)
    if (frame[i] != id + 1)
      return 0;
  return 1;
}

struct result {
  uint64_t sum;
  int intact;
  size_t peak;
};

static struct result results[NTHREADS];
static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  struct result *r = &results[id];
  r->sum = rec(200, id);
  r->intact = big(id);
  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  r->peak = s.peak;
  return NULL;
}

__attribute__((noinline)) static void exhaust(void) {
  unsigned char frame[4 << 20];
  escape(frame);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "exhaust") == 0) {
    exhaust();
    return 0;
  }
  pthread_barrier_init(&barrier, NULL, NTHREADS);
  pthread_t t[NTHREADS];
  for (int i = 0; i < NTHREADS; i++)
    pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
  for (int i = 0; i < NTHREADS; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < NTHREADS; i++)
    printf("thread %d: sum %llx intact %d\n", i,
           (unsigned long long)results[i].sum, results[i].intact);
  for (int i = 0; i < NTHREADS; i++) /* 0 without ScopeAlloc */
    fprintf(stderr, "pool of thread %d: peak over 2 MiB %d\n", i,
            results[i].peak > (size_t)(2 << 20));
  return 0;
}
