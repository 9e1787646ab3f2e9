// Malformed scope and policy annotations stop the compile with an error that
// names the function, the variable and where the annotation is written.
// RUN: not %clang %clangplugin -O0 -S -emit-llvm %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %clang %clangplugin -O2 -S -emit-llvm %s -o /dev/null 2>&1 | FileCheck %s
// With debug info the error names the variable.
// RUN: not %clang %clangplugin -O0 -g -S -emit-llvm %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAMED
// NAMED: malformed scope annotation "scope:nowhere" on 'a' at

void consume(char *buf, int n);

int unknown(void) {
  __attribute__((annotate("scope:nowhere"))) char a[16];
  consume(a, 16);
  return a[0];
}
// CHECK-DAG: error: scope-alloc: in function 'unknown': malformed scope annotation "scope:nowhere" on '{{.*}}' at {{.*}}malformed-is-error.c:[[#@LINE-4]]: unknown scope 'nowhere'

int badpool(void) {
  __attribute__((annotate("scope:global.npu-sram"))) char b[16];
  consume(b, 16);
  return b[0];
}
// CHECK-DAG: error: scope-alloc: in function 'badpool': malformed scope annotation "scope:global.npu-sram" on '{{.*}}' at {{.*}}malformed-is-error.c:[[#@LINE-4]]: pool name 'npu-sram' in scope 'global.npu-sram' is not a C identifier

int empty(void) {
  __attribute__((annotate("scope:"))) char c[16];
  consume(c, 16);
  return c[0];
}
// CHECK-DAG: error: scope-alloc: in function 'empty': malformed scope annotation "scope:" on '{{.*}}' at {{.*}}malformed-is-error.c:[[#@LINE-4]]: the scope string is empty

int twice(void) {
  __attribute__((annotate("scope:global.workspace"), annotate("scope:local"))) char d[16];
  consume(d, 16);
  return d[0];
}
// CHECK-DAG: error: scope-alloc: in function 'twice': conflicting scopes on '{{.*}}': 'global.workspace' (at {{.*}}malformed-is-error.c:[[#@LINE-4]]) and 'local' (at {{.*}}malformed-is-error.c:[[#@LINE-4]])

int statics(void) {
  __attribute__((annotate("scope:global.workspace"))) static char e[16];
  consume(e, 16);
  return e[0];
}
// CHECK-DAG: error: scope-alloc: annotation "scope:global.workspace" at {{.*}}malformed-is-error.c:[[#@LINE-4]] is on '{{.*}}e', which is not a local (automatic) variable

__attribute__((annotate("scope-alloc-max-stack-alloca=lots"))) int limit(void) { return 0; }
// CHECK-DAG: error: scope-alloc: in function 'limit': annotation "scope-alloc-max-stack-alloca=lots" at {{.*}}malformed-is-error.c:[[#@LINE-1]]: the value must be a byte count, found "lots"

__attribute__((annotate("scope-alloc-dynamic=sometimes"))) int dyn(void) { return 0; }
// CHECK-DAG: error: scope-alloc: in function 'dyn': annotation "scope-alloc-dynamic=sometimes" at {{.*}}malformed-is-error.c:[[#@LINE-1]]: the value must be keep, demote or reject, found "sometimes"

__attribute__((annotate("scope-alloc-max-stack=64"))) int typo(void) { return 0; }
// CHECK-DAG: error: scope-alloc: in function 'typo': annotation "scope-alloc-max-stack=64" at {{.*}}malformed-is-error.c:[[#@LINE-1]]: unknown setting 'scope-alloc-max-stack'

__attribute__((annotate("scope:global.workspace"))) int onfunc(void) { return 0; }
// CHECK-DAG: error: scope-alloc: in function 'onfunc': annotation "scope:global.workspace" at {{.*}}malformed-is-error.c:[[#@LINE-1]] is on function 'onfunc'; scopes apply to local (automatic) variables, not to functions

__attribute__((annotate("scope-alloc-frame-budget=1"), annotate("scope-alloc-frame-budget=2"))) int budget2(void) { return 0; }
// CHECK-DAG: error: scope-alloc: in function 'budget2': annotation "scope-alloc-frame-budget=2" at {{.*}}malformed-is-error.c:[[#@LINE-1]]: conflicts with an earlier "scope-alloc-frame-budget=1" on the same function
