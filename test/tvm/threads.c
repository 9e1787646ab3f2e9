// Workspaces are per thread: four threads run the TVM-style model
// (Inputs/model.c) 50 times each at the same time, every result must equal
// the single-threaded one, and each thread must end with no live workspace
// and an empty arena. A workspace cannot be freed by another thread.
//
// RUN: %clang -O2 -I%S/Inputs -I%prefix/include %S/Inputs/model.c %s %tvmlibs -o %t
// RUN: env SCOPEALLOC_STATS=1 %t > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
#include "tvm/runtime/c_backend_api.h"
#include <scopealloc/scopealloc.h>
#include <scopealloc/tvm.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define N 2048
#define THREADS 4
#define RUNS 50

int32_t tvmgen_default___tvm_main__(void *args, int32_t *arg_type_ids,
                                    int32_t num_args, void *out_ret_value,
                                    int32_t *out_ret_tcode,
                                    void *resource_handle);

static float input[N], weight[10], expected[N];
static pthread_barrier_t start;

static int run_model(float *out) {
  int64_t in_shape[1] = {N}, w_shape[1] = {10}, out_shape[2] = {64, 32};
  DLTensor in = {input, {kDLCPU, 0}, 1, {2, 32, 1}, in_shape, NULL, 0};
  DLTensor w = {weight, {kDLCPU, 0}, 1, {2, 32, 1}, w_shape, NULL, 0};
  DLTensor o = {out, {kDLCPU, 0}, 2, {2, 32, 1}, out_shape, NULL, 0};
  TVMValue args[3], ret;
  int32_t codes[3] = {kTVMDLTensorHandle, kTVMDLTensorHandle,
                      kTVMDLTensorHandle};
  int32_t ret_code;
  args[0].v_handle = &in;
  args[1].v_handle = &w;
  args[2].v_handle = &o;
  return tvmgen_default___tvm_main__(args, codes, 3, &ret, &ret_code, NULL);
}

struct job {
  int id;
  int ok;
  void *foreign; // a workspace of the main thread
  int foreign_free_result;
};

static void *worker(void *arg) {
  struct job *job = arg;
  static __thread float out[N];
  job->foreign_free_result = TVMBackendFreeWorkspace(1, 0, job->foreign);
  pthread_barrier_wait(&start);
  job->ok = 1;
  for (int r = 0; r < RUNS; r++) {
    memset(out, 0, sizeof out);
    job->ok &= run_model(out) == 0 && memcmp(out, expected, sizeof out) == 0;
  }
  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  job->ok &= s.current == 0 && scopealloc_tvm_live_workspaces() == 0 &&
             s.allocs == 40 * RUNS;
  return NULL;
}

int main(void) {
  unsigned x = 7;
  for (int i = 0; i < N; i++) {
    x = x * 1103515245u + 12345u;
    input[i] = (float)((int)((x >> 16) % 2001) - 1000) / 64.0f;
  }
  for (int i = 0; i < 10; i++)
    weight[i] = (float)(5 - i) / 16.0f;
  if (run_model(expected) != 0) {
    printf("single-threaded run failed\n");
    return 1;
  }

  void *mine = TVMBackendAllocWorkspace(1, 0, 4096, 2, 32);
  pthread_barrier_init(&start, NULL, THREADS);
  pthread_t threads[THREADS];
  struct job jobs[THREADS];
  for (int t = 0; t < THREADS; t++) {
    jobs[t] = (struct job){t, 0, mine, 0};
    pthread_create(&threads[t], NULL, worker, &jobs[t]);
  }
  int ok = 1;
  for (int t = 0; t < THREADS; t++) {
    pthread_join(threads[t], NULL);
    printf("thread %d: %s, freeing main's workspace returned %d\n", t,
           jobs[t].ok ? "ok" : "WRONG", jobs[t].foreign_free_result);
    ok &= jobs[t].ok && jobs[t].foreign_free_result == -1;
  }
  ok &= TVMBackendFreeWorkspace(1, 0, mine) == 0;
  scopealloc_stats p;
  scopealloc_process_stats(&p);
  ok &= p.current == 0 && scopealloc_tvm_live_workspaces() == 0;
  printf(ok ? "all ok\n" : "FAILED\n");
  return !ok;
}

// OUT:      thread 0: ok, freeing main's workspace returned -1
// OUT-NEXT: thread 1: ok, freeing main's workspace returned -1
// OUT-NEXT: thread 2: ok, freeing main's workspace returned -1
// OUT-NEXT: thread 3: ok, freeing main's workspace returned -1
// OUT-NEXT: all ok

// Allocations: main's model run (40) and workspace (1), 4 x 50 x 40 in threads.
// ERR-COUNT-4: scopealloc-tvm: TVMBackendFreeWorkspace(1, 0, 0x{{[0-9a-f]+}}): not a live workspace of this thread
// ERR: workspace {{ *}}0 {{ *}}[[#]] {{ *}}[[#]] {{ *}}8041 {{ *}}0
// ERR: default pool of 5 thread(s), 1 running
