// Every remark names the function its buffer is declared in and places it
// at the declaration, with or without -g (issue 36 item 6): an inlined
// buffer names the function it was inlined from and each call it was
// inlined through, so the copies of one helper are told apart, and keeps
// its variable's name without the inliner's ".i" suffixes. The column is
// the declaration's: the variable's name where the declare record has it
// (-O0; LLVM 15 and 16 keep it at -O2 too), else the declaration statement
// (its lifetime start), as the docs quote them (docs/reports.md).
// RUN: %clang %clangplugin -O2 -g -c %s -o /dev/null -Rpass=scope-alloc 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=O2,O2G --implicit-check-not=remark:
// RUN: %clang %clangplugin -O2 -fno-discard-value-names -c %s -o /dev/null \
// RUN:   -Rpass=scope-alloc 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=O2,NAMES --implicit-check-not=remark:
// RUN: %clang %clangplugin -O0 -g -c %s -o /dev/null -Rpass=scope-alloc 2>&1 \
// RUN:   | FileCheck %s --check-prefix=O0

void consume(const char *p, int n);

static int checksum(const char *text, int n) {
  char copy[4096];
  for (int i = 0; i < n; ++i)
    copy[i] = text[i];
  consume(copy, n);
  return copy[n & 7];
}

static int twice(const char *a) {
  char head[2048];
  consume(head, 1);
  return checksum(a, 3) + head[2];
}

int main(int argc, char **argv) {
  int x = checksum(argv[0], argc);
  int y = checksum(argv[1], argc + 1);
  return x + y + twice(argv[2]);
}

// O2G-DAG:   place-buffers.c:20:{{[38]}}: remark: 'copy' in 'checksum' inlined into 'twice' at line 30, into 'main' at line 36 (4096 bytes, align 16, scope none) moved to pool 'workspace'
// O2G-DAG:   place-buffers.c:28:{{[38]}}: remark: 'head' in 'twice' inlined into 'main' at line 36 (2048 bytes,
// O2G-DAG:   place-buffers.c:20:{{[38]}}: remark: 'copy' in 'checksum' inlined into 'main' at line 35 (4096 bytes,
// O2G-DAG:   place-buffers.c:20:{{[38]}}: remark: 'copy' in 'checksum' inlined into 'main' at line 34 (4096 bytes,
// NAMES-DAG: place-buffers.c:20:3: remark: '%copy' in 'checksum' inlined into 'twice' at line 30, into 'main' at line 36 (4096 bytes, align 16, scope none) moved to pool 'workspace'
// NAMES-DAG: place-buffers.c:28:3: remark: '%head' in 'twice' inlined into 'main' at line 36 (2048 bytes,
// NAMES-DAG: place-buffers.c:20:3: remark: '%copy' in 'checksum' inlined into 'main' at line 35 (4096 bytes,
// NAMES-DAG: place-buffers.c:20:3: remark: '%copy' in 'checksum' inlined into 'main' at line 34 (4096 bytes,
// O2-NOT: .i'

// O0: place-buffers.c:33:14: remark: 'argc' in 'main' (4 bytes,
// O0: place-buffers.c:34:7: remark: 'x' in 'main' (4 bytes,
// O0: place-buffers.c:19:33: remark: 'text' in 'checksum' (8 bytes,
// O0: place-buffers.c:20:8: remark: 'copy' in 'checksum' (4096 bytes, align 16, scope none) moved to pool 'workspace'
// O0: place-buffers.c:28:8: remark: 'head' in 'twice' (2048 bytes, align 16, scope none) moved to pool 'workspace'
