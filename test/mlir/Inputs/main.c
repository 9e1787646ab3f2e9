/* Drives the MLIR matmul kernels: ./app <kernel> <n> fills A and B
 * deterministically (small integers, so every float sum is exact), runs
 * C = A * B through the kernel's C interface and prints a checksum.
 * With -DMLIR_SRAM_POOL=<bytes> it defines the named pool mlir_sram that
 * the scope global.mlir_sram takes its memory from. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef MLIR_SRAM_POOL
#include <scopealloc/scopealloc.h>
SCOPEALLOC_DEFINE_POOL(mlir_sram, MLIR_SRAM_POOL);
#endif

/* MLIR's descriptor of a memref<?x?xf32> (llvm.emit_c_interface). */
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} memref2d;

typedef void kernel_fn(memref2d *, memref2d *, memref2d *);
/* Each kernel object defines some of these. */
__attribute__((weak)) kernel_fn _mlir_ciface_matmul_entry, _mlir_ciface_matmul_loop,
    _mlir_ciface_matmul_scope, _mlir_ciface_matmul_linalg;

static memref2d matrix(int64_t n) {
  float *p = aligned_alloc(64, (size_t)(n * n) * sizeof(float));
  if (!p) {
    perror("aligned_alloc");
    exit(2);
  }
  memref2d m = {p, p, 0, {n, n}, {n, 1}};
  return m;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s entry|loop|scope|linalg <n>\n", argv[0]);
    return 2;
  }
  kernel_fn *kernel = 0;
  if (!strcmp(argv[1], "entry")) kernel = _mlir_ciface_matmul_entry;
  else if (!strcmp(argv[1], "loop")) kernel = _mlir_ciface_matmul_loop;
  else if (!strcmp(argv[1], "scope")) kernel = _mlir_ciface_matmul_scope;
  else if (!strcmp(argv[1], "linalg")) kernel = _mlir_ciface_matmul_linalg;
  int64_t n = atoll(argv[2]);
  if (!kernel || n <= 0 || n % 128) {
    fprintf(stderr, "%s: no kernel '%s' in this program, or n=%s not a multiple of 128\n",
            argv[0], argv[1], argv[2]);
    return 2;
  }
  memref2d a = matrix(n), b = matrix(n), c = matrix(n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      a.aligned[i * n + j] = (float)((i * 7 + j * 3) % 17 - 8);
      b.aligned[i * n + j] = (float)((i * 5 + j * 11) % 13 - 6);
      c.aligned[i * n + j] = -1.0f;
    }
  kernel(&a, &b, &c);
  int64_t sum = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      sum += (int64_t)c.aligned[i * n + j] * (1 + (i * 31 + j * 17) % 13);
  printf("%s n=%lld c[0][0]=%.1f c[n-1][n-1]=%.1f checksum=%lld\n", argv[1], (long long)n,
         c.aligned[0], c.aligned[n * n - 1], (long long)sum);
  free(a.allocated);
  free(b.allocated);
  free(c.allocated);
  return 0;
}
