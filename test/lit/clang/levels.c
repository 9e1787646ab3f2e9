// Through clang, the pass runs late at every level: -O0 (optnone functions
// included) and -O2 both move the 8 KiB buffer; at -O2 the small array is
// promoted to registers by SROA first, so the pass never sees it.
// RUN: %clang %clangplugin -mllvm -scope-alloc-inline-fast-path=false -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=O0
// RUN: %clang %clangplugin -mllvm -scope-alloc-inline-fast-path=false -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=O2
// RUN: %clang %clangplugin -mllvm -scope-alloc-inline-fast-path=false -O2 -g -c %s -o /dev/null -Rpass=scope-alloc 2>&1 | FileCheck %s --check-prefix=O2-REMARKS
// RUN: %clang -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=NOPLUGIN

void consume(char *buf, int n);

int work(int seed) {
  char big[8192];
  int small[4] = {seed, seed + 1, seed + 2, seed + 3};
  for (int i = 0; i < 8192; ++i)
    big[i] = (char)(i * seed);
  consume(big, 8192);
  return small[0] + small[1] * small[2] - small[3];
}

// O0: define {{.*}}i32 @work(i32 {{.*}}) #[[ATTR:[0-9]+]]
// O0: alloca [4 x i32]
// O0: call nonnull align 16 ptr @__scopealloc_alloc(i64 8192, i64 16)
// O0: call void @__scopealloc_release(
// O0: attributes #[[ATTR]] = {{{.*}}optnone

// O2-LABEL: define {{.*}}i32 @work(
// O2-NOT: alloca
// O2: call nonnull align 16 ptr @__scopealloc_alloc(i64 8192, i64 16)
// O2: call void @__scopealloc_release(

// O2-REMARKS: levels.c:{{[0-9]+}}:{{[0-9]+}}: remark: 'big' in 'work' (8192 bytes, align 16, scope none) moved to pool 'workspace'
// O2-REMARKS-NOT: small

// NOPLUGIN-NOT: __scopealloc
