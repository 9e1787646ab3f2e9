// Function annotations become the policy's function attributes: here a
// 256-byte limit moves a 512-byte buffer that the target default (1024)
// would keep; the function without it keeps its buffer.
// RUN: %clang %clangplugin -I%rtinc -O0 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang %clangplugin -I%rtinc -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang %clangplugin -mllvm -scope-alloc-remark-sources -I%rtinc -O2 -g -c %s -o /dev/null -Rpass=scope-alloc 2>&1 | FileCheck %s --check-prefix=REMARK
#include <scopealloc/scope.h>

void consume(char *buf, int n);

#define SMALL_LIMIT 256

SCOPEALLOC_MAX_STACK_ALLOCA(SMALL_LIMIT) int tight(int k) {
  char buf[512];
  consume(buf, 512);
  return buf[k & 511];
}

int roomy(int k) {
  char buf[512];
  consume(buf, 512);
  return buf[k & 511];
}

SCOPEALLOC_FRAME_BUDGET(4096) SCOPEALLOC_DYNAMIC(reject)
SCOPEALLOC_FUNCTION_POOL(dma) int settings(int k) { return k; }

__attribute__((annotate("scope-alloc-max-stack-alloca=0"))) int raw(int k) {
  char buf[8];
  consume(buf, 8);
  return buf[k & 7];
}

// CHECK: define {{.*}}i32 @tight({{.*}} #[[TIGHT:[0-9]+]]
// CHECK: call *__scopealloc_frame_thunk_regs@GOTPCREL(%rip){{.*}}(i64 512, i64
// CHECK-LABEL: define {{.*}}i32 @roomy(
// CHECK: alloca [512 x i8]
// CHECK-NOT: __scopealloc_{{alloc|frame_slow|frame_thunk}}
// CHECK: define {{.*}}i32 @settings({{.*}} #[[SETTINGS:[0-9]+]]
// CHECK-LABEL: define {{.*}}i32 @raw(
// CHECK: {{call .*@__scopealloc_alloc\(|__scopealloc_frame_thunk_regs@GOTPCREL}}
// CHECK-DAG: attributes #[[TIGHT]] = {{{.*}}"scope-alloc-max-stack-alloca"="256"
// CHECK-DAG: attributes #[[SETTINGS]] = {{{.*}}"scope-alloc-dynamic"="reject"{{.*}}"scope-alloc-frame-budget"="4096"{{.*}}"scope-alloc-pool"="dma"

// REMARK: remark: 'buf' in 'tight' (512 bytes, align 16, scope none) moved to pool 'workspace': 512 bytes exceed the limit 256 bytes (function attribute "scope-alloc-max-stack-alloca")
