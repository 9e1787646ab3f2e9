// -ftrivial-auto-var-init=pattern|zero still initialises demoted buffers:
// clang emits the initialisation right after the alloca, and it stays on
// the demoted memory. The probe's 4 KiB buffer (limit 0: moved to the pool)
// reuses the arena bytes a previous frame filled with 0x5a, yet reads back
// 0xaa (pattern) or 0 (zero) before anything writes it, at -O0 and -O2.
// The build without the flag shows the bytes really were dirty.
// clang 15 takes =zero only with a flag it then removed (16).
// UNSUPPORTED: llvm-15
//
// RUN: %scc -O0 -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t-none
// RUN: %t-none | FileCheck %s --check-prefix=DIRTY
// RUN: %scc -O0 -ftrivial-auto-var-init=pattern -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t-p0
// RUN: %t-p0 | FileCheck %s --check-prefix=PATTERN
// RUN: %scc -O2 -ftrivial-auto-var-init=pattern -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t-p2
// RUN: %t-p2 | FileCheck %s --check-prefix=PATTERN
// RUN: %scc -O2 -ftrivial-auto-var-init=pattern -mllvm -scope-alloc-max-stack-alloca=0 -mllvm -scope-alloc-inline-fast-path=false %s -o %t-pc
// RUN: %t-pc | FileCheck %s --check-prefix=PATTERN
// RUN: %scc -O0 -ftrivial-auto-var-init=zero -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t-z0
// RUN: %t-z0 | FileCheck %s --check-prefix=ZERO
// RUN: %scc -O2 -ftrivial-auto-var-init=zero -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t-z2
// RUN: %t-z2 | FileCheck %s --check-prefix=ZERO
//
// DIRTY: same arena bytes: yes
// DIRTY: 4096 of 4096 bytes 5a
// PATTERN: same arena bytes: yes
// PATTERN: 4096 of 4096 bytes aa
// ZERO: same arena bytes: yes
// ZERO: 4096 of 4096 bytes 00
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uintptr_t dirty_at;

__attribute__((noinline)) static void opaque(void *p) {
  __asm__ volatile("" ::"r"(p) : "memory");
}

__attribute__((noinline)) static void dirty(void) {
  unsigned char buf[4096];
  memset(buf, 0x5a, sizeof buf);
  opaque(buf);
  dirty_at = (uintptr_t)buf;
}

/* Reads its buffer without writing it first. */
__attribute__((noinline)) static void probe(void) {
  unsigned char buf[4096];
  __asm__ volatile("" ::"r"(buf)); /* escapes; writes nothing */
  printf("same arena bytes: %s\n", (uintptr_t)buf == dirty_at ? "yes" : "no");
  unsigned first = buf[0], same = 0;
  for (size_t i = 0; i < sizeof buf; ++i)
    same += *(volatile unsigned char *)&buf[i] == first;
  printf("%u of %zu bytes %02x\n", same, sizeof buf, first);
}

int main(void) {
  dirty();
  probe();
  return 0;
}
