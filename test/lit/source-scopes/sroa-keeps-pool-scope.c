// SROA does not copy !scope to the allocas it splits a buffer into, so a
// buffer whose scope forbids the stack keeps its annotation call as a pin:
// SROA treats the address as escaping and leaves the alloca (and its scope)
// whole, and the whole buffer comes from the pool at -O2.
// RUN: %clang %clangplugin -mllvm -scope-alloc-inline-fast-path=false -I%rtinc -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang %clangplugin -mllvm -scope-alloc-inline-fast-path=false -I%rtinc -O2 -S -emit-llvm %s -o /dev/null -Rpass=scope-alloc 2>&1 | FileCheck %s --check-prefix=REMARK
#include <scopealloc/scope.h>
#include <string.h>

void ext(char *p);

// Passed to an external function and partly used locally.
int escapes(int k) {
  SCOPEALLOC_WORKSPACE char buf[4096];
  buf[0] = (char)k;
  buf[1] = (char)(k + 1);
  ext(buf + 16);
  return buf[0] + buf[1];
}

// Never escapes: without the pin SROA splits it into a [200 x i8] and a
// [700 x i8] alloca, both under the limit, both without a scope, both on
// the stack.
int split(const char *src, char *dst, int k) {
  SCOPEALLOC_POOL(dma) char buf[4096];
  memcpy(buf, src, 200);
  memcpy(buf + 1024, src + 300, 700);
  buf[1000] = (char)k;
  memcpy(dst, buf, 200);
  memcpy(dst + 300, buf + 1024, 700);
  return buf[1000];
}

// The same buffer without a pool scope: SROA may split it, and the pieces
// stay on the stack (that is what `local` asks for anyway).
int split_local(const char *src, char *dst, int k) {
  SCOPEALLOC_LOCAL char buf[4096];
  memcpy(buf, src, 200);
  memcpy(buf + 1024, src + 300, 700);
  buf[1000] = (char)k;
  memcpy(dst, buf, 200);
  memcpy(dst + 300, buf + 1024, 700);
  return buf[1000];
}

// CHECK-LABEL: define {{.*}}i32 @escapes(
// CHECK-NOT: alloca
// CHECK: call nonnull align 16 ptr @__scopealloc_alloc(i64 4096, i64 16)
// CHECK-NOT: alloca
// CHECK: call void @__scopealloc_release(
// CHECK-LABEL: define {{.*}}i32 @split(
// CHECK-NOT: alloca
// CHECK: call {{.*}}ptr @__scopealloc_pool_alloc(ptr {{.*}}@__scopealloc_pool_dma, i64 4096, i64 16)
// CHECK-NOT: alloca
// CHECK: call void @__scopealloc_pool_release(ptr {{.*}}@__scopealloc_pool_dma,
// CHECK-LABEL: define {{.*}}i32 @split_local(
// CHECK-NOT: __scopealloc
// CHECK: alloca [{{[0-9]+}} x i8]
// CHECK-NOT: __scopealloc
// CHECK: ret i32

// REMARK-DAG: remark: '{{.*}}' (4096 bytes, align 16, scope 'global.workspace') moved to pool 'workspace': scope 'global.workspace' requires pool 'workspace'
// REMARK-DAG: remark: '{{.*}}' (4096 bytes, align 16, scope 'global.dma') moved to pool 'dma': scope 'global.dma' requires pool 'dma'
