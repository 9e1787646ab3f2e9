// With statistics on (SCOPEALLOC_STATS=1), code built with the inline fast
// path keeps the statistics the runtime would: the same allocs and peak per
// thread whether frames are bumped inline or by calls, a thread's first
// frame goes through the slow path that creates its arena, and a thread
// started after others exited gets a working arena again. So does code
// built with -scope-alloc-count-inline-frames without them. (Statistics
// off: inline-fast-path-counts.c.)
// RUN: %scc -O2 -pthread %s -o %t.inline
// RUN: %scc -O2 -pthread -mllvm -scope-alloc-inline-fast-path=false %s -o %t.calls
// RUN: %scc -O2 -pthread -mllvm -scope-alloc-count-inline-frames %s -o %t.counted
// RUN: env SCOPEALLOC_STATS=1 %t.inline 2>/dev/null | sort > %t.inline.out && FileCheck %s < %t.inline.out
// RUN: env SCOPEALLOC_STATS=1 %t.calls 2>/dev/null | sort > %t.calls.out && diff %t.inline.out %t.calls.out
// RUN: %t.calls | sort > %t.calls-nostats.out && diff %t.inline.out %t.calls-nostats.out
// RUN: %t.counted | sort > %t.counted.out && diff %t.inline.out %t.counted.out
// The inline build has no runtime call on the hot path of frame():
// RUN: llvm-objdump -d --no-show-raw-insn %t.inline | FileCheck %s --check-prefix=ASM
// ASM-LABEL: <frame>:
// ASM:         %fs:
// ASM:         call{{q?}} *{{.*}}(%rip)
// ASM-LABEL: <main>:
// The cold call goes through the GOT slot of the shared runtime's slow path
// (nonlazybind: no lazy PLT stub, whose resolver would clobber registers):
// RUN: llvm-objdump -R %t.inline | FileCheck %s --check-prefix=GOT
// GOT: R_X86_64_GLOB_DAT __scopealloc_frame_thunk
// (sorted output)
// CHECK: late thread: result [[SUM:[0-9]+]] allocs 1000 peak 2048 current 0
// CHECK-NEXT: main: result [[SUM]] allocs 1000 peak 2048 current 0
// CHECK-NEXT: nested: result 12 allocs 1004 peak 8192 current 0
// CHECK-NEXT: thread 0: result [[SUM]] allocs 1000 peak 2048 current 0
// CHECK-NEXT: thread 1: result [[SUM]] allocs 1000 peak 2048 current 0
// CHECK-NEXT: thread 2: result [[SUM]] allocs 1000 peak 2048 current 0
// CHECK-NEXT: thread 3: result [[SUM]] allocs 1000 peak 2048 current 0
#include <pthread.h>
#include <scopealloc/scopealloc.h>
#include <stdio.h>

__attribute__((noinline)) static void consume(char *p) {
  __asm__ volatile("" ::"r"(p) : "memory");
}

// 2 KiB: demoted by the wrapper's policy below.
__attribute__((noinline)) int frame(int i) {
  char buf[2048];
  consume(buf);
  buf[i & 2047] = (char)i;
  buf[(i * 31) & 2047] = 1;
  consume(buf);
  return buf[(i * 31) & 2047] + buf[i & 2047];
}

// Frames stacked three deep: the peak is their sum.
__attribute__((noinline)) int nested(int depth) {
  char buf[2048];
  consume(buf);
  buf[0] = (char)depth;
  int below = depth > 0 ? nested(depth - 1) : 0;
  consume(buf);
  return below + buf[0] + 3;
}

static void report(const char *who, long result) {
  scopealloc_stats st;
  scopealloc_thread_stats(&st);
  printf("%s: result %ld allocs %llu peak %zu current %zu\n", who, result,
         (unsigned long long)st.allocs, st.peak, st.current);
}

static long run_frames(void) {
  long sum = 0;
  for (int i = 0; i < 1000; i++)
    sum += frame(i);
  return sum;
}

static void *thread_main(void *arg) {
  long result = run_frames();
  report((const char *)arg, result);
  return NULL;
}

int main(void) {
  report("main", run_frames());
  report("nested", nested(3) - 6);
  // Four threads at once, then one more after they have all exited.
  const char *names[] = {"thread 0", "thread 1", "thread 2", "thread 3"};
  pthread_t th[4];
  for (int t = 0; t < 4; t++)
    pthread_create(&th[t], NULL, thread_main, (void *)names[t]);
  for (int t = 0; t < 4; t++)
    pthread_join(th[t], NULL);
  pthread_t late;
  pthread_create(&late, NULL, thread_main, (void *)"late thread");
  pthread_join(late, NULL);
  return 0;
}
