// A VLA in a named pool inside a loop of 10,000 iterations: each iteration
// releases its buffer where llvm.stackrestore frees the stack, so a pool of
// 16 KiB serves 4 KiB buffers forever and its peak stays at one buffer. It
// used to be released only at return: the loop exhausted the pool at the
// fifth iteration. At -O0 and -O2, same output as the plain build.
// RUN: %scc -O0 %s -o %t.O0
// RUN: env SCOPEALLOC_STATS=1 %t.O0 2> %t.O0.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.O0.stats
// RUN: %scc -O2 %s -o %t.O2
// RUN: env SCOPEALLOC_STATS=1 %t.O2 2> %t.O2.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.O2.stats
// RUN: %clang -O2 -I%rtinc %s -o %t.plain
// RUN: %t.plain | FileCheck %s --check-prefix=PLAIN
#include <scopealloc/scope.h>
#include <scopealloc/scopealloc.h>
#include <stdio.h>
#include <string.h>

SCOPEALLOC_DEFINE_POOL(sram, 16384);

__attribute__((noinline)) static unsigned checksum(int iters) {
  unsigned h = 2166136261u;
  for (int i = 0; i < iters; ++i) {
    int n = 1024 + i % 7; /* ints: a little over 4 KiB */
    SCOPEALLOC_POOL(sram) int v[n];
    for (int k = 0; k < n; ++k)
      v[k] = i ^ (k * 3);
    __asm__ volatile("" : : "r"(v) : "memory");
    for (int k = 0; k < n; k += 97)
      h = (h ^ (unsigned)v[k]) * 16777619u;
  }
  return h;
}

int main(void) {
  printf("checksum %u\n", checksum(10000));
  return 0;
}
// CHECK: checksum 2011612357
// STATS: {{^ *}}sram {{ *}}0 {{ *}}4120 {{ *}}16384 {{ *}}10000 {{ *}}0
// PLAIN: checksum 2011612357
