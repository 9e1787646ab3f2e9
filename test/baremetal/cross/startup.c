/* Reset code and semihosting for each architecture of the cross-link test,
 * without a libc: set the stack, copy .data, zero .bss, run main, exit
 * through semihosting. Memory map: link.ld and the test's memory.ld. */
#include "board.h"

#include <stddef.h>

extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_top[];

int main(void);

#define SYS_WRITE0 0x04
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUN_TIME_ERROR 0x20023

static uintptr_t semihost(uintptr_t op, uintptr_t arg) {
#if defined(__aarch64__)
  register uintptr_t r0 __asm__("x0") = op;
  register uintptr_t r1 __asm__("x1") = arg;
  __asm__ volatile("hlt #0xf000" : "+r"(r0) : "r"(r1) : "memory");
#elif defined(__arm__)
  register uintptr_t r0 __asm__("r0") = op;
  register uintptr_t r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
#elif defined(__riscv)
  /* The semihosting sequence: uncompressed, in one page (aligned). */
  register uintptr_t r0 __asm__("a0") = op;
  register uintptr_t r1 __asm__("a1") = arg;
  __asm__ volatile(".option push\n .option norvc\n .balign 16\n"
                   "slli zero, zero, 0x1f\n ebreak\n srai zero, zero, 7\n"
                   ".option pop"
                   : "+r"(r0) : "r"(r1) : "memory");
#else
#error "no semihosting for this architecture"
#endif
  return r0;
}

void board_puts(const char *s) { semihost(SYS_WRITE0, (uintptr_t)s); }

void board_exit(int status) {
  uintptr_t reason =
      status == 0 ? ADP_STOPPED_APPLICATION_EXIT : ADP_STOPPED_RUN_TIME_ERROR;
#if defined(__aarch64__)
  /* AArch64 takes a parameter block: reason, exit code. */
  uintptr_t block[2] = {reason, (uintptr_t)status};
  semihost(SYS_EXIT, (uintptr_t)block);
#else
  semihost(SYS_EXIT, reason);
#endif
  for (;;)
    ;
}

/* Called by the reset code with a stack. */
__attribute__((noreturn, used)) void c_start(void) {
  for (uint32_t *d = __data_start, *s = __data_load; d < __data_end;)
    *d++ = *s++;
  for (uint32_t *d = __bss_start; d < __bss_end;)
    *d++ = 0;
  board_exit(main());
}

#if defined(__arm__)
/* M-profile: the core loads SP and the reset vector from the table at VTOR
 * (link.ld puts .vectors first in ROM). A hard-float build enables the FPU
 * (CPACR: CP10, CP11) before any code may use it. */
__attribute__((noreturn)) void _start(void) {
#if defined(__ARM_FP)
  *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
  __asm__ volatile("dsb\n isb");
#endif
  c_start();
}

static void fault(void) {
  board_puts("fault\n");
  board_exit(2);
}

typedef void (*vector_t)(void);
__attribute__((used, section(".vectors"))) static const vector_t vectors[16] = {
    (vector_t)(uintptr_t)__stack_top, _start, fault, fault, fault, fault, fault,
};
#elif defined(__aarch64__)
/* EL1 (QEMU virt): FP/SIMD on (CPACR_EL1.FPEN), the stack, then C. */
__attribute__((naked, section(".text.boot"))) void _start(void) {
  __asm__ volatile("mov x0, #(3 << 20)\n msr cpacr_el1, x0\n isb\n"
                   "adrp x0, __stack_top\n add x0, x0, :lo12:__stack_top\n"
                   "mov sp, x0\n b c_start");
}
#elif defined(__riscv)
__attribute__((naked, section(".text.boot"))) void _start(void) {
  __asm__ volatile(".option push\n .option norelax\n"
                   "la sp, __stack_top\n"
                   ".option pop\n j c_start");
}
#endif
