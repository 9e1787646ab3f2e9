// With -g, remarks point at the variable's declaration; -Rpass and
// -Rpass-missed select the decisions.
// RUN: %clang %clangplugin -O0 -g -c %s -o /dev/null -Rpass=scope-alloc 2>&1 | FileCheck %s
// RUN: %clang %clangplugin -O0 -g -c %s -o /dev/null -Rpass-missed=scope-alloc 2>&1 | count 0

void consume(void *p);

void f(void) {
  char table[4096];
  long counter = 0;
  consume(table);
  consume(&counter);
}

// CHECK: remarks-with-locations.c:9:8: remark: 'table' in 'f' (4096 bytes, align 16, scope none) moved to pool 'workspace': 4096 bytes exceed the limit 1024 bytes [rule over-limit] [-Rpass=scope-alloc]
// CHECK: remarks-with-locations.c:10:8: remark: 'counter' in 'f' (8 bytes, align 8, scope none) stays on the stack
