/* Start-up for the TVM harness on QEMU's netduinoplus2 (STM32F405,
 * Cortex-M4F): examples/bare-metal/startup.c's reset (copy .data, zero
 * .bss, paint the stack), semihosting output and fault reports, plus the
 * FPU switched on before main: TVM's kernels are built -mfloat-abi=hard.
 * Memory map: micro.ld. */
#include <stddef.h>
#include <stdint.h>

extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_bottom[], __stack_top[];

int main(void);

static uint32_t semihost(uint32_t op, uintptr_t arg) {
  register uint32_t r0 __asm__("r0") = op;
  register uintptr_t r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void board_puts(const char *s) { semihost(0x04 /* SYS_WRITE0 */, (uintptr_t)s); }

__attribute__((noreturn)) void board_exit(int status) {
  semihost(0x18 /* SYS_EXIT */, status == 0 ? 0x20026 : 0x20023);
  for (;;)
    ;
}

void Reset_Handler(void) {
  /* CPACR: full access to CP10 and CP11 (the FPU). */
  *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  for (uint32_t *d = __data_start, *s = __data_load; d < __data_end;)
    *d++ = *s++;
  for (uint32_t *d = __bss_start; d < __bss_end;)
    *d++ = 0;
  uint32_t *sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  for (volatile uint32_t *d = __stack_bottom; d < sp - 16;)
    *d++ = 0xa5a5a5a5u;
  board_exit(main());
}

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
    (vector_t)(uintptr_t)__stack_top, Reset_Handler,
    Unexpected_Handler, HardFault_Handler, Unexpected_Handler, Unexpected_Handler,
    Unexpected_Handler, 0, 0, 0, 0, Unexpected_Handler, Unexpected_Handler, 0,
    Unexpected_Handler, Unexpected_Handler,
};
