/* The inline fast path on Arm bare metal (test/baremetal/inline-fast-path.sh):
 * a demoted frame whose first call takes the runtime (the pool's bound is
 * NULL until the runtime has served a frame: it records the peak there),
 * then nine calls served inline, with the plain build's results; the pool's
 * statistics show one allocation through the runtime. mark_begin and
 * mark_end bracket one call on the fast path, for QEMU's instruction
 * count. With -DEXHAUST a frame that does not fit on top of a live one
 * goes to the slow path and is reported, as without the fast path. */
#include <scopealloc/scopealloc.h>

#include "board.h"

#ifndef POOL_BYTES
#define POOL_BYTES 2048
#endif
SCOPEALLOC_DEFINE_POOL(workspace, POOL_BYTES);

void fill(unsigned char *b, unsigned n, unsigned seed);
unsigned sum(const unsigned char *b, unsigned n);

/* Decimal without a division (Cortex-M0 has none, and no libgcc here). */
static void put_uint(unsigned v) {
  static const unsigned tens[] = {1000000000u, 100000000u, 10000000u, 1000000u,
                                  100000u,     10000u,     1000u,     100u,
                                  10u,         1u};
  char s[11], *p = s;
  for (unsigned i = 0; i < 10; i++) {
    char d = '0';
    while (v >= tens[i]) {
      v -= tens[i];
      d++;
    }
    if (d != '0' || p != s || i == 9)
      *p++ = d;
  }
  *p = 0;
  board_puts(s);
}

__attribute__((noinline)) unsigned frame(unsigned seed) {
  unsigned char buf[512];
  fill(buf, sizeof buf, seed);
  return sum(buf, sizeof buf);
}

__attribute__((noinline)) unsigned big(unsigned seed) {
  unsigned char buf[1600];
  fill(buf, sizeof buf, seed);
  return sum(buf, sizeof buf);
}

/* A 512-byte frame live under a 1600-byte one: 2112 bytes. */
__attribute__((noinline)) unsigned outer(unsigned seed) {
  unsigned char buf[512];
  fill(buf, sizeof buf, seed);
  return sum(buf, sizeof buf) + big(seed + 1);
}

__attribute__((noinline)) void mark_begin(void) { __asm__ volatile(""); }
__attribute__((noinline)) void mark_end(void) { __asm__ volatile("nop"); }

void scopealloc_freestanding_failure(const scopealloc_failure *f) {
  board_puts("pool ");
  board_puts(f->pool);
  board_puts(" ");
  board_puts(f->reason);
  board_puts(": requested ");
  put_uint((unsigned)f->requested);
  board_puts(", available ");
  put_uint((unsigned)f->available);
  board_puts(", peak ");
  put_uint((unsigned)f->peak);
  board_puts(", capacity ");
  put_uint((unsigned)f->capacity);
  board_puts("\n");
  board_exit(3);
}

int main(void) {
  unsigned r = frame(1);
  mark_begin();
  r += frame(2);
  mark_end();
  for (unsigned i = 3; i <= 10; i++)
    r += frame(i);
  board_puts("checksum ");
  put_uint(r);
  board_puts("\n");
#ifdef EXHAUST
  r = outer(11);
  board_puts("outer returned ");
  put_uint(r);
  board_puts("\n");
#endif
  scopealloc_stats s;
  scopealloc_pool_stats(&__scopealloc_pool_workspace, &s);
  board_puts("pool workspace: current ");
  put_uint((unsigned)s.current);
  board_puts(", peak ");
  put_uint((unsigned)s.peak);
  board_puts(", allocs ");
  put_uint((unsigned)s.allocs);
  board_puts("\n");
  return 0;
}
