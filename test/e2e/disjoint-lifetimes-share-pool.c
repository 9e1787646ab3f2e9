// Block-scoped buffers with disjoint lifetimes share pool bytes when clang
// emits lifetime markers (-O1 and up): the frame needs the largest buffer,
// not the sum (8 + 16 + 4 KiB). At -O0 clang emits no markers, so they add
// up, as they do on the machine stack.
// RUN: %scc -O2 %s -o %t.O2 && %t.O2 | FileCheck %s --check-prefix=SHARED
// RUN: %scc -O0 %s -o %t.O0 && %t.O0 | FileCheck %s --check-prefix=SUMMED
// SHARED: checksum 24
// SHARED-NEXT: pool bytes used by phases(): 16384
// SUMMED: checksum 24
// SUMMED-NEXT: pool bytes used by phases(): 28672
#include <scopealloc/scopealloc.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static void consume(char *p) {
  __asm__ volatile("" ::"r"(p) : "memory");
}

static size_t in_use(void) {
  scopealloc_stats st;
  scopealloc_thread_stats(&st);
  return st.current;
}

__attribute__((noinline)) static unsigned phases(int seed, size_t *used) {
  unsigned sum = 0;
  {
    char a[8192];
    memset(a, seed, sizeof a);
    consume(a);
    sum += (unsigned char)a[17];
  }
  {
    char b[16384];
    memset(b, seed + 1, sizeof b);
    consume(b);
    sum += (unsigned char)b[99];
  }
  {
    char c[4096];
    memset(c, seed + 2, sizeof c);
    consume(c);
    sum += (unsigned char)c[5];
  }
  *used = in_use();
  return sum;
}

int main(void) {
  size_t before = in_use();
  size_t during = 0;
  unsigned sum = phases(7, &during);
  printf("checksum %u\n", sum);
  printf("pool bytes used by phases(): %zu\n", during - before);
  return 0;
}
