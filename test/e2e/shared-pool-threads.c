// Named pools and worker threads. Four pthreads run a kernel whose tile is
// demoted into the shared pool `dma` (scope global.dma from the source), all
// holding their tiles at once: each thread gets a partition of its own, the
// results match a plain build's (tiles on the stack), and SCOPEALLOC_STATS=1
// shows the pool and its four partitions. Then (issue 20 item 13) a worker
// cancelled inside a frame of the plain pool `staging` is joined: the pool
// comes back whole, so the main thread and a new thread can use all of it.
//
// RUN: %scc -O2 -pthread %s -o %t.O2 -Rpass=scope-alloc 2> %t.remarks
// RUN: FileCheck %s --check-prefix=MOVED < %t.remarks
// RUN: env SCOPEALLOC_STATS=1 %t.O2 > %t.O2.out 2> %t.O2.err
// RUN: FileCheck %s < %t.O2.out
// RUN: FileCheck %s --check-prefix=STATS < %t.O2.err
// RUN: %scc -O0 -pthread %s -o %t.O0
// RUN: %t.O0 > %t.O0.out 2> %t.O0.err
// RUN: diff %t.O2.out %t.O0.out
// RUN: FileCheck %s --check-prefix=POOLS < %t.O0.err
// RUN: %clang -O2 -pthread -I%rtinc %s %rtlib -o %t.plain
// RUN: %t.plain > %t.plain.out
// RUN: diff %t.O2.out %t.plain.out
#include <pthread.h>
#include <scopealloc/scopealloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define THREADS 4
#define ROUNDS 50
#define TILE 3000

// A partition per worker, 4 KiB each.
SCOPEALLOC_DEFINE_POOL_SHARED(dma, THREADS * 4096, 4096);
SCOPEALLOC_DEFINE_POOL(staging, 1024);

static pthread_barrier_t all_in;

__attribute__((noinline)) static void opaque(void *p) {
  __asm__ volatile("" ::"r"(p) : "memory");
}

static unsigned char pattern(int id, int round, int i) {
  return (unsigned char)(i * (id + 1) + round * 7 + id);
}

// Fills its tile, waits until the other three threads hold theirs, checks
// that nobody wrote into it, and hashes it.
__attribute__((noinline)) static uint64_t kernel(int id, int round) {
  __attribute__((annotate("scope:global.dma"))) unsigned char tile[TILE];
  for (int i = 0; i < TILE; ++i)
    tile[i] = pattern(id, round, i);
  opaque(tile);
  pthread_barrier_wait(&all_in);
  uint64_t h = 1469598103934665603u;
  for (int i = 0; i < TILE; ++i) {
    if (tile[i] != pattern(id, round, i)) {
      printf("thread %d round %d: tile[%d] overwritten\n", id, round, i);
      h = 0;
      break;
    }
    h = (h ^ tile[i]) * 1099511628211u;
  }
  pthread_barrier_wait(&all_in); // nobody leaves before everyone checked
  return h;
}

struct job {
  int id;
  uint64_t result;
};

static void *worker(void *arg) {
  struct job *j = arg;
  uint64_t h = 0;
  for (int round = 0; round < ROUNDS; ++round)
    h = (h ^ kernel(j->id, round)) * 1099511628211u;
  j->result = h;
  return NULL;
}

static int ready[2], never[2];

// Holds all of `staging` and blocks in read(), where it is cancelled: the
// frame's release never runs.
__attribute__((noinline)) static void hold_staging(void) {
  __attribute__((annotate("scope:global.staging"))) char buf[1024];
  memset(buf, 's', sizeof buf);
  opaque(buf);
  char c = 1;
  if (write(ready[1], &c, 1) == 1)
    while (read(never[0], &c, 1) > 0)
      ;
  opaque(buf);
}

static void *cancelled_worker(void *arg) {
  hold_staging();
  return arg;
}

__attribute__((noinline)) static int use_staging(int k) {
  __attribute__((annotate("scope:global.staging"))) char buf[1024];
  memset(buf, k, sizeof buf);
  opaque(buf);
  int sum = 0;
  for (int i = 0; i < 1024; ++i)
    sum += buf[i];
  return sum;
}

static void *fresh_worker(void *arg) {
  *(int *)arg = use_staging(3);
  return NULL;
}

static void print_pool(scopealloc_pool *pool) {
  scopealloc_stats s;
  scopealloc_pool_stats(pool, &s);
  size_t bytes, n = scopealloc_pool_partitions(pool, &bytes);
  fprintf(stderr, "%s: %zu partitions of %zu, allocs %llu, current %zu, "
                  "failures %llu\n",
          s.name, n, bytes, (unsigned long long)s.allocs, s.current,
          (unsigned long long)s.failures);
}

int main(void) {
  pthread_barrier_init(&all_in, NULL, THREADS);
  pthread_t threads[THREADS];
  struct job jobs[THREADS];
  for (int i = 0; i < THREADS; ++i) {
    jobs[i].id = i;
    pthread_create(&threads[i], NULL, worker, &jobs[i]);
  }
  for (int i = 0; i < THREADS; ++i) {
    pthread_join(threads[i], NULL);
    printf("thread %d: %016llx\n", i, (unsigned long long)jobs[i].result);
  }

  if (pipe(ready) || pipe(never))
    return 1;
  pthread_t t;
  void *ret = NULL;
  char c;
  pthread_create(&t, NULL, cancelled_worker, NULL);
  if (read(ready[0], &c, 1) != 1)
    return 1;
  pthread_cancel(t);
  pthread_join(t, &ret);
  printf("cancelled inside a staging frame: %s\n",
         ret == PTHREAD_CANCELED ? "yes" : "no");
  printf("main thread, all of staging: %d\n", use_staging(2));
  int fresh = 0;
  pthread_create(&t, NULL, fresh_worker, &fresh);
  pthread_join(t, NULL);
  printf("new thread, all of staging: %d\n", fresh);
  print_pool(&__scopealloc_pool_dma);
  print_pool(&__scopealloc_pool_staging);
  pthread_barrier_destroy(&all_in);
  return 0;
}

// MOVED-DAG: remark: '{{%?}}tile' in 'kernel' ({{.*}}) moved to pool 'dma'
// MOVED-DAG: remark: '{{%?}}buf' in {{'[a-z_]+'}} ({{.*}}) moved to pool 'staging'

// CHECK: thread 0: [[#]]
// CHECK-NOT: overwritten
// CHECK: thread 3:
// CHECK-NEXT: cancelled inside a staging frame: yes
// CHECK-NEXT: main thread, all of staging: 2048
// CHECK-NEXT: new thread, all of staging: 3072

// POOLS: dma: 4 partitions of 4096, allocs 200, current 0, failures 0
// POOLS-NEXT: staging: 0 partitions of 0, allocs 3, current 0, failures 0

// STATS: dma: 4 partitions of 4096, allocs 200, current 0, failures 0
// STATS-NEXT: staging: 0 partitions of 0, allocs 3, current 0, failures 0
// STATS: scopealloc statistics (bytes):
// STATS:      {{^ +}}dma 0 3000 16384 200 0{{$}}
// STATS-NEXT: {{^ +}}dma[0] 0 3000 4096 50 0{{$}}
// STATS-NEXT: {{^ +}}dma[1] 0 3000 4096 50 0{{$}}
// STATS-NEXT: {{^ +}}dma[2] 0 3000 4096 50 0{{$}}
// STATS-NEXT: {{^ +}}dma[3] 0 3000 4096 50 0{{$}}
// STATS-NEXT: {{^ +}}staging 0 1024 1024 3 0{{$}}
// STATS: (dma: shared, 4 partitions of 4096 bytes, 4 used;
