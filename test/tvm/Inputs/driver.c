/* Runs the TVM-style model (model.c) a few times against a plain C reference
 * and reports the arena: every workspace must be freed and the default pool
 * empty at exit. Exit status 0 only if all of that holds. */
#include "tvm/runtime/c_runtime_api.h"
#include <scopealloc/scopealloc.h>
#include <scopealloc/tvm.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 2048
#define ROWS 32
#define COLS 64

int32_t tvmgen_default___tvm_main__(void *args, int32_t *arg_type_ids,
                                    int32_t num_args, void *out_ret_value,
                                    int32_t *out_ret_tcode,
                                    void *resource_handle);

static float input[N], weight[10], output[N], expected[N];

/* The model's arithmetic in the same order, without workspaces. */
static void reference(void) {
  static float pad[N + 8], relu[N], soft[N], transposed[N], row_mean[COLS * 16];
  for (int i = 0; i < N + 8; i++)
    pad[i] = (i >= 4 && i < N + 4) ? input[i - 4] : 0.0f;
  for (int t = 0; t < N / 64; t++) {
    float local[64] = {0};
    for (int rk = 0; rk < 9; rk++)
      for (int j = 0; j < 64; j++)
        local[j] = local[j] + pad[t * 64 + j + rk] * weight[rk];
    for (int j = 0; j < 64; j++) {
      float v = local[j] + weight[9];
      relu[t * 64 + j] = v > 0.0f ? v : 0.0f;
    }
  }
  for (int r = 0; r < ROWS; r++) {
    float max = -3.402823e+38f, sum = 0.0f, e[COLS];
    for (int k = 0; k < COLS; k++)
      max = max > relu[r * COLS + k] ? max : relu[r * COLS + k];
    for (int k = 0; k < COLS; k++) {
      e[k] = expf(relu[r * COLS + k] - max);
      sum = sum + e[k];
    }
    for (int k = 0; k < COLS; k++)
      soft[r * COLS + k] = e[k] / sum;
  }
  for (int a = 0; a < COLS; a++)
    for (int b = 0; b < ROWS; b++)
      transposed[a * ROWS + b] = soft[b * COLS + a];
  for (int a = 0; a < COLS; a++) {
    float acc = 0.0f;
    for (int b = 0; b < ROWS; b++)
      acc = acc + transposed[a * ROWS + b];
    for (int c = 0; c < 16; c++)
      row_mean[a * 16 + c] = acc * 3.125e-02f;
  }
  for (int a = 0; a < COLS; a++)
    for (int b = 0; b < ROWS; b++)
      expected[a * ROWS + b] = transposed[a * ROWS + b] + row_mean[a * 16 + (b & 7)];
}

int main(void) {
  /* Built at limit 0, main's own locals live in the arena too. */
  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  size_t main_frame = s.current;
  unsigned x = 2024;
  for (int i = 0; i < N; i++) {
    x = x * 1103515245u + 12345u;
    input[i] = (float)((int)((x >> 16) % 2001) - 1000) / 64.0f;
  }
  /* Exact in binary, so that no build can round them differently (clang
   * folds a constant a - b * c as one fused operation at -O2). */
  for (int i = 0; i < 10; i++)
    weight[i] = (float)(5 - i) / 16.0f;
  reference();

  int64_t in_shape[1] = {N}, w_shape[1] = {10}, out_shape[2] = {COLS, ROWS};
  DLTensor in = {input, {kDLCPU, 0}, 1, {2, 32, 1}, in_shape, NULL, 0};
  DLTensor w = {weight, {kDLCPU, 0}, 1, {2, 32, 1}, w_shape, NULL, 0};
  DLTensor out = {output, {kDLCPU, 0}, 2, {2, 32, 1}, out_shape, NULL, 0};
  TVMValue args[3];
  int32_t codes[3] = {kTVMDLTensorHandle, kTVMDLTensorHandle,
                      kTVMDLTensorHandle};
  args[0].v_handle = &in;
  args[1].v_handle = &w;
  args[2].v_handle = &out;

  int bad = 0;
  for (int run = 0; run < 3; run++) {
    memset(output, 0, sizeof output);
    TVMValue ret;
    int32_t ret_code;
    int rc = tvmgen_default___tvm_main__(args, codes, 3, &ret, &ret_code, NULL);
    float worst = 0.0f;
    double checksum = 0.0;
    for (int i = 0; i < N; i++) {
      float d = fabsf(output[i] - expected[i]);
      worst = d > worst ? d : worst;
      checksum += output[i] * (float)(i % 17 + 1);
    }
    printf("run %d: status %d, checksum %.6f, max error %g\n", run, rc,
           checksum, (double)worst);
    bad |= rc != 0 || worst > 1e-6f;
  }

  scopealloc_thread_stats(&s);
  size_t live = scopealloc_tvm_live_workspaces();
  fprintf(stderr,
          "workspaces: live %zu, arena current %zu (main's frame %zu), peak "
          "%zu, allocs %llu\n",
          live, s.current, main_frame, s.peak, (unsigned long long)s.allocs);
  bad |= live != 0 || s.current != main_frame;
  printf(bad ? "FAILED\n" : "model ok\n");
  return bad;
}
