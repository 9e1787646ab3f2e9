// Tail calls: mutual recursion through musttail calls 200000 deep, each
// frame using a 2 KiB buffer (without the tail calls, or if the buffers
// were not released before them, this would need 400 MB), a musttail state
// machine dispatching through function pointers, and ordinary (non-musttail)
// mutual recursion with big buffers that the optimiser may turn into
// sibling calls.
//
// The arena peaks at about 3.5 MiB (the non-musttail ping-pong); frames
// not released before their musttail call would need about 1 GiB.
// COMPARE: max-peak=8388608
//
// RUN: bash %S/Inputs/compare.sh %s %t %clang %scc
#include "Inputs/e2e.h"
#include <string.h>

static uint64_t is_odd(uint64_t n, uint64_t acc);

E2E_NOINLINE static uint64_t is_even(uint64_t n, uint64_t acc) {
  unsigned char buf[2048];
  memset(buf, (int)(n & 0xff), sizeof buf);
  e2e_escape(buf);
  acc = e2e_mix(acc, buf[n % 2048]);
  if (n == 0)
    return acc << 1;
  __attribute__((musttail)) return is_odd(n - 1, acc);
}

E2E_NOINLINE static uint64_t is_odd(uint64_t n, uint64_t acc) {
  char text[3000];
  int len = snprintf(text, sizeof text, "%llu", (unsigned long long)n);
  e2e_escape(text);
  acc = e2e_mix(acc, (uint64_t)text[len - 1]);
  if (n == 0)
    return (acc << 1) | 1;
  __attribute__((musttail)) return is_even(n - 1, acc);
}

/* A state machine: each state has its own large scratch buffer and picks
 * the next state through a table, tail-calling it. */
typedef uint64_t (*state_fn)(uint32_t steps, uint64_t x);
static uint64_t st_a(uint32_t steps, uint64_t x);
static uint64_t st_b(uint32_t steps, uint64_t x);
static uint64_t st_c(uint32_t steps, uint64_t x);
static state_fn const states[3] = {st_a, st_b, st_c};

E2E_NOINLINE static uint64_t st_a(uint32_t steps, uint64_t x) {
  uint32_t tab[1024]; /* 4 KiB */
  for (int i = 0; i < 1024; ++i)
    tab[i] = (uint32_t)(x + (uint64_t)i * 2654435761u);
  e2e_escape(tab);
  x = e2e_mix(x, tab[x % 1024]);
  if (!steps)
    return x;
  __attribute__((musttail)) return states[x % 3](steps - 1, x);
}

E2E_NOINLINE static uint64_t st_b(uint32_t steps, uint64_t x) {
  double v[600];
  for (int i = 0; i < 600; ++i)
    v[i] = (double)((x >> (i % 32)) & 0xffff);
  e2e_escape(v);
  x = e2e_mix(x, (uint64_t)v[x % 600]);
  if (!steps)
    return x;
  __attribute__((musttail)) return states[x % 3](steps - 1, x);
}

E2E_NOINLINE static uint64_t st_c(uint32_t steps, uint64_t x) {
  x = e2e_mix(x, steps); /* no buffer at all */
  if (!steps)
    return x;
  __attribute__((musttail)) return states[x % 3](steps - 1, x);
}

/* Ordinary mutual recursion whose calls are in tail position. */
static int ping(int n, int acc);
E2E_NOINLINE static int pong(int n, int acc) {
  int buf[512];
  for (int i = 0; i < 512; ++i)
    buf[i] = acc + i;
  e2e_escape(buf);
  if (n <= 0)
    return buf[511];
  return ping(n - 1, buf[n % 512] % 100000);
}
E2E_NOINLINE static int ping(int n, int acc) {
  char s[1500];
  memset(s, 'x', sizeof s);
  s[n % 1500] = (char)('a' + n % 26);
  e2e_escape(s);
  if (n <= 0)
    return acc;
  return pong(n - 1, acc * 3 + s[n % 1500]);
}

int main(void) {
  uint64_t e = is_even(200000, 1);
  uint64_t o = is_even(200001, 1);
  printf("is_even(200000)=%d is_even(200001)=%d\n", (int)((e & 1) == 0),
         (int)((o & 1) == 0));
  CHECK((e & 1) == 0 && (o & 1) == 1);
  printf("parity hashes %016llx %016llx\n", (unsigned long long)e,
         (unsigned long long)o);
  printf("state machine: %016llx\n", (unsigned long long)st_a(100000, 7));
  printf("ping-pong: %d\n", ping(2000, 1));
  return 0;
}
