/* A 512-byte buffer: above the 256-byte limit the Makefile gives the pass,
 * so `prog` takes it from the workspace pool; `prog-plain` keeps it on the
 * stack. Prints what the pool saw. */
#include <scopealloc/scopealloc.h>
#include <stdio.h>

__attribute__((noinline)) static unsigned checksum(unsigned seed) {
  unsigned char buf[512];
  for (unsigned i = 0; i < sizeof buf; ++i)
    buf[i] = (unsigned char)(seed * 31u + i);
  unsigned sum = 0;
  for (unsigned i = 0; i < sizeof buf; i += 3)
    sum = sum * 33u + buf[i];
  return sum;
}

int main(void) {
  unsigned sum = checksum(7);
  scopealloc_stats st;
  scopealloc_thread_stats(&st);
  printf("checksum %u\n", sum);
  printf("workspace allocs %llu peak %zu current %zu\n",
         (unsigned long long)st.allocs, st.peak, st.current);
  return 0;
}
