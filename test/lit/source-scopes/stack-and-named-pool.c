// `global.stack` keeps a buffer over the limit on the stack with a warning;
// a named pool scope sends a buffer to that pool (the program defines it).
// RUN: %clang %clangplugin -I%rtinc -O0 -S -emit-llvm %s -o - 2>%t.O0.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.O0.err
// RUN: %clang %clangplugin -I%rtinc -O2 -S -emit-llvm %s -o - 2>%t.O2.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.O2.err
#include <scopealloc/scope.h>

void consume(char *buf, int n);

int hot(int k) {
  SCOPEALLOC_STACK char big[8192];
  consume(big, 8192);
  return big[k & 8191];
}

int dma(int k) {
  SCOPEALLOC_POOL(npu_sram) char in[512];
  SCOPEALLOC_SCOPE("local") char also_stack[16];
  consume(in, 512);
  consume(also_stack, 16);
  return in[k & 511] + also_stack[k & 15];
}

// CHECK: @__scopealloc_pool_npu_sram = external global
// CHECK-LABEL: define {{.*}}i32 @hot(
// CHECK: alloca [8192 x i8]
// CHECK-NOT: __scopealloc_alloc
// CHECK-LABEL: define {{.*}}i32 @dma(
// CHECK-DAG: alloca [16 x i8]
// CHECK-DAG: call {{.*}}ptr @__scopealloc_pool_alloc(ptr {{.*}}@__scopealloc_pool_npu_sram, i64 512, i64 16)
// CHECK: call void @__scopealloc_pool_release(ptr {{.*}}@__scopealloc_pool_npu_sram,

// WARN: warning: scope-alloc: {{.*}}in function 'hot': '{{.*}}' (8192 bytes) stays on the stack because of scope 'global.stack', but exceeds the limit 1024 bytes
// WARN-NOT: warning: scope-alloc
