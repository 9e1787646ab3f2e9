/* Item 3 of issue 46: a vector table inside .text (libopencm3's layout:
 * startup.c's table in input section .vectors, placed by in-text.ld inside
 * the .text output section) and handlers named as libopencm3 names them
 * (sys_tick_handler, not *_Handler). */
#include "layout.h"

static volatile uint32_t ticks, sink;

void sys_tick_handler(void) {
  SCOPEALLOC_STACK volatile uint8_t buf[256];
  for (unsigned i = 0; i < sizeof buf; i++)
    buf[i] = (uint8_t)(i ^ ticks);
  sink = buf[ticks & 255];
  SYST_CSR = 0;
  ticks++;
}

int main(void) {
  start_systick();
  while (!ticks)
    ;
  return 0;
}
