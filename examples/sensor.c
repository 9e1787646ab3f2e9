/* A sensor pipeline with buffers of graded sizes, to compare policies:
 * scripts/policy-demo.sh compiles it for a hosted CPU, a Cortex-M and an
 * NPU-attached microcontroller and shows what moved under each. */
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static void fill(void *p, size_t n, int seed) {
  memset(p, seed, n);
  __asm__ volatile("" ::"r"(p) : "memory");
}

__attribute__((noinline)) static int pipeline(int n, int seed) {
  short taps[32];         /* 64 B: filter coefficients, read in a hot loop */
  float window[50];       /* 200 B */
  unsigned char frame[600];
  int spectrum[512];      /* 2 KiB */
  unsigned char scratch[n]; /* sized at run time */
  fill(taps, sizeof taps, seed);
  fill(window, sizeof window, seed + 1);
  fill(frame, sizeof frame, seed + 2);
  fill(spectrum, sizeof spectrum, seed + 3);
  fill(scratch, (size_t)n, seed + 4);
  int acc = 0;
  for (int i = 0; i < 32; ++i)
    acc += taps[i] * frame[i] + spectrum[i] + scratch[i % n] + (int)window[i % 50];
  return acc;
}

int main(void) {
  volatile int n = 100; /* keeps scratch[] sized at run time */
  printf("%d\n", pipeline(n, 3));
  return 0;
}
