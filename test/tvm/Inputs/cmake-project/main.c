#include <scopealloc/scopealloc.h>
#include <scopealloc/tvm.h>
#include <stdint.h>
#include <stdio.h>

int main(void) {
  float *a = TVMBackendAllocWorkspace(1, 0, 4096, 2, 32);
  if (a == NULL)
    return 1;
  for (int i = 0; i < 1024; i++)
    a[i] = (float)i;
  float sum = 0;
  for (int i = 0; i < 1024; i++)
    sum += a[i];
  int rc = TVMBackendFreeWorkspace(1, 0, a);
  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  printf("sum %.0f, aligned %d, free %d, current %zu\n", sum,
         ((uintptr_t)a & 63) == 0, rc, s.current);
  return 0;
}
