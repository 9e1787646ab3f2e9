/* Start-up for the layout tests (test/baremetal/bound-layouts.sh) on QEMU's
 * netduinoplus2 (Cortex-M4): copy .data, zero .bss, enable the FPU when the
 * code may use it, paint the stack, run main, report the stack's high-water
 * mark over semihosting. The vector table's section, symbol and handler
 * names are the program's to choose, as vendors' start-up files do:
 *
 *   -DVECTOR_SECTION=".vectors"  its input section (default .isr_vector)
 *   -DVECTOR_SYMBOL=vector_table its symbol (default __isr_vector)
 *   -DRESET=reset_handler -DHARD_FAULT=... -DPENDSV=... -DSYSTICK=...
 *
 * A handler the program does not define is a zero word (weak reference). */
#include <stdint.h>

#ifndef VECTOR_SECTION
#define VECTOR_SECTION ".isr_vector"
#endif
#ifndef VECTOR_SYMBOL
#define VECTOR_SYMBOL __isr_vector
#endif
#ifndef RESET
#define RESET Reset_Handler
#endif
#ifndef HARD_FAULT
#define HARD_FAULT HardFault_Handler
#endif
#ifndef PENDSV
#define PENDSV PendSV_Handler
#endif
#ifndef SYSTICK
#define SYSTICK SysTick_Handler
#endif

#define STACK_PAINT 0xa5a5a5a5u

extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_bottom[], __stack_top[];

int main(void);
void HARD_FAULT(void) __attribute__((weak));
void PENDSV(void) __attribute__((weak));
void SYSTICK(void) __attribute__((weak));

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

__attribute__((noreturn)) void board_exit(int status) {
  semihost(0x18 /* SYS_EXIT */, status == 0 ? 0x20026 : 0x20023);
  for (;;)
    ;
}

/* Bytes of stack used so far: the painted words below the deepest one
 * written are still paint. */
uint32_t board_stack_high_water(void) {
  const uint32_t *p = __stack_bottom;
  while (p < __stack_top && *p == STACK_PAINT)
    p++;
  return (uint32_t)((const char *)__stack_top - (const char *)p);
}

void RESET(void) {
  for (uint32_t *d = __data_start, *s = __data_load; d < __data_end;)
    *d++ = *s++;
  for (uint32_t *d = __bss_start; d < __bss_end;)
    *d++ = 0;
#ifdef __ARM_FP
  /* CPACR: full access to CP10 and CP11, the FPU. */
  *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  uint32_t *sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  for (volatile uint32_t *d = __stack_bottom; d < sp - 16;)
    *d++ = STACK_PAINT;
  int status = main();
  board_puts("stack high-water ");
  board_put_uint(board_stack_high_water());
  board_puts("\n");
  board_exit(status);
}

typedef void (*vector_t)(void);
__attribute__((used, section(VECTOR_SECTION))) const vector_t VECTOR_SYMBOL[16] = {
    (vector_t)(uintptr_t)__stack_top, /* initial stack pointer */
    RESET,
    0, /* NMI */
    HARD_FAULT,
    0, 0, 0, 0, 0, 0, 0,
    0, /* SVCall */
    0, 0,
    PENDSV,
    SYSTICK,
};
