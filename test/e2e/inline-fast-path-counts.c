// Statistics off (the default), the inline fast path counts no frame: a
// thread's `allocs` counts the frames that took the slow path (its first
// frame, and with -scope-alloc-fast-path=checked each new peak) and runtime
// calls, while current and peak stay exact (a checked frame that would set a
// new peak goes through the runtime; a guarded one leaves its marker, which
// the runtime reads). The pool's
// top stays a multiple of 16, so a 1500-byte frame takes 1504 bytes.
// scopealloc_set_exact_stats(1) makes every frame of every thread count from
// then on (each then goes through the runtime), also in a thread that already
// had its fast path open; turned off again, the first frame reopens it. An
// allocation with a ragged size made while exact counts were on keeps the
// fast path closed until it is released: a frame never starts off the
// 16-byte grid.
// RUN: %scc -O2 -pthread -mllvm -scope-alloc-fast-path=guarded %s -o %t
// RUN: %t | FileCheck %s --check-prefixes=OFF,GUARDED
// RUN: env SCOPEALLOC_STATS=1 %t 2>/dev/null | FileCheck %s --check-prefix=ON
// RUN: %scc -O2 -pthread -mllvm -scope-alloc-fast-path=checked %s -o %t.checked
// RUN: %t.checked | FileCheck %s --check-prefixes=OFF,CHECKED
// RUN: env SCOPEALLOC_STATS=1 %t.checked 2>/dev/null | FileCheck %s --check-prefix=ON
#include <pthread.h>
#include <scopealloc/scopealloc.h>
#include <stdint.h>
#include <stdio.h>

static int misaligned;

__attribute__((noinline)) static void consume(char *p) {
  if ((uintptr_t)p & 15)
    misaligned = 1;
  __asm__ volatile("" ::"r"(p) : "memory");
}

// 2 KiB and 1500 bytes: demoted by the wrapper's policy.
__attribute__((noinline)) int frame(int i) {
  char buf[2048];
  consume(buf);
  buf[i & 2047] = (char)i;
  consume(buf);
  return buf[i & 2047];
}
__attribute__((noinline)) int frame1500(int i) {
  char buf[1500];
  consume(buf);
  buf[i % 1500] = (char)i;
  consume(buf);
  return buf[i % 1500];
}

// Frames stacked three deep: the peak is their sum.
__attribute__((noinline)) int nested(int depth) {
  char buf[2048];
  consume(buf);
  buf[0] = (char)depth;
  int below = depth > 0 ? nested(depth - 1) : 0;
  consume(buf);
  return below + buf[0];
}

static scopealloc_stats stats(void) {
  scopealloc_stats st;
  scopealloc_thread_stats(&st);
  return st;
}

static unsigned long long frames(int n) {
  unsigned long long before = stats().allocs;
  for (int i = 0; i < n; i++)
    frame(i);
  return stats().allocs - before;
}

static void *odd_thread(void *arg) {
  (void)arg;
  for (int i = 0; i < 100; i++)
    frame1500(i);
  scopealloc_stats st = stats();
  printf("1500-byte frames: allocs %llu peak %zu current %zu\n",
         (unsigned long long)st.allocs, st.peak, st.current);
  return NULL;
}

static pthread_barrier_t warm, go;
static void *waiting_thread(void *arg) {
  (void)arg;
  frames(10); // the fast path is open
  pthread_barrier_wait(&warm);
  pthread_barrier_wait(&go); // main turned exact counts on meanwhile
  printf("other thread after exact counts on: %llu of 1000 frames counted\n",
         frames(1000));
  return NULL;
}

int main(void) {
  scopealloc_stats st;
  unsigned long long n = frames(1000);
  st = stats();
  printf("main: %llu of 1000 frames counted, peak %zu current %zu\n", n,
         st.peak, st.current);
  unsigned long long before = stats().allocs;
  nested(3);
  st = stats();
  printf("nested: %llu of 4 frames counted, peak %zu current %zu\n",
         (unsigned long long)(st.allocs - before), st.peak, st.current);

  pthread_t t;
  pthread_create(&t, NULL, odd_thread, NULL);
  pthread_join(t, NULL);

  pthread_barrier_init(&warm, NULL, 2);
  pthread_barrier_init(&go, NULL, 2);
  pthread_create(&t, NULL, waiting_thread, NULL);
  pthread_barrier_wait(&warm);
  int was = scopealloc_set_exact_stats(1);
  pthread_barrier_wait(&go);
  pthread_join(t, NULL);
  printf("exact counts were %s; on: %llu of 1000 frames counted\n",
         was ? "on" : "off", frames(1000));

  // A ragged allocation made with exact counts on, below frames made after
  // (a size the pass cannot promote to the stack).
  volatile size_t ragged = 100;
  void *mark = __scopealloc_mark();
  __scopealloc_alloc(ragged, 8);
  scopealloc_set_exact_stats(was);
  n = frames(1000);
  __scopealloc_release(mark);
  printf("off above a 100-byte allocation: %llu of 1000 frames counted\n", n);
  printf("off again: %llu of 1000 frames counted\n", frames(1000));
  st = stats();
  printf("main: peak %zu current %zu, frames misaligned: %s\n", st.peak,
         st.current, misaligned ? "yes" : "no");
  return 0;
}
// OFF: main: 1 of 1000 frames counted, peak 2048 current 0
// CHECKED-NEXT: nested: 3 of 4 frames counted, peak 8192 current 0
// GUARDED-NEXT: nested: 0 of 4 frames counted, peak 8192 current 0
// OFF-NEXT: 1500-byte frames: allocs 1 peak 1504 current 0
// OFF-NEXT: other thread after exact counts on: 1000 of 1000 frames counted
// OFF-NEXT: exact counts were off; on: 1000 of 1000 frames counted
// OFF-NEXT: off above a 100-byte allocation: 1000 of 1000 frames counted
// OFF-NEXT: off again: 1 of 1000 frames counted
// OFF-NEXT: main: peak 8192 current 0, frames misaligned: no

// ON: main: 1000 of 1000 frames counted, peak 2048 current 0
// ON-NEXT: nested: 4 of 4 frames counted, peak 8192 current 0
// ON-NEXT: 1500-byte frames: allocs 100 peak 1500 current 0
// ON-NEXT: other thread after exact counts on: 1000 of 1000 frames counted
// ON-NEXT: exact counts were on; on: 1000 of 1000 frames counted
// ON-NEXT: off above a 100-byte allocation: 1000 of 1000 frames counted
// ON-NEXT: off again: 1000 of 1000 frames counted
// ON-NEXT: main: peak 8192 current 0, frames misaligned: no
