// libscopealloc_tvm call by call: alignment, size 0, out-of-order frees,
// frees that must not release memory others took after the workspace,
// workspaces taken back by an enclosing frame, and every error (NULL or -1,
// a message on stderr, TVMAPISetLastError when the program has one).
//
// RUN: %clang -O2 -Wall -I%prefix/include %s %tvmlibs -o %t
// RUN: env SCOPEALLOC_RESERVE=1M %t > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
#include <scopealloc/scopealloc.h>
#include <scopealloc/tvm.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed;
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);          \
      failed = 1;                                                              \
    }                                                                          \
  } while (0)

// TVM's runtime would keep this for TVMGetLastError.
static char last_error[512];
static int errors_set;
void TVMAPISetLastError(const char *msg) {
  snprintf(last_error, sizeof last_error, "%s", msg);
  errors_set++;
}

static size_t arena_current(void) {
  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  return s.current;
}

#define ALLOC(n) TVMBackendAllocWorkspace(1, 0, (n), 2, 32)
#define FREE(p) TVMBackendFreeWorkspace(1, 0, (p))

static void alignment_and_size_zero(void) {
  uint64_t sizes[] = {1, 3, 64, 65, 1000, 4096, 12345};
  void *p[7];
  for (int i = 0; i < 7; i++) {
    p[i] = ALLOC(sizes[i]);
    CHECK(p[i] && ((uintptr_t)p[i] & 63) == 0);
    memset(p[i], i, sizes[i]);
  }
  for (int i = 6; i >= 0; i--)
    CHECK(FREE(p[i]) == 0);
  void *z1 = ALLOC(0), *z2 = ALLOC(0);
  CHECK(z1 && z2 && z1 != z2 && ((uintptr_t)z2 & 63) == 0);
  CHECK(FREE(z2) == 0 && FREE(z1) == 0);
  CHECK(arena_current() == 0 && scopealloc_tvm_live_workspaces() == 0);
  printf("alignment and size 0 ok\n");
}

static void out_of_order(void) {
  char *a = ALLOC(1000);
  size_t after_a = arena_current();
  char *b = ALLOC(2000), *c = ALLOC(3000);
  size_t full = arena_current();
  CHECK(FREE(b) == 0); // not the newest: nothing is released yet
  CHECK(arena_current() == full && scopealloc_tvm_live_workspaces() == 2);
  CHECK(FREE(c) == 0); // pops c and the already freed b
  CHECK(arena_current() == after_a);
  CHECK(scopealloc_tvm_live_workspaces() == 1);
  char *d = ALLOC(500); // reuses b's place
  CHECK(d == b);
  CHECK(FREE(a) == 0 && arena_current() > 0);
  CHECK(FREE(d) == 0 && arena_current() == 0);
  printf("out-of-order frees ok\n");
}

// A demoted frame (or any arena user) allocates after a workspace, and the
// workspace is freed while that frame is live: its memory must survive.
static void foreign_memory_above(void) {
  char *a = ALLOC(256);
  void *frame_mark = __scopealloc_mark();
  char *frame = __scopealloc_alloc(4096, 16);
  memset(frame, 0x5a, 4096);
  size_t with_frame = arena_current();
  CHECK(FREE(a) == 0);
  CHECK(arena_current() == with_frame); // the frame is still there
  char *b = ALLOC(128);                 // lands above the frame
  CHECK(b > frame + 4095);
  memset(b, 0, 128);
  CHECK(FREE(b) == 0);
  int intact = 1;
  for (int i = 0; i < 4096; i++)
    intact &= frame[i] == 0x5a;
  CHECK(intact);
  __scopealloc_release(frame_mark); // the frame returns
  CHECK(scopealloc_tvm_live_workspaces() == 0); // a is reclaimed now
  CHECK(arena_current() == 0);
  printf("memory allocated above a freed workspace kept ok\n");
}

// TVM's error path returns -1 without freeing what it took; the enclosing
// frame's release (or an exception, or a longjmp) takes that memory back.
static void taken_back_by_enclosing_frame(void) {
  void *outer = __scopealloc_mark();
  __scopealloc_alloc(64, 8);
  char *leaked = ALLOC(1024);
  CHECK(leaked != NULL);
  __scopealloc_release(outer);
  CHECK(scopealloc_tvm_live_workspaces() == 0);
  char *again = ALLOC(1024);
  CHECK(again != NULL && again <= leaked);
  CHECK(FREE(again) == 0 && arena_current() == 0);
  printf("workspaces taken back by an enclosing release ok\n");
}

static void errors(void) {
  int before = errors_set;
  char local;
  CHECK(FREE(&local) == -1);
  CHECK(FREE(NULL) == -1);
  void *p = ALLOC(100);
  void *q = ALLOC(100);
  CHECK(FREE(p) == 0);
  CHECK(FREE(p) == -1); // freed, still waiting for q
  CHECK(FREE(q) == 0);
  CHECK(FREE(q) == -1); // freed and gone
  CHECK(TVMBackendAllocWorkspace(2 /* kDLCUDA */, 0, 64, 2, 32) == NULL);
  CHECK(TVMBackendFreeWorkspace(2, 0, &local) == -1);
  // SCOPEALLOC_RESERVE=1M: NULL, so the generated code's error path runs.
  CHECK(ALLOC(2u << 20) == NULL);
  CHECK(ALLOC(UINT64_MAX) == NULL);
  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  CHECK(s.failures == 2);
  void *after = ALLOC(512 << 10); // the arena is still usable
  CHECK(after != NULL && FREE(after) == 0);
  CHECK(errors_set - before == 8);
  CHECK(strstr(last_error, "exhausted") != NULL);
  CHECK(arena_current() == 0 && scopealloc_tvm_live_workspaces() == 0);
  printf("errors reported ok\n");
}

int main(void) {
  alignment_and_size_zero();
  out_of_order();
  foreign_memory_above();
  taken_back_by_enclosing_frame();
  errors();
  printf(failed ? "FAILED\n" : "all ok\n");
  return failed;
}

// OUT: alignment and size 0 ok
// OUT-NEXT: out-of-order frees ok
// OUT-NEXT: memory allocated above a freed workspace kept ok
// OUT-NEXT: workspaces taken back by an enclosing release ok
// OUT-NEXT: errors reported ok
// OUT-NEXT: all ok

// ERR: scopealloc-tvm: TVMBackendFreeWorkspace(1, 0, 0x{{[0-9a-f]+}}): not a live workspace of this thread (not from TVMBackendAllocWorkspace in this thread, or already freed)
// ERR-NEXT: scopealloc-tvm: TVMBackendFreeWorkspace(1, 0, {{.*}}): not a live workspace of this thread (not from TVMBackendAllocWorkspace in this thread, or already freed)
// ERR-NEXT: scopealloc-tvm: TVMBackendFreeWorkspace(1, 0, 0x{{[0-9a-f]+}}): not a live workspace of this thread (already freed)
// ERR-NEXT: scopealloc-tvm: TVMBackendFreeWorkspace(1, 0, 0x{{[0-9a-f]+}}): not a live workspace of this thread (not from TVMBackendAllocWorkspace in this thread, or already freed)
// ERR-NEXT: scopealloc-tvm: TVMBackendAllocWorkspace(2, 0, 64, 2, 32): device type 2 is not the CPU (kDLCPU = 1); only CPU workspaces come from the ScopeAlloc arena
// ERR-NEXT: scopealloc-tvm: TVMBackendFreeWorkspace(2, 0, 0x{{[0-9a-f]+}}): device type 2 is not the CPU (kDLCPU = 1)
// ERR-NEXT: scopealloc-tvm: TVMBackendAllocWorkspace(1, 0, 2097152, 2, 32): pool 'workspace' exhausted: {{[0-9]+}} bytes left of 1048576 (SCOPEALLOC_RESERVE sets the size), peak {{[0-9]+}}
// ERR-NEXT: scopealloc-tvm: TVMBackendAllocWorkspace(1, 0, 18446744073709551615, 2, 32): pool 'workspace' exhausted
// ERR-NOT: scopealloc
