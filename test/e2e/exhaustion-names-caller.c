// The exhaustion message names the function whose demoted frame did not fit:
// by name when the program exports it (-rdynamic), else by object and
// offset, with the addr2line command that names it.
// RUN: %scc -O2 -g -rdynamic -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t.dyn
// RUN: env SCOPEALLOC_RESERVE=1M not --crash %t.dyn 2> %t.dyn.err
// RUN: FileCheck %s --check-prefix=DYN < %t.dyn.err
// RUN: %scc -O0 -g -rdynamic -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t.dyn0
// RUN: env SCOPEALLOC_RESERVE=1M not --crash %t.dyn0 2> %t.dyn0.err
// RUN: FileCheck %s --check-prefix=DYN < %t.dyn0.err
// DYN: scopealloc: pool 'workspace' exhausted: requested {{419430[0-9]}} bytes
// DYN-NEXT: scopealloc:   called from build_image+0x{{[0-9a-f]+}} ({{.*}}.dyn{{0?}})
//
// Not exported: the object and offset, and addr2line turns them into the
// function and line.
// RUN: %scc -O2 -g -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t.plain
// RUN: env SCOPEALLOC_RESERVE=1M not --crash %t.plain 2> %t.plain.err
// RUN: FileCheck %s --check-prefix=PLAIN < %t.plain.err
// RUN: sed -n 's/.*`addr2line -f -e \([^ ]*\) \(0x[0-9a-f]*\)`.*/llvm-addr2line -f -e \1 \2/p' %t.plain.err > %t.cmd
// RUN: sh %t.cmd | FileCheck %s --check-prefix=LINE
// PLAIN: scopealloc: pool 'workspace' exhausted: requested 4194304 bytes
// PLAIN-NEXT: scopealloc:   called from {{.*}}.plain+0x{{[0-9a-f]+}} (not an exported function: `addr2line -f -e {{.*}}.plain 0x{{[0-9a-f]+}}` names it)
// LINE: build_image
// LINE-NEXT: exhaustion-names-caller.c:{{[1-9][0-9]*}}
#include <stdio.h>

__attribute__((noinline)) static void consume(char *p) {
  __asm__ volatile("" ::"r"(p) : "memory");
}

// 4 MiB, demoted at limit 0: more than the 1 MiB reservation.
__attribute__((noinline)) int build_image(int seed) {
  char image[4 << 20];
  consume(image);
  image[seed] = (char)seed;
  consume(image);
  return image[seed];
}

int main(int argc, char **argv) {
  (void)argv;
  printf("%d\n", build_image(argc));
  return 0;
}
