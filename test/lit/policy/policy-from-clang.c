// A policy file and a target tag reach the pass from clang with -mllvm (the
// wrappers take them the same way, e.g. through SCOPEALLOC_FLAGS); a bad
// file stops the compilation with the file, line and key.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'version: 1\npools: [sram]\ntargets:\n  mcu:\n    max-stack-alloca: 16\n    pool: sram\n' > %t/good.yaml
// RUN: printf 'version: 1\ntargets:\n  mcu:\n    max-stack-aloca: 16\n' > %t/bad.yaml
// RUN: %clang %clangplugin -O0 -S -emit-llvm %s -o - -mllvm -scope-alloc-policy=%t/good.yaml -mllvm -scope-alloc-target=mcu | FileCheck %s
// RUN: not %clang %clangplugin -O0 -c %s -o %t/x.o -mllvm -scope-alloc-policy=%t/bad.yaml 2>&1 | FileCheck %s --check-prefix=BAD
// CHECK: call nonnull align 16 ptr @__scopealloc_pool_alloc(ptr @__scopealloc_pool_sram, i64 32, i64 16)
// BAD: error: scope-alloc: bad policy file:
// BAD-NEXT: {{.*}}bad.yaml:4:5: unknown key 'max-stack-aloca' in target 'mcu'

void consume(int *p);

void f(void) {
  int v[8];
  consume(v);
}
