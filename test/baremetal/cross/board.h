/* What the cross-link test program needs without a libc: output and exit
 * through semihosting (Arm BKPT/HLT, RISC-V EBREAK; QEMU:
 * -semihosting-config enable=on), one startup-<arch>.c per architecture. */
#ifndef CROSS_BOARD_H
#define CROSS_BOARD_H

#include <stdint.h>

void board_puts(const char *s);
/* Ends the program: status 0 is success (QEMU exits 0), anything else
 * failure (QEMU exits 1). */
__attribute__((noreturn)) void board_exit(int status);

#endif
