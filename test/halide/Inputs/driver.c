// Runs the Halide pipeline halide_blur (blur_generator.cpp, or Halide 21's
// blur_generator21.py with -DHALIDE_EXTERN_STAGE_GATE) on a
// deterministic 1024x768 16-bit image with 4 threads and prints a checksum
// of the result, what the pipeline asked halide_malloc for, and how many
// threads held a tile at once. Built once per test with plain clang and
// linked with the pipeline object of each lowering (plain, or through
// ScopeAlloc), so every line but the halide_malloc one must be identical.
#include <HalideRuntime.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int halide_blur(struct halide_buffer_t *input, struct halide_buffer_t *out);

enum { W = 1024, H = 768, THREADS = 4 };

// tile_gate: called by the pipeline once per tile (Func gate, computed at
// out.xo), while that tile's buffers are live. The first tile of each thread
// waits until THREADS threads are inside a tile, so THREADS tiles always hold
// their buffers at the same time, however the thread pool schedules them:
// the threads that use the pools and the peaks are the same on every run.
// The deadline only turns a hang into a failure (printed below).
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_arrived, gate_timed_out, gate_calls;
static __thread int gate_seen;

static void gate_wait(void) {
  pthread_mutex_lock(&gate_lock);
  gate_calls++;
  if (!gate_seen) {
    gate_seen = 1;
    if (gate_arrived < THREADS) {
      gate_arrived++;
      pthread_cond_broadcast(&gate_cond);
      struct timespec deadline;
      clock_gettime(CLOCK_REALTIME, &deadline);
      deadline.tv_sec += 120;
      while (gate_arrived < THREADS && !gate_timed_out)
        if (pthread_cond_timedwait(&gate_cond, &gate_lock, &deadline) != 0)
          gate_timed_out = 1;
    }
  }
  pthread_mutex_unlock(&gate_lock);
}

#ifdef HALIDE_EXTERN_STAGE_GATE
// Halide 21's Python API has no scalar extern call: the gate is an extern
// stage (Func.define_extern) with a 0-dimensional int32 output. A call with
// no output memory is a bounds query.
int tile_gate(halide_buffer_t *out) {
  if (!out->host)
    return 0;
  gate_wait();
  *(int32_t *)out->host = 0;
  return 0;
}
#else
int32_t tile_gate(int32_t unused) {
  (void)unused;
  gate_wait();
  return 0;
}
#endif

// halide_malloc/halide_free as the pipeline calls them (the Halide runtime's
// own allocator underneath): calls per size, and how many are still live.
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  size_t size;
  int calls;
} heap_sizes[16];
static int heap_distinct, heap_live;

static void *counting_malloc(void *user_context, size_t size) {
  pthread_mutex_lock(&heap_lock);
  int i = 0;
  while (i < heap_distinct && heap_sizes[i].size != size)
    i++;
  if (i == heap_distinct && heap_distinct < 16)
    heap_sizes[heap_distinct++].size = size;
  if (i < 16)
    heap_sizes[i].calls++;
  heap_live++;
  pthread_mutex_unlock(&heap_lock);
  return halide_default_malloc(user_context, size);
}

static void counting_free(void *user_context, void *ptr) {
  pthread_mutex_lock(&heap_lock);
  heap_live--;
  pthread_mutex_unlock(&heap_lock);
  halide_default_free(user_context, ptr);
}

static void make_buffer(halide_buffer_t *b, halide_dimension_t *dim,
                        uint16_t *data) {
  memset(b, 0, sizeof *b);
  dim[0] = (halide_dimension_t){0, W, 1, 0};
  dim[1] = (halide_dimension_t){0, H, W, 0};
  b->host = (uint8_t *)data;
  b->type = (struct halide_type_t){halide_type_uint, 16, 1};
  b->dimensions = 2;
  b->dim = dim;
}

int main(void) {
  static uint16_t in[W * H], out[W * H];
  uint32_t s = 12345;
  for (int i = 0; i < W * H; i++) {
    s = s * 1103515245u + 12345u;
    in[i] = (uint16_t)(s >> 16);
  }
  halide_dimension_t din[2], dout[2];
  halide_buffer_t bin, bout;
  make_buffer(&bin, din, in);
  make_buffer(&bout, dout, out);

  halide_set_custom_malloc(counting_malloc);
  halide_set_custom_free(counting_free);
  halide_set_num_threads(THREADS);
  int err = halide_blur(&bin, &bout);

  uint64_t h = 1469598103934665603ull; // FNV-1a over the output
  for (int i = 0; i < W * H; i++) {
    h ^= out[i];
    h *= 1099511628211ull;
  }
  printf("halide_blur %dx%d: error %d, checksum %016llx\n", W, H, err,
         (unsigned long long)h);
  printf("tiles %d, threads holding a tile at once %d%s\n", gate_calls,
         gate_arrived,
         gate_timed_out ? " (timed out waiting for the others)" : "");
  // Sizes largest first, so the line does not depend on call order.
  printf("halide_malloc:");
  for (int n = 0; n < heap_distinct; n++) {
    int best = -1;
    for (int i = 0; i < heap_distinct; i++)
      if (heap_sizes[i].calls > 0 &&
          (best < 0 || heap_sizes[i].size > heap_sizes[best].size))
        best = i;
    printf(" %zu bytes x %d,", heap_sizes[best].size, heap_sizes[best].calls);
    heap_sizes[best].calls = -heap_sizes[best].calls;
  }
  printf(" live %d\n", heap_live);
  return err != 0 || gate_timed_out;
}
