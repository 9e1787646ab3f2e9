/* Interrupts that nest on the pool of what they interrupt (Cortex-M4 on
 * QEMU's netduinoplus2). main holds MAIN_BYTES of the workspace pool while
 * SysTick fires; SysTick_Handler takes TICK_BYTES of it and pends PendSV,
 * whose handler takes PEND_BYTES. With PendSV at SysTick's priority
 * (-DSAME_PRIORITY) PendSV waits until SysTick returns; otherwise it is the
 * more urgent one and preempts SysTick_Handler there and then.
 *
 *   -DPOOL_BYTES=N   the workspace pool's size (default 200) */
#include <scopealloc/scope.h>
#include <scopealloc/scopealloc.h>

#include "board.h"

#ifndef POOL_BYTES
#define POOL_BYTES 200
#endif
#define MAIN_BYTES 200
#define TICK_BYTES 160
#define PEND_BYTES 120

SCOPEALLOC_DEFINE_POOL(workspace, POOL_BYTES);

#define REG(addr) (*(volatile uint32_t *)(addr))
#define SYST_CSR REG(0xE000E010)
#define SYST_RVR REG(0xE000E014)
#define SYST_CVR REG(0xE000E018)
#define SCB_ICSR REG(0xE000ED04)
#define SCB_SHPR3 REG(0xE000ED20) /* PendSV: bits 23:16, SysTick: 31:24 */

static volatile uint32_t tick_sum, pend_sum, ticks;

/* Fills and sums a buffer, so that none of the three can be kept in
 * registers or folded away. */
__attribute__((noinline)) static uint32_t churn(volatile uint8_t *b,
                                                uint32_t n, uint32_t seed) {
  uint32_t sum = 0;
  for (uint32_t i = 0; i < n; i++)
    b[i] = (uint8_t)(seed + i * 7u);
  for (uint32_t i = 0; i < n; i++)
    sum += b[i];
  return sum;
}

void PendSV_Handler(void) {
  SCOPEALLOC_WORKSPACE volatile uint8_t pend[PEND_BYTES];
  pend_sum = churn(pend, PEND_BYTES, 3);
}

void SysTick_Handler(void) {
  SCOPEALLOC_WORKSPACE volatile uint8_t tick[TICK_BYTES];
  SYST_CSR = 0; /* once */
  SCB_ICSR = 1u << 28; /* PENDSVSET */
  tick_sum = churn(tick, TICK_BYTES, 2);
  ticks++;
}

/* Exhaustion on bare metal: say so over semihosting and stop. */
static void report(const scopealloc_failure *f) {
  board_puts("pool ");
  board_puts(f->pool ? f->pool : "?");
  board_puts(" exhausted: requested ");
  board_put_uint((uint32_t)f->requested);
  board_puts(" bytes, available ");
  board_put_uint((uint32_t)f->available);
  board_puts(", peak ");
  board_put_uint((uint32_t)f->peak);
  board_puts("\n");
  board_exit(1);
}

int main(void) {
  scopealloc_set_exhaustion_handler(report);
#ifdef SAME_PRIORITY
  SCB_SHPR3 = (0x80u << 24) | (0x80u << 16);
#else
  SCB_SHPR3 = (0x80u << 24) | (0x40u << 16); /* PendSV more urgent */
#endif
  SCOPEALLOC_WORKSPACE volatile uint8_t frame[MAIN_BYTES];
  uint32_t before = churn(frame, MAIN_BYTES, 1);
  SYST_RVR = 10000;
  SYST_CVR = 0;
  SYST_CSR = 7; /* enable, interrupt, processor clock */
  while (!ticks || !pend_sum)
    ;
  uint32_t after = 0;
  for (uint32_t i = 0; i < MAIN_BYTES; i++)
    after += frame[i];
  scopealloc_stats s;
  scopealloc_pool_stats(&__scopealloc_pool_workspace, &s);
  board_puts("sums ");
  board_put_uint(before == after);
  board_puts(" ");
  board_put_uint(tick_sum);
  board_puts(" ");
  board_put_uint(pend_sum);
  board_puts("\npool workspace peak ");
  board_put_uint((uint32_t)s.peak);
  board_puts(" of ");
  board_put_uint(POOL_BYTES);
  board_puts("\n");
  return before == after ? 0 : 1;
}
