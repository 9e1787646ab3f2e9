// Two ucontext fibers on one thread, every buffer demoted (limit 0): each
// holds a buffer across swapcontext and checks it after the other fiber has
// released frames of its own and the scheduler has used its arena. With an
// arena per fiber (scopealloc_arena_switch) both survive, and the arenas the
// program switched to are the ones used (the shared runtime's interposition
// of swapcontext keeps them). Without the calls (the `shared` run) the
// shared runtime still gives each context an arena; the static runtime,
// which interposes nothing, shares the thread's arena, and the first
// fiber's release frees the second's frames.
// RUN: %scc -O0 -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t.O0
// RUN: %t.O0 | FileCheck %s
// RUN: %scc -O2 -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t.O2
// RUN: %t.O2 | FileCheck %s
// RUN: %scc -O2 -mllvm -scope-alloc-max-stack-alloca=0 -mllvm -scope-alloc-inline-fast-path=false %s -o %t.calls
// RUN: %t.calls | FileCheck %s
// RUN: %t.O2 shared 2>&1 | FileCheck %s --check-prefix=INTERPOSED
// RUN: env SCOPEALLOC_RUNTIME=static %scc -O2 -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t.static
// RUN: %t.static | FileCheck %s
// RUN: %t.static shared > %t.shared.out 2> %t.shared.err || true
// RUN: cat %t.shared.out %t.shared.err | FileCheck %s --check-prefix=SHARED
// CHECK: fiber 0: held buffer intact
// CHECK-NEXT: fiber 1: held buffer intact
// Each arena held its fiber's two buffers at once (12 KiB, more at -O0
// where every local is demoted), and both are empty again.
// CHECK-NEXT: fiber 0: arena workspace/fiber1 peak {{1[2-9][0-9][0-9][0-9]}} allocs {{[0-9]+}} current 0
// CHECK-NEXT: fiber 1: arena workspace/fiber2 peak {{1[2-9][0-9][0-9][0-9]}} allocs {{[0-9]+}} current 0
// CHECK-NEXT: scheduler: peak {{1[6-9][0-9][0-9][0-9]}}
// CHECK-NEXT: done
// INTERPOSED-NOT: scopealloc:
// INTERPOSED: fiber 0: held buffer intact
// INTERPOSED-NEXT: fiber 1: held buffer intact
// INTERPOSED-NOT: CORRUPTED
// SHARED: {{CORRUPTED|release of a mark above the top}}
#include <scopealloc/scopealloc.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

static ucontext_t scheduler, fiber_ctx[2];
static char fiber_stack[2][256 * 1024];
static scopealloc_arena *arena[2];
static int use_arenas = 1;
static int finished[2];

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
  swapcontext(&fiber_ctx[id], &scheduler);
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

static void fiber_main(int id) {
  char held[4096];
  memset(held, 'A' + id, sizeof held);
  consume(held);
  inner(id);
  yield(id);
  printf("fiber %d: held buffer %s\n", id,
         holds(held, sizeof held, (char)('A' + id)) ? "intact" : "CORRUPTED");
  finished[id] = 1;
}

// The scheduler's own demoted work between two fiber turns.
__attribute__((noinline)) static void scribble(void) {
  char junk[16384];
  memset(junk, 0x5a, sizeof junk);
  consume(junk);
}

static void resume(int id) {
  scopealloc_arena *prev = 0;
  if (use_arenas)
    prev = scopealloc_arena_switch(arena[id]);
  swapcontext(&scheduler, &fiber_ctx[id]);
  if (use_arenas)
    scopealloc_arena_switch(prev);
  scribble();
}

int main(int argc, char **argv) {
  use_arenas = !(argc > 1 && strcmp(argv[1], "shared") == 0);
  for (int id = 0; id < 2; id++) {
    getcontext(&fiber_ctx[id]);
    fiber_ctx[id].uc_stack.ss_sp = fiber_stack[id];
    fiber_ctx[id].uc_stack.ss_size = sizeof fiber_stack[id];
    fiber_ctx[id].uc_link = &scheduler;
    makecontext(&fiber_ctx[id], (void (*)(void))fiber_main, 1, id);
    if (use_arenas && !(arena[id] = scopealloc_arena_create(1 << 20)))
      return 1;
  }
  // Turns: 0 and 1 open both frames; 0 then 1 release their inner frames;
  // 0 finishes (releasing everything) before 1 checks its held buffer.
  for (int round = 0; round < 3; round++)
    for (int id = 0; id < 2; id++)
      if (!finished[id])
        resume(id);
  if (!use_arenas)
    return 0;
  for (int id = 0; id < 2; id++) {
    scopealloc_stats s;
    scopealloc_arena_stats(arena[id], &s);
    printf("fiber %d: arena %s peak %zu allocs %llu current %zu\n", id, s.name,
           s.peak, (unsigned long long)s.allocs, s.current);
    scopealloc_arena_destroy(arena[id]);
  }
  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  printf("scheduler: peak %zu\n", s.peak); // its own arena, not a fiber's
  printf("done\n");
  return 0;
}
