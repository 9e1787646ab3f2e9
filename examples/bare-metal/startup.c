/* Cortex-M startup without a libc: the vector table, Reset_Handler (copy
 * .data, zero .bss, paint the stack, run main), a HardFault handler that
 * reports the fault, and semihosting output. Memory map: cortex-m4.ld. */
#include "board.h"

extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_bottom[], __stack_top[];

int main(void);

#define STACK_PAINT 0xa5a5a5a5u

/* ---- Semihosting: BKPT 0xAB with the operation in r0, its argument in r1 ---- */

#define SYS_WRITE0 0x04
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUN_TIME_ERROR 0x20023

static uint32_t semihost(uint32_t op, uintptr_t arg) {
  register uint32_t r0 __asm__("r0") = op;
  register uintptr_t r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void board_puts(const char *s) { semihost(SYS_WRITE0, (uintptr_t)s); }

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
  semihost(SYS_EXIT, status == 0 ? ADP_STOPPED_APPLICATION_EXIT
                                 : ADP_STOPPED_RUN_TIME_ERROR);
  for (;;)
    ;
}

size_t board_stack_high_water(void) {
  const uint32_t *p = __stack_bottom;
  while (p < __stack_top && *p == STACK_PAINT)
    p++;
  return (size_t)((const char *)__stack_top - (const char *)p);
}

/* ---- Reset and faults ---- */

void Reset_Handler(void) {
  for (uint32_t *d = __data_start, *s = __data_load; d < __data_end;)
    *d++ = *s++;
  for (uint32_t *d = __bss_start; d < __bss_end;)
    *d++ = 0;
  /* Paint the free stack below this frame so the high-water mark shows. */
  uint32_t *sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  for (volatile uint32_t *d = __stack_bottom; d < sp - 16;)
    *d++ = STACK_PAINT;
  board_exit(main());
}

/* UDF (what __builtin_trap emits, e.g. in ScopeAlloc's default exhaustion
 * handler) is a UsageFault, escalated to HardFault while UsageFault is off. */
void HardFault_Handler(void) {
  uint32_t cfsr = *(volatile uint32_t *)0xE000ED28;
  board_puts("HardFault");
  if (cfsr & (1u << 16))
    board_puts(": undefined instruction (a trap)");
  board_puts("\n");
  board_exit(1);
}

static void Unexpected_Handler(void) {
  board_puts("unexpected exception\n");
  board_exit(1);
}

typedef void (*vector_t)(void);
__attribute__((used, section(".isr_vector"))) static const vector_t vectors[16] = {
    (vector_t)(uintptr_t)__stack_top, /* initial stack pointer */
    Reset_Handler,
    Unexpected_Handler, /* NMI */
    HardFault_Handler,
    Unexpected_Handler, /* MemManage */
    Unexpected_Handler, /* BusFault */
    Unexpected_Handler, /* UsageFault */
    0, 0, 0, 0,
    Unexpected_Handler, /* SVCall */
    Unexpected_Handler, /* DebugMonitor */
    0,
    Unexpected_Handler, /* PendSV */
    Unexpected_Handler, /* SysTick */
};
