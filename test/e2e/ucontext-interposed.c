// Unmodified ucontext programs with the shared runtime: every context made
// with makecontext runs on an arena of its own, without a call to
// scopealloc_arena_switch (the runtime interposes makecontext, getcontext,
// swapcontext and setcontext). Two fibers interleave holding demoted
// buffers (limit 0) and return through uc_link; a third is entered with
// setcontext and returns to a getcontext'd point; a fourth is made on the
// main thread and run by another one (code that holds a demoted frame
// keeps its thread's pool address, like any thread-local's, so a context
// moves between threads only while it holds no demoted frame).
// RUN: %scc -O0 -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t.O0 -pthread
// RUN: %t.O0 2>&1 | FileCheck %s
// RUN: %scc -O2 -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t.O2 -pthread
// RUN: %t.O2 2>&1 | FileCheck %s
// RUN: %scc -O2 -mllvm -scope-alloc-max-stack-alloca=0 -mllvm -scope-alloc-inline-fast-path=false %s -o %t.calls -pthread
// RUN: %t.calls 2>&1 | FileCheck %s
// CHECK-NOT: CORRUPTED
// CHECK-NOT: scopealloc:
// CHECK: fiber 0: held buffer intact on workspace/ucontext{{[0-9]+}} peak {{1[2-9][0-9][0-9][0-9]}}
// CHECK-NEXT: fiber 1: held buffer intact on workspace/ucontext{{[0-9]+}} peak {{1[2-9][0-9][0-9][0-9]}}
// CHECK-NEXT: fibers 0 and 1: different arenas
// CHECK-NEXT: setcontext fiber: buffer intact on workspace/ucontext{{[0-9]+}}
// CHECK-NEXT: back from setcontext fiber on workspace
// CHECK-NEXT: migrated fiber: held buffer intact, one arena
// CHECK-NEXT: main: held buffer intact on workspace
// The fibers' arenas are gone (their contexts finished): what is left in
// use is main's frames.
// CHECK-NEXT: process: current {{[1-9][0-9]+}}, all of it main's
// CHECK-NEXT: done
//
// The static runtime interposes nothing (documented): the same program
// shares the thread's arena between fibers, and the second fiber's release
// of a frame the first one's release has freed is reported (with calls; the
// inline fast path's release is a store).
// RUN: env SCOPEALLOC_RUNTIME=static %scc -O2 -mllvm -scope-alloc-max-stack-alloca=0 -mllvm -scope-alloc-inline-fast-path=false %s -o %t.static -pthread
// RUN: not --crash %t.static 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: scopealloc: pool 'workspace': release of a mark above the top (mark 0x{{[0-9a-f]+}}; {{[0-9]+}} bytes in use, capacity {{[0-9]+}})
// STATIC: the frame was released already, or it belongs to another fiber or ucontext that shares this arena
#include <pthread.h>
#include <scopealloc/scopealloc.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

static ucontext_t sched, fiber_ctx[3], back, third;
static char fiber_stack[4][256 * 1024];
static int finished[3];

__attribute__((noinline)) static void consume(char *p) {
  __asm__ volatile("" ::"r"(p) : "memory");
}

__attribute__((noinline)) static int holds(const char *p, int n, char c) {
  for (int i = 0; i < n; i++)
    if (p[i] != c)
      return 0;
  return 1;
}

__attribute__((noinline)) static void yield(int id) {
  swapcontext(&fiber_ctx[id], &sched);
}

static void arena_name(char *out) {
  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  strcpy(out, s.name);
}

// A frame opened and released while the outer buffer is held.
__attribute__((noinline)) static void inner(int id) {
  char tmp[8192];
  memset(tmp, 'a' + id, sizeof tmp);
  consume(tmp);
  yield(id);
  if (!holds(tmp, sizeof tmp, (char)('a' + id)))
    printf("fiber %d: inner buffer CORRUPTED\n", id);
}

static char names[3][64];

static void fiber_main(int id) {
  char held[4096];
  memset(held, 'A' + id, sizeof held);
  consume(held);
  inner(id);
  yield(id);
  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  strcpy(names[id], s.name);
  printf("fiber %d: held buffer %s on %s peak %zu\n", id,
         holds(held, sizeof held, (char)('A' + id)) ? "intact" : "CORRUPTED",
         s.name, s.peak);
  finished[id] = 1;
} // returns to uc_link (sched) on its own arena's behalf

// The scheduler's own demoted work between two fiber turns.
__attribute__((noinline)) static void scribble(void) {
  char junk[16384];
  memset(junk, 0x5a, sizeof junk);
  consume(junk);
}

static void resume(int id) {
  swapcontext(&sched, &fiber_ctx[id]);
  scribble();
}

static void make(ucontext_t *ctx, char *stack, ucontext_t *link,
                 void (*fn)(void), int id) {
  getcontext(ctx);
  ctx->uc_stack.ss_sp = stack;
  ctx->uc_stack.ss_size = sizeof fiber_stack[0];
  ctx->uc_link = link;
  makecontext(ctx, fn, 1, id);
}

static void third_main(int unused) {
  (void)unused;
  char buf[6000];
  memset(buf, 'S', sizeof buf);
  consume(buf);
  char name[64];
  arena_name(name);
  printf("setcontext fiber: buffer %s on %s\n",
         holds(buf, sizeof buf, 'S') ? "intact" : "CORRUPTED", name);
} // returns to uc_link (back)

static void *other_thread(void *arg) {
  (void)arg;
  char mine[3000]; // this thread's own arena under the fiber's
  memset(mine, 'T', sizeof mine);
  consume(mine);
  while (!finished[2])
    resume(2);
  if (!holds(mine, sizeof mine, 'T'))
    printf("other thread: buffer CORRUPTED\n");
  return 0;
}

__attribute__((noinline)) static void migrating(int id) {
  char held[5000];
  memset(held, 'M', sizeof held);
  consume(held);
  char before[64], after[64];
  arena_name(before);
  yield(id);
  scribble();
  yield(id);
  arena_name(after);
  printf("migrated fiber: held buffer %s, %s\n",
         holds(held, sizeof held, 'M') ? "intact" : "CORRUPTED",
         strcmp(before, after) == 0 && strcmp(before, "workspace") != 0
             ? "one arena"
             : "arena CHANGED");
  finished[id] = 1;
}

int main(void) {
  char held[2048];
  memset(held, 'm', sizeof held);
  consume(held);

  for (int id = 0; id < 2; id++)
    make(&fiber_ctx[id], fiber_stack[id], &sched, (void (*)(void))fiber_main,
         id);
  // Turns: 0 and 1 open both frames; 0 then 1 release their inner frames;
  // 0 finishes (releasing everything) before 1 checks its held buffer.
  for (int round = 0; round < 3; round++)
    for (int id = 0; id < 2; id++)
      if (!finished[id])
        resume(id);
  printf("fibers 0 and 1: %s arenas\n",
         strcmp(names[0], names[1]) != 0 ? "different" : "the SAME");

  // setcontext into a made context; it returns to a getcontext'd point.
  static volatile int entered;
  make(&third, fiber_stack[2], &back, (void (*)(void))third_main, 0);
  getcontext(&back);
  if (!entered) {
    entered = 1;
    setcontext(&third);
  }
  char name[64];
  arena_name(name);
  printf("back from setcontext fiber on %s\n", name);

  // Made here, run by another thread.
  make(&fiber_ctx[2], fiber_stack[3], &sched, (void (*)(void))migrating, 2);
  pthread_t t;
  pthread_create(&t, 0, other_thread, 0);
  pthread_join(t, 0);
  if (!finished[2])
    printf("migrated fiber: not finished\n");

  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  printf("main: held buffer %s on %s\n",
         holds(held, sizeof held, 'm') ? "intact" : "CORRUPTED", s.name);
  scopealloc_stats all;
  scopealloc_process_stats(&all);
  printf("process: current %zu, %s\n", all.current,
         all.current == s.current ? "all of it main's" : "NOT main's alone");
  printf("done\n");
  return 0;
}
