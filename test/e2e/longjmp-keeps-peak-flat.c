// A longjmp across demoted frames back to the function that called setjmp
// frees the skipped frames' memory when setjmp returns the second time:
// repeated a million times, the pool's peak stays that of one descent.
// RUN: %scc -O0 -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t.O0 && %t.O0 | FileCheck %s
// RUN: %scc -O2 -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t.O2 && %t.O2 | FileCheck %s
// CHECK: jumps 1000000
// CHECK-NEXT: own buffer intact: yes
// CHECK-NEXT: current back to the setjmp frame: yes
// CHECK-NEXT: peak of one descent: yes
#include <scopealloc/scopealloc.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

static jmp_buf env;

static size_t current(void) {
  scopealloc_stats st;
  scopealloc_thread_stats(&st);
  return st.current;
}

__attribute__((noinline)) static void descend(int depth) {
  char buf[3000];
  memset(buf, depth, sizeof buf);
  if (depth == 0)
    longjmp(env, 1);
  descend(depth - 1);
  __asm__ volatile("" ::"r"(buf) : "memory");
}

int main(void) {
  char own[5000];
  memset(own, 0x33, sizeof own);
  __asm__ volatile("" ::"r"(own) : "memory");
  size_t base = current();
  volatile long jumps = 0;
  for (long i = 0; i < 1000000; ++i) {
    if (setjmp(env) == 0)
      descend(3);
    else
      ++jumps;
  }
  int intact = 1;
  for (size_t i = 0; i < sizeof own; ++i)
    intact &= own[i] == 0x33;
  scopealloc_stats st;
  scopealloc_thread_stats(&st);
  printf("jumps %ld\n", (long)jumps);
  printf("own buffer intact: %s\n", intact ? "yes" : "no");
  printf("current back to the setjmp frame: %s\n", current() == base ? "yes" : "no");
  printf("peak of one descent: %s\n", st.peak <= base + 4 * (3000 + 64) ? "yes" : "no");
  return 0;
}
