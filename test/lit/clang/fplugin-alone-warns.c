// -fplugin=ScopeAlloc.so alone loads the library but never runs its passes:
// the compile warns once, naming the missing -fpass-plugin=. Both flags (or
// -fpass-plugin= alone, or both in a response file) give no warning.
// RUN: %clang -fplugin=%plugin -O2 -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -fno-integrated-cc1 -fplugin=%plugin -O2 -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -Xclang -load -Xclang %plugin -O2 -c %s -o %t.o 2>&1 | FileCheck %s
// RUN: %clang %clangplugin -O2 -c %s -o %t.o 2>&1 | count 0
// RUN: %clang -fno-integrated-cc1 %clangplugin -O2 -c %s -o %t.o 2>&1 | count 0
// RUN: %clang -fpass-plugin=%plugin -O2 -c %s -o %t.o 2>&1 | count 0
// RUN: echo '%clangplugin' > %t.rsp
// RUN: %clang @%t.rsp -O2 -c %s -o %t.o 2>&1 | count 0
// opt loads pass plugins only: nothing to say.
// RUN: %opt %loadplugin -passes=scope-alloc /dev/null -disable-output 2>&1 | count 0

// CHECK: warning: scope-alloc: ScopeAlloc is loaded as a clang plugin (-fplugin=) but not as a pass plugin, so its passes do not run; add -fpass-plugin=<path to ScopeAlloc.so>
// CHECK-NOT: warning

void consume(void *p);

void f(void) {
  char page[4096];
  consume(page);
}
