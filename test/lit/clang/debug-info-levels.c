// A demoted array stays visible to a debugger at -O0 and at -O2, where
// clang describes it with assignment-tracking records (dbg_assign) that name
// the stack slot: they become one dbg_declare of the frame slot + offset.
// RUN: %clang %clangplugin -mllvm -scope-alloc-inline-fast-path=false -O0 -g -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang %clangplugin -mllvm -scope-alloc-inline-fast-path=false -O2 -g -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,O2

int printf(const char *, ...);

int f(int k) {
  int table[2000];
  for (int i = 0; i < 2000; ++i)
    table[i] = i * k;
  printf("%d\n", table[1999]);
  return table[5];
}

// CHECK-LABEL: define {{.*}}i32 @f(
// CHECK: [[SLOT:%.*]] = alloca ptr, align 8
// CHECK-DAG: #dbg_declare(ptr [[SLOT]], ![[TABLE:[0-9]+]], !DIExpression(DW_OP_deref),
// CHECK-DAG: [[FRAME:%.*]] = call nonnull align 16 ptr @__scopealloc_alloc(i64 8000, i64 16)
// CHECK-DAG: store ptr [[FRAME]], ptr [[SLOT]]
// O2-NOT: #dbg_assign({{.*}}![[TABLE]],
// CHECK: ![[TABLE]] = !DILocalVariable(name: "table"

// clang 16 at -O2 -g emits debug intrinsics, the checks are of debug records.
// UNSUPPORTED: llvm-15, llvm-16
