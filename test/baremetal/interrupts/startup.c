/* Start-up for irq.c and ../rtos/rtos.c: examples/bare-metal/startup.c's
 * reset, semihosting and fault handling, with a vector table that names
 * SysTick_Handler and PendSV_Handler (the program defines them). Memory
 * map: cortex-m4.ld. */
#include "board.h"

extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_top[];

int main(void);
void SysTick_Handler(void);
void PendSV_Handler(void);

static uint32_t semihost(uint32_t op, uintptr_t arg) {
  register uint32_t r0 __asm__("r0") = op;
  register uintptr_t r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void board_puts(const char *s) { semihost(0x04 /* SYS_WRITE0 */, (uintptr_t)s); }

void board_put_uint(uint32_t v) {
  char buf[11];
  char *p = buf + sizeof buf - 1;
  *p = 0;
  do {
    *--p = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  board_puts(p);
}

void board_exit(int status) {
  semihost(0x18 /* SYS_EXIT */, status == 0 ? 0x20026 : 0x20023);
  for (;;)
    ;
}

void Reset_Handler(void) {
  for (uint32_t *d = __data_start, *s = __data_load; d < __data_end;)
    *d++ = *s++;
  for (uint32_t *d = __bss_start; d < __bss_end;)
    *d++ = 0;
  board_exit(main());
}

void HardFault_Handler(void) {
  board_puts("HardFault\n");
  board_exit(1);
}

typedef void (*vector_t)(void);
__attribute__((used, section(".isr_vector"))) static const vector_t vectors[16] = {
    (vector_t)(uintptr_t)__stack_top, /* initial stack pointer */
    Reset_Handler,
    HardFault_Handler, /* NMI */
    HardFault_Handler,
    0, 0, 0, 0, 0, 0, 0,
    0, /* SVCall */
    0, 0,
    PendSV_Handler,
    SysTick_Handler,
};
