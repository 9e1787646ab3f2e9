/* Item 2 of issue 46: assembly that moves the stack pointer. SysTick's
 * handler is naked (push r4-r11 and lr, sub sp, #68, bl to C: 104 bytes
 * that no .stack_sizes entry holds), and scratch() steps the stack pointer
 * down 16 bytes in inline asm that its entry does not count. */
#include "layout.h"

static volatile uint32_t ticks, sink;

__attribute__((used, noinline)) void tick_work(void) {
  SCOPEALLOC_STACK volatile uint8_t buf[32];
  for (unsigned i = 0; i < sizeof buf; i++)
    buf[i] = (uint8_t)(i + ticks);
  sink = buf[7];
  SYST_CSR = 0;
  ticks++;
}

__attribute__((naked)) void SysTick_Handler(void) {
  __asm__ volatile("push {r4-r11, lr}\n\t"
                   "sub sp, #68\n\t"
                   "str r4, [sp]\n\t"
                   "str r4, [sp, #64]\n\t"
                   "bl tick_work\n\t"
                   "add sp, #68\n\t"
                   "pop {r4-r11, pc}\n\t");
}

__attribute__((noinline)) uint32_t scratch(uint32_t v) {
  uint32_t out;
  __asm__ volatile("sub sp, #16\n\t"
                   "str %1, [sp]\n\t"
                   "str %1, [sp, #12]\n\t"
                   "ldr %0, [sp, #12]\n\t"
                   "add sp, #16"
                   : "=r"(out)
                   : "r"(v)
                   : "memory");
  return out + 1;
}

int main(void) {
  start_systick();
  while (!ticks)
    sink = scratch(sink);
  return 0;
}
