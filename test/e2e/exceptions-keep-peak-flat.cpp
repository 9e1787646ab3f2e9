// C++ exceptions thrown through demoted frames (limit 0) and caught higher
// up, rethrown, or swallowed by catch(...) leave the pool where the catching
// frame expects it: after 100000 throws the peak is that of one throw, and
// the catching frame's own buffers are intact.
// RUN: %scxx -O0 -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t.O0 && %t.O0 | FileCheck %s
// RUN: %scxx -O2 -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t.O2 && %t.O2 | FileCheck %s
// CHECK: caught 100000 rethrown 100000 swallowed 100000
// CHECK-NEXT: own buffer intact: yes
// CHECK-NEXT: current back to the catcher's frame: yes
// CHECK-NEXT: peak of one throw: yes
#include <scopealloc/scopealloc.h>
#include <cstdio>
#include <cstring>
#include <stdexcept>

static size_t current() {
  scopealloc_stats st;
  scopealloc_thread_stats(&st);
  return st.current;
}

__attribute__((noinline)) static void thrower(int depth) {
  char buf[4096];
  memset(buf, depth, sizeof buf);
  if (depth == 0)
    throw std::runtime_error("bottom");
  thrower(depth - 1);
  asm volatile("" ::"r"(buf) : "memory");
}

__attribute__((noinline)) static void rethrower() {
  char buf[2048];
  memset(buf, 7, sizeof buf);
  try {
    thrower(3);
  } catch (...) {
    asm volatile("" ::"r"(buf) : "memory");
    throw;
  }
}

int main() {
  char own[8192];
  memset(own, 0x5a, sizeof own);
  asm volatile("" ::"r"(own) : "memory");
  size_t base = current();
  long caught = 0, rethrown = 0, swallowed = 0;
  for (int i = 0; i < 100000; ++i) {
    try {
      thrower(5);
    } catch (const std::exception &) {
      ++caught;
    }
    try {
      rethrower();
    } catch (const std::runtime_error &) {
      ++rethrown;
    }
    try {
      thrower(2);
    } catch (...) {
      ++swallowed;
    }
  }
  bool intact = true;
  for (char c : own)
    intact &= c == 0x5a;
  scopealloc_stats st;
  scopealloc_thread_stats(&st);
  printf("caught %ld rethrown %ld swallowed %ld\n", caught, rethrown, swallowed);
  printf("own buffer intact: %s\n", intact ? "yes" : "no");
  printf("current back to the catcher's frame: %s\n", current() == base ? "yes" : "no");
  // One throw needs at most 6 thrower frames (+ their padding) above main.
  printf("peak of one throw: %s\n", st.peak <= base + 6 * (4096 + 64) + 2048 ? "yes" : "no");
  return 0;
}
