// A workspace scope written in the source moves even a small local, at -O0
// and at -O2, with every spelling: the scope.h macro, the raw attribute, and
// C++-style [[clang::annotate]]. Other annotations stay untouched.
// RUN: %clang %clangplugin -mllvm -scope-alloc-inline-fast-path=false -I%rtinc -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang %clangplugin -mllvm -scope-alloc-inline-fast-path=false -I%rtinc -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang %clangplugin -mllvm -scope-alloc-inline-fast-path=false -I%rtinc -O2 -g -c %s -o /dev/null -Rpass=scope-alloc 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %clang -I%rtinc -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=NOPLUGIN
#include <scopealloc/scope.h>

void consume(char *buf, int n);

int macro(int k) {
  SCOPEALLOC_WORKSPACE char tile[64];
  for (int i = 0; i < 64; ++i)
    tile[i] = (char)(i * k);
  consume(tile, 64);
  return tile[3];
}

int raw(int k) {
  __attribute__((annotate("scope:global.workspace"))) char tile[48];
  __attribute__((annotate("my-tool:keep"))) int other = k;
  consume(tile, 48);
  return tile[k & 31] + other;
}

int bracket(int k) {
  [[clang::annotate("scope:global.workspace")]] char tile[32];
  consume(tile, 32);
  return tile[k & 31];
}

// CHECK-LABEL: define {{.*}}i32 @macro(
// CHECK: call nonnull align 16 ptr @__scopealloc_alloc(i64 64, i64 16)
// CHECK: call void @__scopealloc_release(
// CHECK-LABEL: define {{.*}}i32 @raw(
// CHECK: call nonnull align 16 ptr @__scopealloc_alloc(i64 48, i64 16)
// The unrelated annotation is still there.
// CHECK: @llvm.var.annotation.p0.p0(ptr {{.*}}, ptr {{.*}}@[[OTHER:.str[.0-9]*]],
// CHECK-LABEL: define {{.*}}i32 @bracket(
// CHECK: call nonnull align 16 ptr @__scopealloc_alloc(i64 32, i64 16)
// O0-NOT: alloca [{{[0-9]+}} x i8]

// REMARK-DAG: workspace-small-local.c:{{[0-9]+}}:{{[0-9]+}}: remark: 'tile' in 'macro' (64 bytes, align 16, scope 'global.workspace') moved to pool 'workspace': scope 'global.workspace' requires pool 'workspace' [rule scope-pool]
// REMARK-DAG: remark: 'tile' in 'raw' (48 bytes, align 16, scope 'global.workspace') moved to pool 'workspace': scope 'global.workspace' requires pool 'workspace'
// REMARK-DAG: remark: 'tile' in 'bracket' (32 bytes, align 16, scope 'global.workspace') moved to pool 'workspace': scope 'global.workspace' requires pool 'workspace'

// NOPLUGIN-NOT: __scopealloc

// the source uses C syntax clang 16 does not accept.
// UNSUPPORTED: llvm-15, llvm-16
