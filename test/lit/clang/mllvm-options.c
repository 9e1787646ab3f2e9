// -mllvm -scope-alloc-max-stack-alloca parses when the plugin is loaded with
// -fplugin as well as -fpass-plugin (clang 19 rejects it otherwise).
// RUN: %clang %clangplugin -O0 -mllvm -scope-alloc-max-stack-alloca=0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=ZERO
// RUN: %clang %clangplugin -O0 -mllvm -scope-alloc-max-stack-alloca=100000 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=HUGE
// RUN: not %clang -fpass-plugin=%plugin -O0 -mllvm -scope-alloc-max-stack-alloca=0 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFPLUGIN

void consume(void *p);

void f(void) {
  int x = 1;
  char page[65536];
  consume(&x);
  consume(page);
}

// ZERO-NOT: alloca
// ZERO: call {{.*}}@__scopealloc_frame_slow(i64 65540, i64 16)
// HUGE: alloca i32
// HUGE: alloca [65536 x i8]
// HUGE-NOT: __scopealloc_{{alloc|frame_slow}}
// NOFPLUGIN: Unknown command line argument '-scope-alloc-max-stack-alloca=0'
