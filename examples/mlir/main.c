/* Runs the blur kernel of blur.mlir on a 64 x 4096 image and prints a
 * checksum; with ScopeAlloc (-DWITH_SCOPEALLOC) it defines the pool the line
 * buffer's scope names and prints that pool's use. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef WITH_SCOPEALLOC
#include <scopealloc/scopealloc.h>
SCOPEALLOC_DEFINE_POOL(npu_sram, 16384); /* one line buffer; a linker section in real life */
#endif

typedef struct { /* MLIR's descriptor of memref<?x4096xf32> */
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} image;

void _mlir_ciface_blur(image *in, image *out);

int main(void) {
  enum { H = 64, W = 4096 };
  float *a = malloc(sizeof(float) * H * W), *b = malloc(sizeof(float) * H * W);
  if (!a || !b)
    return 1;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      a[y * W + x] = (float)((x * 7 + y * 13) % 29);
  image in = {a, a, 0, {H, W}, {W, 1}}, out = {b, b, 0, {H, W}, {W, 1}};
  _mlir_ciface_blur(&in, &out);
  double sum = 0;
  for (int i = 0; i < H * W; ++i)
    sum += b[i] * (double)(1 + i % 7);
  printf("blur checksum %.3f\n", sum);
#ifdef WITH_SCOPEALLOC
  scopealloc_stats st;
  scopealloc_pool_stats(&__scopealloc_pool_npu_sram, &st);
  printf("pool %s: peak %zu of %zu bytes, %llu allocations, now %zu\n", st.name, st.peak,
         st.capacity, (unsigned long long)st.allocs, st.current);
#endif
  free(a);
  free(b);
  return 0;
}
