// -fstack-protector-strong still guards demoted buffers: overflows of 8, 64
// and 4096 bytes past a 256-byte buffer moved to the workspace pool (limit
// 0), written by a callee whose own demoted buffer lies just above it, end
// in glibc's "*** stack smashing detected ***" and SIGABRT when the frame is
// released, as on the machine stack; so does an 8-byte overflow of one
// buffer into the next one of the same frame, and of a demoted VLA (checked
// at the function's exit, or in a loop at the stackrestore that frees it).
// Without overflow the program runs clean. Without the canaries every
// overflow went unnoticed.
//
// RUN: %scc -O2 -fstack-protector-strong -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t
// RUN: %t none 0 | FileCheck %s --check-prefix=CLEAN
// RUN: env LIBC_FATAL_STDERR_=1 not --crash %t callee 8 2>&1 | FileCheck %s
// RUN: env LIBC_FATAL_STDERR_=1 not --crash %t callee 64 2>&1 | FileCheck %s
// RUN: env LIBC_FATAL_STDERR_=1 not --crash %t callee 4096 2>&1 | FileCheck %s
// RUN: env LIBC_FATAL_STDERR_=1 not --crash %t neighbour 8 2>&1 | FileCheck %s
// RUN: env LIBC_FATAL_STDERR_=1 not --crash %t vla 8 2>&1 | FileCheck %s
// RUN: env LIBC_FATAL_STDERR_=1 not --crash %t vla-loop 8 2>&1 | FileCheck %s --check-prefixes=CHECK,LOOP
// The same at -O0, and with runtime calls instead of the inline fast path.
// RUN: %scc -O0 -fstack-protector-strong -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t0
// RUN: %t0 none 0 | FileCheck %s --check-prefix=CLEAN
// RUN: env LIBC_FATAL_STDERR_=1 not --crash %t0 callee 64 2>&1 | FileCheck %s
// RUN: env LIBC_FATAL_STDERR_=1 not --crash %t0 neighbour 8 2>&1 | FileCheck %s
// RUN: env LIBC_FATAL_STDERR_=1 not --crash %t0 vla-loop 8 2>&1 | FileCheck %s --check-prefixes=CHECK,LOOP
// RUN: %scc -O2 -fstack-protector-strong -mllvm -scope-alloc-max-stack-alloca=0 -mllvm -scope-alloc-inline-fast-path=false %s -o %tc
// RUN: %tc none 0 | FileCheck %s --check-prefix=CLEAN
// RUN: env LIBC_FATAL_STDERR_=1 not --crash %tc callee 4096 2>&1 | FileCheck %s
//
// CLEAN: returned, callee buffer intact, neighbour intact, vla 0, loop 0
// LOOP: round 0
// LOOP-NOT: round 1
// CHECK-NOT: returned
// CHECK: *** stack smashing detected ***
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static void opaque(void *p) {
  __asm__ volatile("" ::"r"(p) : "memory");
}

/* Writes n bytes at dst through a call the optimiser cannot see into. */
__attribute__((noinline)) static void fill(char *dst, size_t n) {
  void *(*volatile set)(void *, int, size_t) = memset;
  set(dst, 'A', n);
}

/* The callee's demoted buffer lies above its caller's frame: the overflow
 * runs through the caller's canary into it. */
__attribute__((noinline)) static int callee(char *outer, size_t n) {
  char mine[1024];
  memset(mine, 'm', sizeof mine);
  opaque(mine);
  fill(outer, n);
  opaque(mine);
  for (size_t i = 0; i < sizeof mine; ++i)
    if (mine[i] != 'm')
      return 1;
  return 0;
}

__attribute__((noinline)) static int victim(size_t overflow) {
  char buf[256];
  opaque(buf);
  return callee(buf, sizeof buf + overflow);
}

/* Two buffers of one frame: the first overflows into the second. */
__attribute__((noinline)) static int neighbours(size_t overflow) {
  char first[256], second[256];
  memset(second, 's', sizeof second);
  opaque(second);
  fill(first, sizeof first + overflow);
  opaque(second);
  for (size_t i = 0; i < sizeof second; ++i)
    if (second[i] != 's')
      return 1;
  return 0;
}

/* VLA sizes the optimiser cannot fold into constant-size buffers. */
static volatile size_t vla_size = 256;

/* A VLA, overflowed by its last writer. */
__attribute__((noinline)) static int vla(size_t n, size_t overflow) {
  char v[n];
  fill(v, n + overflow);
  opaque(v);
  return v[0] != 'A';
}

/* A VLA per round: the overflow of round 0 is caught when that round's
 * VLA is freed, before round 1 starts. */
__attribute__((noinline)) static int vla_loop(size_t n, size_t overflow) {
  int bad = 0;
  for (int round = 0; round < 3; ++round) {
    char v[n + (size_t)round];
    if (overflow)
      fprintf(stderr, "round %d\n", round);
    fill(v, n + (size_t)round + (round == 0 ? overflow : 0));
    opaque(v);
    bad |= v[0] != 'A';
  }
  return bad;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  size_t n = strtoul(argv[2], 0, 0);
  int callee_hit = victim(strcmp(argv[1], "callee") == 0 ? n : 0);
  int neighbour_hit = neighbours(strcmp(argv[1], "neighbour") == 0 ? n : 0);
  int vla_bad = vla(vla_size, strcmp(argv[1], "vla") == 0 ? n : 0);
  int loop_bad =
      vla_loop(vla_size, strcmp(argv[1], "vla-loop") == 0 ? n : 0);
  printf("returned, callee buffer %s, neighbour %s, vla %d, loop %d\n",
         callee_hit ? "overwritten" : "intact",
         neighbour_hit ? "overwritten" : "intact", vla_bad, loop_bad);
  return 0;
}
