// -mllvm -scope-alloc-max-stack-alloca parses when the plugin is loaded as
// %clangplugin says: -fpass-plugin= alone on clang 22, with -fplugin= too
// before (mllvm-options-need-fplugin.c); both together work everywhere.
// RUN: %clang %clangplugin -O0 -mllvm -scope-alloc-max-stack-alloca=0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=ZERO
// RUN: %clang %clangplugin -O0 -mllvm -scope-alloc-max-stack-alloca=100000 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=HUGE
// RUN: %clang -fpass-plugin=%plugin -fplugin=%plugin -O0 -mllvm -scope-alloc-max-stack-alloca=0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=ZERO

void consume(void *p);

void f(void) {
  int x = 1;
  char page[65536];
  consume(&x);
  consume(page);
}

// ZERO-NOT: alloca
// ZERO: call *__scopealloc_frame_thunk_regs@GOTPCREL(%rip){{.*}}(i64 65540, i64
// HUGE: alloca i32
// HUGE: alloca [65536 x i8]
// HUGE-NOT: __scopealloc_{{alloc|frame_slow|frame_thunk}}
