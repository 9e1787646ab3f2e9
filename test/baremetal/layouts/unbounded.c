/* Item 6 of issue 46: an unbounded handler (a HardFault_Handler whose
 * callee recurses without a declared depth, taking pool memory at each
 * level) makes every entry's stack and pool use unbounded; the known part
 * of main's stack (a 2 KiB frame) and of its pool use (256 bytes) alone
 * overrun the stack the link reserves and the 128-byte pool. */
#ifndef POOL_BYTES
#define POOL_BYTES 128
#endif
#include "layout.h"

static volatile uint32_t sink;

__attribute__((noinline)) uint32_t walk(uint32_t n) {
  SCOPEALLOC_WORKSPACE volatile uint8_t pad[16];
  pad[n & 15] = (uint8_t)n;
  return n ? walk(n - 1) + pad[n & 15] : 0;
}

void HardFault_Handler(void) {
  sink = walk(sink);
  for (;;)
    ;
}

__attribute__((noinline)) uint32_t big(uint32_t x) {
  SCOPEALLOC_STACK volatile uint8_t frame[2048];
  for (unsigned i = 0; i < sizeof frame; i++)
    frame[i] = (uint8_t)(i + x);
  return frame[x % sizeof frame];
}

__attribute__((noinline)) uint32_t pooled(uint32_t x) {
  SCOPEALLOC_WORKSPACE volatile uint8_t buf[256];
  buf[x & 255] = (uint8_t)x;
  return buf[(x + 1) & 255];
}

int main(void) {
  sink = big(sink);
  sink = pooled(sink);
  return 0;
}
