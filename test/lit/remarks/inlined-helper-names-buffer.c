// A buffer passed to an inlined helper is named after its own variable and
// declaration line, in remarks and in the report: after inlining, the
// helper's parameter (`dst`) is a debug value of the buffer's address, which
// names a pointer to the buffer, not the buffer. With assignment tracking
// (clang's default at -O2) the buffer's variable comes from its dbg_assign;
// without it, from the value records that read through the address.
// RUN: %clang %clangplugin -O2 -g -c %s -o /dev/null -Rpass=scope-alloc \
// RUN:   -mllvm -scope-alloc-report=%t.at.json 2>&1 | FileCheck %s
// RUN: %clang %clangplugin -O2 -g -Xclang -fexperimental-assignment-tracking=disabled \
// RUN:   -c %s -o /dev/null -Rpass=scope-alloc -mllvm -scope-alloc-report=%t.noat.json \
// RUN:   2>&1 | FileCheck %s
// RUN: python3 %S/../report/Inputs/flatten.py %t.at.json | FileCheck %s --check-prefix=REPORT
// RUN: python3 %S/../report/Inputs/flatten.py %t.noat.json | FileCheck %s --check-prefix=REPORT

void consume(const char *p, int n);

static inline void fill(char *dst, int n, char v) {
  for (int i = 0; i < n; ++i)
    dst[i] = (char)(v + i);
}

int render(int v) {
  char image[8192];
  fill(image, sizeof image, (char)v);
  consume(image, sizeof image);
  return image[v & 7];
}

// CHECK-NOT: 'dst'
// CHECK: inlined-helper-names-buffer.c:23:{{[0-9]+}}: remark: 'image' in 'render' (8192 bytes, align 16, scope none) moved to pool 'workspace'
// CHECK-NOT: 'dst'
// REPORT-NOT: alloc dst
// REPORT: alloc image ir={{.*}} at={{.*}}inlined-helper-names-buffer.c:23 {{.*}}size=8192
// REPORT-NOT: alloc dst

// clang 16 has no -fexperimental-assignment-tracking=.
// UNSUPPORTED: llvm-15, llvm-16
