/* One program for every bare-metal target of test/baremetal/cross-links.sh.
 * Built through scopealloc-clang with -scope-alloc-max-stack-alloca=256:
 * histogram()'s 1 KiB buffer moves to the default pool (the fixed
 * `workspace`), frame_sum()'s frame comes from the named pool `scratch`.
 * main checks the pools' statistics itself and exits 0 when they are right. */
#include "board.h"

#include <scopealloc/scope.h>
#include <scopealloc/scopealloc.h>

SCOPEALLOC_DEFINE_POOL(workspace, 4096);
SCOPEALLOC_DEFINE_POOL(scratch, 2048);

#define N 512

static unsigned char samples[N];

/* 1 KiB, over the 256-byte limit: from the workspace pool. */
__attribute__((noinline)) uint32_t histogram(const unsigned char *in, int n) {
  uint32_t bins[256];
  for (int i = 0; i < 256; i++)
    bins[i] = 0;
  for (int i = 0; i < n; i++)
    bins[(in[i] * 7u + (unsigned)i) & 255u]++;
  uint32_t sum = 0;
  for (int i = 0; i < 256; i++)
    sum = sum * 31u + bins[i];
  return sum;
}

/* Under the limit, but scoped to pool `scratch`: from that pool. n is a
 * power of two. */
__attribute__((noinline)) uint32_t frame_sum(const unsigned char *in, int n) {
  SCOPEALLOC_POOL(scratch) unsigned char frame[128];
  for (int i = 0; i < 128; i++)
    frame[i] = (unsigned char)(in[i & (n - 1)] ^ i);
  uint32_t sum = 0;
  for (int i = 0; i < 128; i += 1 + (frame[i] & 3))
    sum = sum * 33u + frame[i];
  return sum;
}

/* In hexadecimal: no division, which Cortex-M0 would take from a
 * compiler-rt this test does not link. */
static void put_hex(uint32_t v) {
  char buf[11] = "0x";
  for (int i = 0; i < 8; i++)
    buf[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15u];
  buf[10] = 0;
  board_puts(buf);
}

static int check_pool(const char *name, const scopealloc_pool *pool,
                      uint32_t min_peak) {
  scopealloc_stats s;
  scopealloc_pool_stats(pool, &s);
  board_puts("pool ");
  board_puts(name);
  board_puts(": current ");
  put_hex((uint32_t)s.current);
  board_puts(", peak ");
  put_hex((uint32_t)s.peak);
  board_puts(", allocs ");
  put_hex((uint32_t)s.allocs);
  board_puts("\n");
  return s.current == 0 && s.peak >= min_peak && s.allocs == 1;
}

int main(void) {
  uint32_t x = 12345;
  for (int i = 0; i < N; i++) {
    x = x * 1103515245u + 12345u;
    samples[i] = (unsigned char)(x >> 16);
  }
  board_puts("checksums: ");
  put_hex(histogram(samples, N));
  board_puts(" ");
  put_hex(frame_sum(samples, N));
  board_puts("\n");
  int ok = check_pool("workspace", &__scopealloc_pool_workspace, 1024);
  ok &= check_pool("scratch", &__scopealloc_pool_scratch, 128);
  board_puts(ok ? "ok\n" : "wrong pool statistics\n");
  return ok ? 0 : 1;
}
