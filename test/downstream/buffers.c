/* Two buffers above the 256-byte limit of downstream-policy.yaml and below
 * the 1024-byte default: with the policy both come from the workspace pool,
 * without it both stay on the stack. Prints what the pool saw. */
#include <scopealloc/scopealloc.h>
#include <stdio.h>

unsigned kernel_checksum(unsigned seed); /* kernel.cpp */

__attribute__((noinline)) static unsigned c_checksum(unsigned seed) {
  unsigned char buf[512];
  for (unsigned i = 0; i < sizeof buf; ++i)
    buf[i] = (unsigned char)(seed * 31u + i);
  unsigned sum = 0;
  for (unsigned i = 0; i < sizeof buf; i += 3)
    sum = sum * 33u + buf[i];
  return sum;
}

int main(void) {
  unsigned sum = c_checksum(7) ^ kernel_checksum(11);
  scopealloc_stats st;
  scopealloc_thread_stats(&st);
  printf("checksum %u\n", sum);
  printf("workspace allocs %llu peak %zu current %zu\n",
         (unsigned long long)st.allocs, st.peak, st.current);
  return 0;
}
