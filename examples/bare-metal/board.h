/* The little a bare-metal program needs without a libc: output and exit
 * through Arm semihosting (QEMU: -semihosting-config enable=on), and the
 * stack's high-water mark (startup.c paints the stack before main). */
#ifndef BARE_METAL_BOARD_H
#define BARE_METAL_BOARD_H

#include <stddef.h>
#include <stdint.h>

void board_puts(const char *s);
void board_put_uint(uint32_t v);
/* Ends the program: status 0 is success (QEMU exits 0), anything else
 * failure (QEMU exits 1). */
__attribute__((noreturn)) void board_exit(int status);
/* Bytes of stack used so far, deepest point included. */
size_t board_stack_high_water(void);

#endif
