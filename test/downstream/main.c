/* Uses a 4 KiB buffer (demoted under the 256-byte limit set in
 * CMakeLists.txt) and checks through the statistics API that the workspace
 * pool served it. */
#include <scopealloc/scopealloc.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static unsigned checksum(unsigned seed) {
  unsigned char buf[4096];
  for (unsigned i = 0; i < sizeof buf; ++i)
    buf[i] = (unsigned char)(seed * 31u + i);
  unsigned sum = 0;
  for (unsigned i = 0; i < sizeof buf; i += 7)
    sum = sum * 33u + buf[i];
  return sum;
}

int main(void) {
  unsigned sum = checksum(7);
  scopealloc_stats st;
  scopealloc_thread_stats(&st);
  printf("checksum %u\n", sum);
  printf("workspace allocs %s, peak %s 4096\n", st.allocs > 0 ? "> 0" : "= 0",
         st.peak >= 4096 ? ">=" : "<");
  return st.allocs > 0 && st.peak >= 4096 && st.current == 0 ? 0 : 1;
}
