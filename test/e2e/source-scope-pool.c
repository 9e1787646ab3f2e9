// A C program puts a local buffer in its own pool from the source
// (SCOPEALLOC_POOL, scopealloc/scope.h) and defines the pool; the pool serves
// every call at -O0 and at -O2 (where SROA would split the buffer if its
// scope did not pin it). Without the plugin the same source builds and
// computes the same result, with the buffer on the stack.
// RUN: %scc -O0 %s -o %t.O0
// RUN: %t.O0 | FileCheck %s
// RUN: %scc -O2 %s -o %t.O2
// RUN: %t.O2 | FileCheck %s
// RUN: %clang -O2 -I%rtinc %s %rtlib -lpthread -o %t.plain
// RUN: %t.plain | FileCheck %s --check-prefix=PLAIN
#include <scopealloc/scope.h>
#include <scopealloc/scopealloc.h>
#include <stdio.h>
#include <string.h>

SCOPEALLOC_DEFINE_POOL(dma, 65536);

__attribute__((noinline)) static int transfer(const char *src, char *dst,
                                              int k) {
  // 4 KiB from pool `dma`; two disjoint pieces used through memcpy only.
  SCOPEALLOC_POOL(dma) char buf[4096];
  memcpy(buf, src, 200);
  memcpy(buf + 1024, src + 300, 700);
  buf[1000] = (char)k;
  memcpy(dst, buf, 200);
  memcpy(dst + 300, buf + 1024, 700);
  return buf[1000];
}

__attribute__((noinline)) static int small(int k) {
  // Below every stack limit, yet from the pool because the source says so.
  SCOPEALLOC_POOL(dma) volatile int acc[4];
  for (int i = 0; i < 4; ++i)
    acc[i] = k * i;
  return acc[0] + acc[1] + acc[2] + acc[3];
}

int main(void) {
  static char src[1000], dst[1000];
  for (int i = 0; i < 1000; ++i)
    src[i] = (char)(i * 7 + 3);
  long sum = 0;
  for (int round = 0; round < 3; ++round) {
    sum += transfer(src, dst, round + 40);
    for (int i = 0; i < 1000; ++i)
      sum += dst[i];
    sum += small(round);
  }
  printf("sum %ld\n", sum);
  scopealloc_stats st;
  scopealloc_pool_stats(&__scopealloc_pool_dma, &st);
  printf("%s allocs %llu, current %zu, peak>=4096 %s, failures %llu\n",
         st.name, (unsigned long long)st.allocs, st.current,
         st.peak >= 4096 ? "yes" : "no", (unsigned long long)st.failures);
  return 0;
}

// CHECK: sum 2847
// CHECK-NEXT: dma allocs 6, current 0, peak>=4096 yes, failures 0
// PLAIN: sum 2847
// PLAIN-NEXT: dma allocs 0, current 0, peak>=4096 no, failures 0
