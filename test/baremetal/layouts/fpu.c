/* Item 1 of issue 46: exceptions taken with floating-point state active.
 * main, SysTick_Handler and PendSV_Handler each use the FPU; SysTick
 * pends PendSV, more urgent, which preempts it there and then. Built
 * -mfloat-abi=hard, each exception stacks 104 bytes (r0-r3, r12, lr, pc,
 * xPSR, s0-s15, FPSCR and a reserved word), not 32. */
#include "layout.h"

volatile float fsink = 1.0f;
static volatile uint32_t ticks, pends;

void PendSV_Handler(void) {
  fsink = fsink * 1.5f;
  pends++;
}

void SysTick_Handler(void) {
  float y = fsink * 2.0f; /* FP state active in the handler */
  SYST_CSR = 0;
  SCB_ICSR = 1u << 28; /* PENDSVSET: PendSV preempts here */
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  fsink = y + 1.0f;
  ticks++;
}

int main(void) {
  SCB_SHPR3 = (0x80u << 24) | (0x40u << 16); /* PendSV more urgent */
  fsink = fsink + 0.5f;                      /* FP state active in main */
  start_systick();
  while (!pends)
    ;
  return fsink > 0.0f ? 0 : 1;
}
