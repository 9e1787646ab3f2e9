/* What the layout tests' programs share: the board's output (startup.c),
 * the SysTick and SCB registers, and a workspace pool that the image
 * defines, so that the link runs the bound check. */
#ifndef LAYOUT_H
#define LAYOUT_H

#include <scopealloc/scope.h>
#include <scopealloc/scopealloc.h>
#include <stdint.h>

void board_puts(const char *s);
void board_put_uint(uint32_t v);

#define REG(addr) (*(volatile uint32_t *)(addr))
#define SYST_CSR REG(0xE000E010)
#define SYST_RVR REG(0xE000E014)
#define SYST_CVR REG(0xE000E018)
#define SCB_ICSR REG(0xE000ED04)
#define SCB_SHPR3 REG(0xE000ED20) /* PendSV: bits 23:16, SysTick: 31:24 */

/* Starts SysTick, which fires once (its handler stops it). */
static inline void start_systick(void) {
  SYST_RVR = 10000;
  SYST_CVR = 0;
  SYST_CSR = 7; /* enable, interrupt, processor clock */
}

#ifndef POOL_BYTES
#define POOL_BYTES 64
#endif
SCOPEALLOC_DEFINE_POOL(workspace, POOL_BYTES);

#endif
