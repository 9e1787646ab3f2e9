/* Helpers shared by the end-to-end programs (C and C++).
 *
 * Every program prints deterministic lines (no addresses, no times) and checks
 * its own invariants with CHECK, which prints the failed condition to stdout
 * and exits with status 1, so compare.sh sees the difference against the
 * reference build. */
#ifndef SCOPEALLOC_E2E_H
#define SCOPEALLOC_E2E_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("CHECK FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);           \
      fflush(stdout);                                                          \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#define E2E_NOINLINE __attribute__((noinline))

/* FNV-1a over bytes. */
static inline uint64_t e2e_hash(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = (const unsigned char *)data;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}
#define E2E_HASH_INIT 0xcbf29ce484222325ULL

static inline uint64_t e2e_mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

/* xorshift64: deterministic pseudo-random numbers. */
static inline uint64_t e2e_rand(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *state = x;
}

/* An address the optimiser cannot reason about, so that alignment checks on
 * locals are really performed at run time rather than folded from the
 * alloca's declared alignment. */
static inline uintptr_t e2e_launder(const void *p) {
  uintptr_t v = (uintptr_t)p;
  __asm__ volatile("" : "+r"(v));
  return v;
}

/* Keeps a buffer in memory and its contents observable. */
static inline void e2e_escape(void *p) { __asm__ volatile("" : : "r"(p) : "memory"); }

#endif
