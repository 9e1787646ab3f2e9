/* ScopeAlloc on bare metal: a Cortex-M4 program whose 4 KiB scratch buffer
 * the pass moves off the (small) stack into the default `workspace` pool, and
 * whose DMA frame comes from pool `dma` in SRAM2. No libc: board.h/startup.c
 * print through semihosting. test/baremetal/bare-metal-demo.sh builds it with
 * the target `netduino` of policy.yaml (the limits of the built-in `cortex-m`
 * tag, and the bounds the link checks), checks it and runs it under QEMU
 * (netduinoplus2: STM32F405, Cortex-M4).
 *
 * Build flags that change it:
 *   -DDEMO_WORKSPACE_SIZE=N   size of the default pool (too small: the
 *                             runtime's default exhaustion handler traps)
 *   -DDEMO_NO_WORKSPACE_POOL  define no default pool: linking fails naming
 *                             __scopealloc_pool_workspace
 */
#include "board.h"

#include <scopealloc/scope.h>
#include <scopealloc/scopealloc.h>

#ifndef DEMO_WORKSPACE_SIZE
#define DEMO_WORKSPACE_SIZE 16384
#endif
#define SAMPLES 2048
#define BINS 1024
#define FRAME 2048
#define TAPS 60

/* The default pool of a freestanding build is the named pool `workspace`:
 * here in .bss (SRAM1). Pool `dma` lives in SRAM2 (cortex-m4.ld). */
#ifndef DEMO_NO_WORKSPACE_POOL
SCOPEALLOC_DEFINE_POOL(workspace, DEMO_WORKSPACE_SIZE);
#endif
SCOPEALLOC_DEFINE_POOL_IN_SECTION(dma, 8192, ".sram2");

static uint8_t samples[SAMPLES];

/* bins (4 KiB) is over the cortex-m limit of 256 bytes: the pass moves it to
 * the default pool. Data-dependent indexing keeps it in memory at -O2. */
__attribute__((noinline)) uint32_t histogram_checksum(const uint8_t *in,
                                                      size_t n) {
  uint32_t bins[BINS];
  for (size_t i = 0; i < BINS; i++)
    bins[i] = 0;
  for (size_t i = 0; i < n; i++)
    bins[(in[i] * 7u + i) % BINS]++;
  uint32_t sum = 0;
  for (size_t i = 0; i < BINS; i++)
    sum = sum * 31u + bins[i];
  return sum;
}

/* A frame a DMA engine would fill: it must come from pool `dma`, whatever
 * its size (scope global.dma). */
__attribute__((noinline)) uint32_t dma_frame_checksum(const uint8_t *in,
                                                      size_t n) {
  SCOPEALLOC_POOL(dma) uint8_t frame[FRAME];
  for (size_t i = 0; i < FRAME; i++)
    frame[i] = (uint8_t)(in[i % n] ^ (uint8_t)i);
  uint32_t sum = 0;
  for (size_t i = 0; i < FRAME; i += 1 + frame[i] % 7)
    sum = sum * 33u + frame[i];
  return sum;
}

/* A boxcar FIR filter over the samples. Its delay line (240 bytes) is under
 * the cortex-m limit of 256 bytes, so it stays on the stack: the deepest
 * frame of the program, which the stack bound counts (and which a frame
 * budget from scopealloc-bound --suggest-policy moves to the pool). */
__attribute__((noinline)) uint32_t fir_checksum(const uint8_t *in, size_t n) {
  uint32_t delay[TAPS];
  for (size_t i = 0; i < TAPS; i++)
    delay[i] = 0;
  uint32_t acc = 0, sum = 0;
  for (size_t i = 0; i < n; i++) {
    size_t k = i % TAPS;
    acc += in[i] - delay[k];
    delay[k] = in[i];
    sum = sum * 31u + acc;
  }
  return sum;
}

static void print_pool(const char *label, const scopealloc_pool *pool) {
  scopealloc_stats s;
  scopealloc_pool_stats(pool, &s);
  board_puts(label);
  board_puts(": current ");
  board_put_uint((uint32_t)s.current);
  board_puts(", peak ");
  board_put_uint((uint32_t)s.peak);
  board_puts(", capacity ");
  board_put_uint((uint32_t)s.capacity);
  board_puts(", allocs ");
  board_put_uint((uint32_t)s.allocs);
  board_puts("\n");
}

int main(void) {
  uint32_t x = 12345;
  for (size_t i = 0; i < SAMPLES; i++) {
    x = x * 1103515245u + 12345u;
    samples[i] = (uint8_t)(x >> 16);
  }
  uint32_t h = histogram_checksum(samples, SAMPLES);
  uint32_t d = dma_frame_checksum(samples, SAMPLES);
  uint32_t f = fir_checksum(samples, SAMPLES);
  board_puts("histogram checksum: ");
  board_put_uint(h);
  board_puts("\ndma frame checksum: ");
  board_put_uint(d);
  board_puts("\nfir checksum: ");
  board_put_uint(f);
  board_puts("\n");

  int leftover = 0;
#ifndef DEMO_NO_WORKSPACE_POOL
  print_pool("pool workspace", &__scopealloc_pool_workspace);
  leftover |= __scopealloc_pool_workspace.cur != __scopealloc_pool_workspace.base;
#endif
  print_pool("pool dma", &__scopealloc_pool_dma);
  leftover |= __scopealloc_pool_dma.cur != __scopealloc_pool_dma.base;
  board_puts("stack high-water: ");
  board_put_uint((uint32_t)board_stack_high_water());
  board_puts(" bytes\n");
  return leftover;
}
