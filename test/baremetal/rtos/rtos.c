/* A minimal preemptive scheduler (Cortex-M4 on QEMU's netduinoplus2) whose
 * three tasks, on their own stacks (PSP), each hold a buffer the compiler
 * demotes while they are switched out: once by a yield (PendSV pended by
 * the task) and once by a preemption (SysTick pends PendSV while the task
 * spins). Task A holds 512 bytes of the default pool, task B 1024 bytes
 * of it and 384 of the named pool `npu`, task C 768 bytes of `npu`; the
 * SysTick handler takes 320 bytes of the default pool on top of whatever
 * task it preempts. Every round a task checks its buffers; the last task
 * to finish prints each task's checksum and how many checks found a buffer
 * changed while the task was switched out.
 *
 *   -DPLAIN            plain clang: every buffer on the stack, no runtime
 *   (none)             ScopeAlloc as docs/bare-metal.md documents it: one
 *                      `workspace` pool and one `npu` pool, nothing else
 *   -DIDENTITY         the runtime told which task runs
 *                      (scopealloc_task_identity), no arena switch
 *   -DTASK_ARENAS      an arena per task (SCOPEALLOC_DEFINE_TASK_ARENA, a
 *                      partition of `npu` for B and C), switched by the
 *                      scheduler (scopealloc_task_switch)
 *   -DSTACK_BYTES=N    each task's stack (default 3072)
 *   -DSTACK_A_BYTES=N  task A's (likewise B, C): the per-task bound's test
 *   -DTASK_A_ARENA_BYTES=N  task A's arena (default 1024)
 *   -DNO_TICK          no SysTick: tasks switch only when they yield (with
 *                      -DIDENTITY task B reports a frame above task A's,
 *                      from its own stack: the deepest chain, every run)
 *   -DSHARED_FRAME     tasks A and B also call round_shared, whose 288-byte
 *                      buffer (default pool) is live across a yield and a
 *                      preemption: a frame two tasks reach, which plan:
 *                      static leaves on their arenas (rtos.sh step 6)
 *
 * Each task has an entry function of its own (task_a_main, ...) and a
 * stack array of its own (stack_a, ...): what a policy's 'tasks' names
 * (test/baremetal/rtos/policy.yaml), and what the stack bound of each task
 * is computed and checked for.
 */
#include <scopealloc/scope.h>
#ifndef PLAIN
#include <scopealloc/scopealloc.h>
#endif

#include "board.h"

#define REG(addr) (*(volatile uint32_t *)(addr))
#define SYST_CSR REG(0xE000E010)
#define SYST_RVR REG(0xE000E014)
#define SYST_CVR REG(0xE000E018)
#define SCB_ICSR REG(0xE000ED04)
#define SCB_SHPR3 REG(0xE000ED20) /* PendSV: bits 23:16, SysTick: 31:24 */
#define PENDSVSET (1u << 28)

#ifndef STACK_BYTES
#define STACK_BYTES 3072
#endif
#define TASKS 3
#define ROUNDS 4
#define PAINT 0xA5A5A5A5u
#ifndef STACK_A_BYTES
#define STACK_A_BYTES STACK_BYTES
#endif
#ifndef STACK_B_BYTES
#define STACK_B_BYTES STACK_BYTES
#endif
#ifndef STACK_C_BYTES
#define STACK_C_BYTES STACK_BYTES
#endif

#if defined(TASK_ARENAS)
SCOPEALLOC_DEFINE_POOL(workspace, 512); /* start-up code's */
SCOPEALLOC_DEFINE_POOL(npu, 2048);
#ifndef TASK_A_ARENA_BYTES
#define TASK_A_ARENA_BYTES 1024
#endif
SCOPEALLOC_DEFINE_TASK_ARENA(task_a, TASK_A_ARENA_BYTES);
SCOPEALLOC_DEFINE_TASK_ARENA(task_b, 1536);
SCOPEALLOC_DEFINE_TASK_ARENA(task_c, 512);
#elif !defined(PLAIN)
SCOPEALLOC_DEFINE_POOL(workspace, 4096);
SCOPEALLOC_DEFINE_POOL(npu, 2048);
#endif

typedef struct tcb {
  uint32_t *sp; /* the saved PSP: first, PendSV_Handler stores it */
  const char *name;
  volatile uint32_t runs; /* times switched in */
  uint32_t checksum, checks, corrupted;
  uint32_t *stack;
  uint32_t stack_bytes;
  volatile int done;
#ifdef TASK_ARENAS
  scopealloc_task *arena;
#endif
} tcb;

uint32_t stack_a[STACK_A_BYTES / 4] __attribute__((aligned(8)));
uint32_t stack_b[STACK_B_BYTES / 4] __attribute__((aligned(8)));
uint32_t stack_c[STACK_C_BYTES / 4] __attribute__((aligned(8)));
static tcb tasks[TASKS];
tcb *volatile current; /* read by PendSV_Handler */
static volatile uint32_t ticks, finished, tick_sum;

/* ---- The scheduler ---- */

/* Round robin over the tasks that have not finished; called by
 * PendSV_Handler with the outgoing task's context saved (its asm names it:
 * 'used' keeps it through a full-LTO link, which would drop it). */
__attribute__((used)) uint32_t *schedule(void) {
  tcb *next = current;
  do
    next =
        next ? (next == &tasks[TASKS - 1] ? &tasks[0] : next + 1) : &tasks[0];
  while (next->done);
#ifdef TASK_ARENAS
  scopealloc_task_switch(next->arena);
#endif
  current = next;
  next->runs++;
  return next->sp;
}

/* Saves r4-r11 of the outgoing task on its stack (none the first time: PSP
 * is 0 while main runs on MSP), switches, restores the incoming task's and
 * returns to it in thread mode on PSP. */
__attribute__((naked)) void PendSV_Handler(void) {
  __asm__ volatile("mrs r0, psp\n"
                   "cbz r0, 1f\n"
                   "stmdb r0!, {r4-r11}\n"
                   "movw r1, #:lower16:current\n"
                   "movt r1, #:upper16:current\n"
                   "ldr r1, [r1]\n"
                   "str r0, [r1]\n"
                   "1:\n"
                   "bl schedule\n"
                   "ldmia r0!, {r4-r11}\n"
                   "msr psp, r0\n"
                   "mvn lr, #2\n" /* EXC_RETURN 0xFFFFFFFD: thread mode, PSP */
                   "bx lr\n");
}

static void yield(void) {
  SCB_ICSR = PENDSVSET;
  __asm__ volatile("dsb\n isb" ::: "memory");
}

/* Spins until the scheduler has switched the task out and back in: a
 * preemption by SysTick, in the middle of this loop. */
static void wait_preempted(tcb *me) {
  uint32_t runs = me->runs;
  while (me->runs == runs)
    ;
}

/* SysTick: a buffer of its own on top of whatever it preempts, then a
 * context switch. */
__attribute__((noinline)) static uint32_t tick_work(uint32_t seed);
void SysTick_Handler(void) {
  tick_sum += tick_work(ticks++);
  SCB_ICSR = PENDSVSET;
}

/* ---- The tasks ---- */

static uint32_t pattern(uint32_t seed, uint32_t i) {
  return seed * 2654435761u + i * 40503u + 1u;
}

__attribute__((noinline)) static void fill(volatile uint32_t *b, uint32_t n,
                                           uint32_t seed) {
  for (uint32_t i = 0; i < n; i++)
    b[i] = pattern(seed, i);
}

/* Adds the buffer to the task's checksum and counts the check as
 * corrupted if any word changed since fill. */
__attribute__((noinline)) static void check(tcb *me, volatile uint32_t *b,
                                            uint32_t n, uint32_t seed) {
  uint32_t changed = 0;
  for (uint32_t i = 0; i < n; i++) {
    me->checksum = me->checksum * 31u + b[i];
    changed += b[i] != pattern(seed, i);
  }
  me->checks++;
  me->corrupted += changed != 0;
}

__attribute__((noinline)) static uint32_t tick_work(uint32_t seed) {
  uint32_t scratch[80]; /* 320 bytes: over the 256-byte limit */
  fill(scratch, 80, seed);
  uint32_t sum = 0;
  for (uint32_t i = 0; i < 80; i++)
    sum += ((volatile uint32_t *)scratch)[i];
  return sum;
}

__attribute__((noinline)) static void round_a(tcb *me, uint32_t seed) {
  uint32_t buf[128]; /* 512 bytes: default pool */
  fill(buf, 128, seed);
  yield();
  wait_preempted(me);
  check(me, buf, 128, seed);
}

__attribute__((noinline)) static void round_b(tcb *me, uint32_t seed) {
  uint32_t big[256];                     /* 1024 bytes: default pool */
  SCOPEALLOC_POOL(npu) uint32_t dma[96]; /* 384 bytes: pool npu */
  fill(big, 256, seed);
  fill(dma, 96, seed + 1);
  yield();
  wait_preempted(me);
  check(me, big, 256, seed);
  check(me, dma, 96, seed + 1);
}

__attribute__((noinline)) static void round_c(tcb *me, uint32_t seed) {
  SCOPEALLOC_POOL(npu) uint32_t dma[192]; /* 768 bytes: pool npu */
  fill(dma, 192, seed);
  yield();
  wait_preempted(me);
  check(me, dma, 192, seed);
}

#ifdef SHARED_FRAME
/* Reached from tasks A and B: one frame address would be two tasks'. */
__attribute__((noinline)) static void round_shared(tcb *me, uint32_t seed) {
  uint32_t shared[72]; /* 288 bytes: default pool */
  fill(shared, 72, seed);
  yield();
  wait_preempted(me);
  check(me, shared, 72, seed);
}
#endif

static size_t stack_high_water(const tcb *t) {
  size_t i = 0;
  while (i < t->stack_bytes / 4 && t->stack[i] == PAINT)
    i++;
  return t->stack_bytes - i * 4;
}

static void finish(void) {
  SYST_CSR = 0; /* no more ticks: the figures below hold still */
  uint32_t corrupted = 0, checks = 0;
  for (int i = 0; i < TASKS; i++) {
    const tcb *t = &tasks[i];
    board_puts("task ");
    board_puts(t->name);
    board_puts(": checksum ");
    board_put_uint(t->checksum);
    board_puts(", corrupted ");
    board_put_uint(t->corrupted);
    board_puts(" of ");
    board_put_uint(t->checks);
    board_puts(", stack high-water ");
    board_put_uint((uint32_t)stack_high_water(t));
    board_puts("\n");
    corrupted += t->corrupted;
    checks += t->checks;
  }
#ifdef TASK_ARENAS
  const scopealloc_pool *pools[] = {&__scopealloc_pool_workspace,
                                    &__scopealloc_pool_npu};
  for (int p = 0; p < 2; p++) {
    scopealloc_stats s;
    for (int i = 0; i < TASKS; i++)
      if (scopealloc_task_stats(tasks[i].arena, pools[p], &s) == 0) {
        board_puts("task ");
        board_puts(tasks[i].name);
        board_puts(" pool ");
        board_puts(s.name);
        board_puts(": peak ");
        board_put_uint((uint32_t)s.peak);
        board_puts(" of ");
        board_put_uint((uint32_t)s.capacity);
        board_puts(", allocs ");
        board_put_uint((uint32_t)s.allocs);
        board_puts("\n");
      }
    if (scopealloc_task_stats(0, pools[p], &s) == 0) {
      board_puts("start-up pool ");
      board_puts(s.name);
      board_puts(": peak ");
      board_put_uint((uint32_t)s.peak);
      board_puts(", allocs ");
      board_put_uint((uint32_t)s.allocs);
      board_puts("\n");
    }
    scopealloc_pool_stats(pools[p], &s);
    board_puts("pool ");
    board_puts(s.name);
    board_puts(": peak ");
    board_put_uint((uint32_t)s.peak);
    board_puts(", allocs ");
    board_put_uint((uint32_t)s.allocs);
    board_puts("\n");
  }
#endif
  board_puts("checks corrupted: ");
  board_put_uint(corrupted);
  board_puts(" of ");
  board_put_uint(checks);
  board_puts("\n");
  board_exit(corrupted ? 2 : 0);
}

/* The body of every task, inlined into each task's entry with its index a
 * constant: each entry calls its own round only. */
static inline __attribute__((always_inline)) void task_run(uint32_t index) {
  tcb *me = &tasks[index];
  for (uint32_t r = 0; r < ROUNDS; r++) {
    uint32_t seed = index * 1000u + r;
    if (index == 0)
      round_a(me, seed);
    else if (index == 1)
      round_b(me, seed);
    else
      round_c(me, seed);
#ifdef SHARED_FRAME
    if (index < 2)
      round_shared(me, seed + 500u);
#endif
  }
  if (++finished == TASKS)
    finish();
  me->done = 1;
  for (;;)
    yield(); /* the others run on; this one is never picked again */
}

/* The tasks' entry points (a policy's 'tasks' names them). */
__attribute__((noinline)) void task_a_main(void) { task_run(0); }
__attribute__((noinline)) void task_b_main(void) { task_run(1); }
__attribute__((noinline)) void task_c_main(void) { task_run(2); }

/* A new task's stack, painted: the exception frame PendSV_Handler returns
 * through (pc = the task's entry, xPSR Thumb) below r4-r11. */
static void task_create(tcb *t, const char *name, uint32_t *stack,
                        uint32_t bytes, void (*entry)(void)) {
  t->name = name;
  t->stack = stack;
  t->stack_bytes = bytes;
  for (uint32_t i = 0; i < bytes / 4; i++)
    stack[i] = PAINT;
  uint32_t *sp = stack + bytes / 4 - 16;
  sp[8] = 0;                                 /* r0 */
  sp[13] = 0;                                /* lr */
  sp[14] = (uint32_t)(uintptr_t)entry & ~1u; /* pc */
  sp[15] = 0x01000000u;                          /* xPSR */
  t->sp = sp;
}

#ifndef PLAIN
static void put_hex(uintptr_t v) {
  static const char hex[] = "0123456789abcdef";
  char buf[11] = "0x";
  for (int i = 0; i < 8; i++)
    buf[2 + i] = hex[(v >> (28 - 4 * i)) & 15];
  buf[10] = 0;
  board_puts(buf);
}

void scopealloc_freestanding_failure(const scopealloc_failure *f) {
  /* The report ends the run: no handler's report in the middle of it. */
  __asm__ volatile("cpsid i" ::: "memory");
  board_puts("scopealloc: pool ");
  board_puts(f->pool ? f->pool : "?");
  board_puts(": ");
  board_puts(f->reason);
  board_puts(" (requested ");
  board_put_uint((uint32_t)f->requested);
  board_puts(", at ");
  put_hex((uintptr_t)f->mark);
  board_puts(", called from ");
  put_hex((uintptr_t)f->caller);
  board_puts(")\n");
  uint32_t corrupted = 0, checks = 0;
  for (int i = 0; i < TASKS; i++) {
    corrupted += tasks[i].corrupted;
    checks += tasks[i].checks;
  }
  board_puts("checks corrupted before the report: ");
  board_put_uint(corrupted);
  board_puts(" of ");
  board_put_uint(checks);
  board_puts("\n");
  /* Reported in thread mode (IPSR 0): the running task's stack now holds
   * the failure path down to this hook and board_put_uint. */
  uint32_t ipsr;
  __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
  for (int i = 0; i < TASKS; i++) {
    board_puts("task ");
    board_puts(tasks[i].name);
    board_puts(!ipsr && current == &tasks[i] ? " (reporting)" : "");
    board_puts(": stack high-water ");
    board_put_uint((uint32_t)stack_high_water(&tasks[i]));
    board_puts("\n");
  }
  board_exit(3);
}
#endif

int main(void) {
  task_create(&tasks[0], "A", stack_a, sizeof stack_a, task_a_main);
  task_create(&tasks[1], "B", stack_b, sizeof stack_b, task_b_main);
  task_create(&tasks[2], "C", stack_c, sizeof stack_c, task_c_main);
#ifdef TASK_ARENAS
  tasks[0].arena = &task_a;
  tasks[1].arena = &task_b;
  tasks[2].arena = &task_c;
  if (scopealloc_task_add_pool(&task_b, &__scopealloc_pool_npu, 512) ||
      scopealloc_task_add_pool(&task_c, &__scopealloc_pool_npu, 1024)) {
    board_puts("scopealloc_task_add_pool failed\n");
    return 1;
  }
#elif defined(IDENTITY)
  scopealloc_task_identity((const void *)&current);
#endif
  SCB_SHPR3 = (0x80u << 24) | (0xFFu << 16); /* PendSV the least urgent */
  __asm__ volatile("msr psp, %0" : : "r"(0));
  SYST_RVR = 20000;
  SYST_CVR = 0;
#ifndef NO_TICK
  SYST_CSR = 7; /* enable, interrupt, processor clock */
#endif
  yield();      /* the first task starts; main never runs again */
  for (;;)
    ;
}
