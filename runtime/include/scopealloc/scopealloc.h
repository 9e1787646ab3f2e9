/* ScopeAlloc runtime, the application API: named pools, the exhaustion
 * handler, statistics and fiber arenas. The compiler ABI it sits on (the
 * pool struct, the __scopealloc_* entry points the pass calls, the memory
 * model) is <scopealloc/abi.h>, included here.
 *
 * Under AddressSanitizer, released memory and alignment padding are
 * poisoned, allocations unpoisoned. Under Valgrind memcheck (runtime built
 * where <valgrind/memcheck.h> exists) every pool is a memcheck mempool: an
 * allocation is undefined memory, a release frees the blocks above the mark,
 * and memory no allocation covers is inaccessible. Under ThreadSanitizer, a
 * named pool (or a shared pool's partition) passing from one thread to the
 * next is a release/acquire pair.
 *
 * Threads and processes: a thread's default pool is unmapped when the thread
 * exits, and what it held in named pools is given back (below); in the
 * child of fork the forking thread keeps its pool and its partitions, new
 * threads get new ones, and named pools and partitions held by threads that
 * did not survive the fork are empty and free again.
 */
#ifndef SCOPEALLOC_SCOPEALLOC_H
#define SCOPEALLOC_SCOPEALLOC_H

#include "abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Named pools, placed by the application ---- */

/* A named pool is a fixed buffer; it never grows. A plain pool is one LIFO
 * arena and serves one thread at a time: while non-empty it belongs to the
 * thread that allocated from it first (`owner`), and another thread's
 * request is reported through the exhaustion handler as
 * SCOPEALLOC_REASON_IN_USE. A mark taken by a thread that does not own the
 * pool is NULL ("all this thread holds"), since the owner may move the top
 * before this thread gets the pool; its release frees what the thread
 * allocated since, or nothing.
 *
 * A shared pool serves many threads at once (a thread pool's workers, OpenMP
 * threads): it is cut into partitions of PARTITION_BYTES (rounded up to a
 * multiple of SCOPEALLOC_POOL_ALIGN; the rest of the pool is not used), and
 * each thread that allocates from it takes a free partition at its first
 * request and keeps it, as its own LIFO arena, until it exits. Size a
 * partition like a thread's stack share of the pool (the most one thread's
 * frames hold at once: scopealloc-bound, or the partition peaks that
 * SCOPEALLOC_STATS=1 prints) and the pool as partitions x the most threads
 * that use it at once. A request that does not fit the thread's partition
 * fails as SCOPEALLOC_REASON_EXHAUSTED naming the partition; a thread that
 * finds every partition taken fails as SCOPEALLOC_REASON_NO_PARTITION.
 *
 * Thread exit (return from the thread function, pthread_exit, cancellation,
 * even inside a frame that holds pool memory) gives back what the thread
 * held: its partitions, and any plain pool it owned, emptied. A pthread key
 * destructor does it; use in a later key destructor is given back in the
 * next destructor round (after the last round, PTHREAD_DESTRUCTOR_ITERATIONS,
 * it is not).
 *
 * Single-threaded (bare-metal) runtimes have no partitions: a shared pool
 * serves its one thread of execution whole, like a plain pool. */

/* A pool over a buffer the application already has (any section, any
 * address but 0: allocations are never NULL), e.g.
 * SCOPEALLOC_DEFINE_POOL_OVER(npu_sram, (char *)0x20000000, 65536).
 * `used`: under LTO the pass references the pool only at the link, after
 * ThinLTO would have internalised a pool nothing referenced yet. */
#define SCOPEALLOC_DEFINE_POOL_OVER(NAME, BUFFER, SIZE)                        \
  SCOPEALLOC_DEFINE_POOL_OVER_(NAME, BUFFER, SIZE, 0, 0)

/* A pool with its own zero-initialised buffer in linker section SECTION. */
#define SCOPEALLOC_DEFINE_POOL_IN_SECTION(NAME, SIZE, SECTION)                 \
  SCOPEALLOC_POOL_BUFFER_(NAME, SIZE, SECTION);                                \
  SCOPEALLOC_DEFINE_POOL_OVER(NAME, scopealloc_buffer_##NAME, (SIZE))

/* A pool with its own buffer in .bss. */
#define SCOPEALLOC_DEFINE_POOL(NAME, SIZE)                                     \
  SCOPEALLOC_DEFINE_POOL_IN_SECTION(NAME, SIZE, ".bss.scopealloc." #NAME)

/* Shared pools: the same, cut into partitions of PARTITION_BYTES, one per
 * thread (see above), e.g. four workers with 16 KiB each:
 *   SCOPEALLOC_DEFINE_POOL_SHARED(halide_sram, 4 * 16384, 16384);
 * A partition larger than the pool fails to compile. */
#define SCOPEALLOC_DEFINE_POOL_SHARED_OVER(NAME, BUFFER, SIZE,                 \
                                           PARTITION_BYTES)                    \
  SCOPEALLOC_STATIC_ASSERT(                                                    \
      (PARTITION_BYTES) > 0 &&                                                 \
          ((PARTITION_BYTES) + SCOPEALLOC_POOL_ALIGN - 1) /                    \
                  SCOPEALLOC_POOL_ALIGN * SCOPEALLOC_POOL_ALIGN <=             \
              (SIZE),                                                          \
      "pool " #NAME ": the partition (rounded up to SCOPEALLOC_POOL_ALIGN) "   \
      "must be larger than 0 and fit the pool");                               \
  SCOPEALLOC_DEFINE_POOL_OVER_(NAME, BUFFER, SIZE, PARTITION_BYTES,            \
                               &__scopealloc_pool_##NAME)

#define SCOPEALLOC_DEFINE_POOL_SHARED_IN_SECTION(NAME, SIZE, PARTITION_BYTES,  \
                                                 SECTION)                      \
  SCOPEALLOC_POOL_BUFFER_(NAME, SIZE, SECTION);                                \
  SCOPEALLOC_DEFINE_POOL_SHARED_OVER(NAME, scopealloc_buffer_##NAME, (SIZE),   \
                                     PARTITION_BYTES)

#define SCOPEALLOC_DEFINE_POOL_SHARED(NAME, SIZE, PARTITION_BYTES)             \
  SCOPEALLOC_DEFINE_POOL_SHARED_IN_SECTION(NAME, SIZE, PARTITION_BYTES,        \
                                           ".bss.scopealloc." #NAME)

/* The macros' common part. A shared pool's `owner` is the pool itself and
 * its partition size sits in the runtime-private `unrounded` (internal.h);
 * the fields the compiler reads are those of any pool. */
#define SCOPEALLOC_POOL_BUFFER_(NAME, SIZE, SECTION)                           \
  __attribute__((aligned(SCOPEALLOC_POOL_ALIGN), section(SECTION))) static    \
      char scopealloc_buffer_##NAME[(SIZE)]
#define SCOPEALLOC_DEFINE_POOL_OVER_(NAME, BUFFER, SIZE, PARTITION, OWNER)     \
  SCOPEALLOC_EXTERN_C scopealloc_pool __scopealloc_pool_##NAME;                \
  __attribute__((used)) scopealloc_pool __scopealloc_pool_##NAME = {          \
      (char *)(BUFFER),          (char *)(BUFFER) + (SIZE),                    \
      (char *)(BUFFER),          (char *)(BUFFER),                             \
      (char *)0,                 (char *)(BUFFER) + (SIZE),                    \
      #NAME,                     (char *)(uintptr_t)(PARTITION),               \
      0,                         0,                                            \
      (OWNER),                   0};                                           \
  SCOPEALLOC_POOLS_NOTE_                                                       \
  __attribute__((used, section("scopealloc_pools"))) static scopealloc_pool    \
      *const scopealloc_pool_entry_##NAME = &__scopealloc_pool_##NAME

/* The shared runtime lists the pools of every loaded object from memory the
 * loader mapped, never from the file (which may have been replaced since):
 * an ELF note (PT_NOTE), one per object (a COMDAT group), holds the bounds of
 * the object's `scopealloc_pools` section relative to the note's descriptor
 * (PC-relative, so no dynamic relocation in a read-only section). Read by
 * runtime/src/loaded_pools.c. */
#if defined(__ELF__) && (!defined(__STDC_HOSTED__) || __STDC_HOSTED__)
#define SCOPEALLOC_POOLS_NOTE_                                                 \
  __asm__(".pushsection .note.scopealloc,\"aG\",%note,"                        \
          "scopealloc_pools_note,comdat\n"                                     \
          ".balign 4\n"                                                        \
          ".long 11, 8, 1\n" /* name size, descriptor size, type */            \
          ".asciz \"ScopeAlloc\"\n"                                            \
          ".balign 4\n"                                                        \
          ".hidden __start_scopealloc_pools\n"                                 \
          ".hidden __stop_scopealloc_pools\n"                                  \
          "0: .long __start_scopealloc_pools - 0b\n"                           \
          ".long __stop_scopealloc_pools - 0b\n"                               \
          ".popsection");
#else
#define SCOPEALLOC_POOLS_NOTE_
#endif

/* Makes `pool` shared, cut into partitions of `partition_bytes` (rounded up
 * to a multiple of SCOPEALLOC_POOL_ALIGN), or plain again with 0. Call it
 * before any thread uses the pool. Returns 0; EINVAL if the partition does
 * not fit the pool; EBUSY if a thread holds the pool, or a thread already
 * used it shared with another partition size. Single-threaded runtimes
 * check the size and keep the pool whole. */
int scopealloc_pool_set_partition(scopealloc_pool *pool,
                                  size_t partition_bytes) SCOPEALLOC_NOTHROW;

/* A shared pool's partition count (0 for a plain pool, and in
 * single-threaded runtimes); *partition_bytes, if not NULL, gets the size of
 * each (0 for a plain pool). */
size_t scopealloc_pool_partitions(const scopealloc_pool *pool,
                                  size_t *partition_bytes) SCOPEALLOC_NOTHROW;

/* ---- Exhaustion ---- */

/* Where in a shared pool a request failed (scopealloc_failure.partition). */
typedef struct scopealloc_partition_failure {
  size_t index; /* the thread's partition; SCOPEALLOC_NO_PARTITION: none */
  size_t bytes; /* size of each partition */
  size_t count; /* how many the pool has */
  long thread;  /* the requesting thread's system id (Linux: its TID, as
                   gdb and top show it) */
} scopealloc_partition_failure;

#define SCOPEALLOC_NO_PARTITION ((size_t)-1)

typedef struct scopealloc_failure {
  const char *pool;   /* "workspace" for the default pool, else the pool name */
  const char *reason; /* "exhausted", "in use by another thread", ... */
  size_t requested;   /* bytes asked for */
  size_t alignment;
  size_t available;   /* bytes left in the pool at the time */
  size_t peak;        /* the pool's peak use so far */
  size_t capacity;    /* the most the pool can ever hold */
  const void *mark;   /* the offending mark for a bad release, else NULL */
  /* Return address into the code that called the runtime (the demoted
   * function, or whoever called the scopealloc_* function that failed);
   * NULL if unknown. Appended last: handlers get the struct by pointer. */
  const void *caller;
  /* A shared pool's failure: the partition, and `available`, `peak` and
   * `capacity` above are the partition's (with no partition: available 0,
   * the largest partition peak, the whole pool). NULL for any other pool.
   * It points to the failing thread's own record, valid until that
   * thread's next failure in a shared pool, so a handler that copies the
   * failure and longjmps may still read it. Appended last, after `caller`;
   * one pointer, so that the failure record, which the exhaustion path
   * keeps on the stack, grows no frame a bare-metal stack bound counts. */
  const scopealloc_partition_failure *partition;
} scopealloc_failure;

/* The `reason` strings (compare with strcmp). */
#define SCOPEALLOC_REASON_EXHAUSTED "exhausted"
#define SCOPEALLOC_REASON_IN_USE "in use by another thread"
#define SCOPEALLOC_REASON_NO_PARTITION "every partition is taken by another thread"
#define SCOPEALLOC_REASON_BAD_RELEASE "release of a mark outside the pool"
#define SCOPEALLOC_REASON_BAD_ALIGNMENT "alignment is not a power of two"
#define SCOPEALLOC_REASON_NO_MEMORY "the system refused to reserve or commit memory"
#define SCOPEALLOC_REASON_ARENA_CURRENT                                        \
  "arena destroyed while a thread has it switched in"
#define SCOPEALLOC_REASON_ARENA_NOT_EMPTY                                      \
  "arena destroyed while it holds allocations"
/* A frame taken while another task's frame is live in the same arena
 * (bare-metal runtimes: scopealloc_task_switch, scopealloc_task_identity). */
#define SCOPEALLOC_REASON_OTHER_TASK                                           \
  "frame taken while another task's frame is live in the arena"
/* scopealloc_task_switch to a task whose shares name more pools than the
 * runtime keeps the start-up context's state of (8). */
#define SCOPEALLOC_REASON_TOO_MANY_TASK_POOLS                                  \
  "more pools with task shares than the runtime keeps (8)"
/* A release to a mark above the pool's top: its frame was released already
 * (LIFO order broken), or it belongs to another fiber or context that
 * shares the arena. Reported by the calls, not by the inline fast path. */
#define SCOPEALLOC_REASON_RELEASE_ABOVE_TOP "release of a mark above the top"
/* scopealloc_arena_destroy, _switch or _stats on an arena already
 * destroyed (or on something that never was an arena). */
#define SCOPEALLOC_REASON_ARENA_DESTROYED "arena used after it was destroyed"

/* Called when a request cannot be served. The default prints the failure to
 * stderr, with the caller's function when the dynamic symbol table names it
 * (exported functions: shared libraries, programs linked with -rdynamic),
 * else its object and the offset to give `addr2line -f -e <object>`, and
 * aborts. A replacement must not return: it may abort, exit or
 * longjmp; if it returns, the runtime aborts, since the generated code has
 * no way to continue without the memory. It must not throw: the runtime's
 * entry points are nounwind, so the compiler emits no unwind path for them
 * and a C++ exception from the handler ends in std::terminate. */
typedef void (*scopealloc_exhaustion_handler)(const scopealloc_failure *failure);

/* Installs `handler` (NULL restores the default); returns the previous one
 * (scopealloc_default_exhaustion_handler when none was installed). */
scopealloc_exhaustion_handler
scopealloc_set_exhaustion_handler(scopealloc_exhaustion_handler handler)
    SCOPEALLOC_NOTHROW SCOPEALLOC_RETURNS_NONNULL;

/* Prints the failure to stderr, with the remedy, and aborts (freestanding
 * builds, which have no stderr: traps). Custom handlers may log and then
 * delegate to it. */
void scopealloc_default_exhaustion_handler(const scopealloc_failure *failure)
    SCOPEALLOC_NOTHROW SCOPEALLOC_NORETURN;

/* Freestanding builds: what a failure reaches when no handler is installed
 * (in the default handler's place). The runtime's definition is weak and
 * traps; a program defines its own to report `failure` (pool, requested,
 * available, peak, capacity) over its UART or semihosting and then reset or
 * halt, with no handler to install before the first allocation. It must not
 * return (the runtime traps if it does). docs/bare-metal.md. */
void scopealloc_freestanding_failure(const scopealloc_failure *failure)
    SCOPEALLOC_NOTHROW;

/* ---- Statistics ---- */

typedef struct scopealloc_stats {
  const char *name;
  size_t current;  /* bytes in use now */
  size_t peak;     /* most bytes in use at once */
  size_t capacity; /* most bytes the pool can hold */
  uint64_t allocs;
  uint64_t failures;
} scopealloc_stats;

/* The calling thread's default pool: the arena it allocates from now (its
 * own, or the fiber arena switched in, below). */
void scopealloc_thread_stats(scopealloc_stats *out) SCOPEALLOC_NOTHROW;
/* The default pool over the whole process: current and allocation counts
 * summed over live and exited threads and over fiber arenas (live and
 * destroyed), peak = the largest peak of any of these arenas, capacity =
 * a thread's. */
void scopealloc_process_stats(scopealloc_stats *out) SCOPEALLOC_NOTHROW;
/* A named pool. For a shared pool: current, allocs and failures summed
 * over its partitions, peak = the largest partition peak (the figure to
 * size a partition by), capacity = the whole pool. */
void scopealloc_pool_stats(const scopealloc_pool *pool,
                           scopealloc_stats *out) SCOPEALLOC_NOTHROW;
/* Partition `index` of a shared pool (its name is the pool's; capacity is
 * the partition size; its counts include every thread that held it).
 * Returns 0, or -1 (and leaves *out alone) if there is no such partition. */
int scopealloc_pool_partition_stats(const scopealloc_pool *pool, size_t index,
                                    scopealloc_stats *out) SCOPEALLOC_NOTHROW;
/* Calls `fn` for every named pool linked into the program; returns the count.
 * Not nothrow: an exception thrown by `fn` passes through. */
int scopealloc_for_each_pool(void (*fn)(const scopealloc_pool *pool, void *ctx),
                             void *ctx);
/* Prints every pool's statistics to stderr. SCOPEALLOC_STATS=1 in the
 * environment does this at exit. */
void scopealloc_print_stats(void) SCOPEALLOC_NOTHROW;

/* Exact allocation counts for the default pool. `current`, `peak`,
 * `capacity` and `failures` are always exact, and so are the counts of
 * named pools. The default pool's `allocs`, by default, counts what went
 * through the runtime: calls (dynamic allocations, sanitizer builds,
 * -scope-alloc-inline-fast-path=false) and the inline fast path's frames
 * that took its slow path (a thread's first frame; for frames compiled with
 * -scope-alloc-fast-path=checked also a new peak, growth), but not the
 * frames bumped inline. With exact counts on, every frame of the
 * default pool goes through the runtime (a call per frame), which counts it,
 * and the peak is the last byte asked for (docs/runtime.md, Statistics).
 * SCOPEALLOC_STATS=1 in the environment turns them on from the start; this
 * turns them on (nonzero) or off from now on, in every thread, and returns
 * the previous setting. */
int scopealloc_set_exact_stats(int exact) SCOPEALLOC_NOTHROW;

/* ---- Tasks of an RTOS (bare-metal runtimes only) ----
 *
 * The bare-metal runtime serves one thread of execution plus the interrupts
 * nested on it. Under an RTOS whose tasks run on stacks of their own (PSP
 * on Cortex-M), a task switched out in the middle of a demoted frame would
 * share the pool with the next task: give each task an arena of its own
 * and switch it in with the task (docs/rtos.md):
 *
 *   SCOPEALLOC_DEFINE_TASK_ARENA(sensor_arena, 2048);   // file scope
 *   scopealloc_task_add_pool(&sensor_arena, &__scopealloc_pool_npu, 512);
 *   ...                                                 // in the switcher:
 *   scopealloc_task_switch(&sensor_arena);              // the task to run
 *
 * The switch saves the outgoing task's state of each pool it has a share of
 * into its record and loads the incoming task's into the pool structs
 * themselves (a few words per pool, with interrupts masked for the copy):
 * the frames' code keeps bumping a pool at a fixed address. Interrupt
 * handlers use the arena of the task they preempt, LIFO as before.
 *
 * Each pool also records which task holds its frames: a frame taken while
 * another task's frame is live in the same arena (a task that has no share
 * of the pool, or a scheduler that does not switch) is reported through
 * the exhaustion path (SCOPEALLOC_REASON_OTHER_TASK: `mark` is the top of
 * the other task's frames, `caller` the code that asked), never served. */

/* A task's share of one pool: the pool's state while the task is switched
 * out. Filled by the macro and scopealloc_task_add_pool; runtime-private. */
typedef struct scopealloc_task_share {
  scopealloc_pool *pool;
  struct scopealloc_task_share *next; /* the pool's other shares */
  char *cur, *limit, *high, *base, *reserve_end;
  const void *owner;
  uint64_t allocs, failures;
} scopealloc_task_share;

/* A task's arenas: share[0] is its default pool (its own buffer), the
 * others partitions of named pools. */
typedef struct scopealloc_task {
  const char *name;
  unsigned shares;   /* in use */
  unsigned capacity; /* entries of `share` */
  scopealloc_task_share *share;
} scopealloc_task;

/* Named-pool partitions a task defined by the macro can take. */
#ifndef SCOPEALLOC_TASK_POOLS
#define SCOPEALLOC_TASK_POOLS 3
#endif

/* The freestanding runtime's default pool, which every task has a share of. */
extern scopealloc_pool __scopealloc_pool_workspace;

/* A task record TASK (a scopealloc_task) whose default-pool arena is a
 * buffer of SIZE bytes of its own in linker section SECTION. */
#define SCOPEALLOC_DEFINE_TASK_ARENA_IN_SECTION(TASK, SIZE, SECTION)           \
  SCOPEALLOC_STATIC_ASSERT((SIZE) > 0, "task arena " #TASK ": size 0");        \
  __attribute__((aligned(SCOPEALLOC_POOL_ALIGN), section(SECTION))) static    \
      char scopealloc_task_buffer_##TASK[(SIZE)];                              \
  static scopealloc_task_share                                                 \
      scopealloc_task_shares_##TASK[1 + SCOPEALLOC_TASK_POOLS] = {             \
          {&__scopealloc_pool_workspace, 0, scopealloc_task_buffer_##TASK,     \
           scopealloc_task_buffer_##TASK + (SIZE),                             \
           scopealloc_task_buffer_##TASK, scopealloc_task_buffer_##TASK,       \
           scopealloc_task_buffer_##TASK + (SIZE), 0, 0, 0}};                  \
  scopealloc_task TASK = {#TASK, 1, 1 + SCOPEALLOC_TASK_POOLS,                 \
                          scopealloc_task_shares_##TASK}

/* The same in .bss. */
#define SCOPEALLOC_DEFINE_TASK_ARENA(TASK, SIZE)                               \
  SCOPEALLOC_DEFINE_TASK_ARENA_IN_SECTION(TASK, SIZE,                          \
                                          ".bss.scopealloc.task." #TASK)

/* Gives `task` a partition of `bytes` (rounded up to SCOPEALLOC_POOL_ALIGN)
 * of the named pool `pool`, cut from the top of the pool's buffer; the
 * start-up code keeps the rest. Call it before the scheduler starts, while
 * the pool is empty. Returns 0; EINVAL for bytes 0, the default pool, a
 * pool the task has a share of already, or a task with no room for one
 * more (SCOPEALLOC_TASK_POOLS); ENOSPC if the pool's free part is smaller;
 * EBUSY if the pool holds frames or a task's share is switched in. */
int scopealloc_task_add_pool(scopealloc_task *task, scopealloc_pool *pool,
                             size_t bytes) SCOPEALLOC_NOTHROW;

/* Makes `to`'s arenas (its default pool and its partitions) the ones its
 * pools serve, and `to` the running task; NULL: the start-up context's
 * (main before the scheduler), which owns the pools' own buffers. Call it
 * where the RTOS switches tasks (a PendSV handler, FreeRTOS's
 * traceTASK_SWITCHED_IN, Zephyr's z_thread_mark_switched_in), with the
 * incoming task. O(shares of the pools it touches), no lock, no
 * allocation; it masks interrupts during the copy (Cortex-M PRIMASK,
 * RISC-V mstatus.MIE, AArch64 DAIF.IF) so that a handler nested on it sees
 * either task's state, never a mix. Returns the task switched out. */
scopealloc_task *scopealloc_task_switch(scopealloc_task *to) SCOPEALLOC_NOTHROW;

/* The task switched in (NULL: the start-up context). */
scopealloc_task *scopealloc_task_current(void) SCOPEALLOC_NOTHROW;

/* For an RTOS that does not switch arenas: `word` is the address of a
 * pointer-sized word that names the running task (FreeRTOS: &pxCurrentTCB,
 * a bare scheduler: its `current`). The runtime reads it instead of the
 * switched-in task to decide whose frames a pool holds, so that a frame
 * taken while another task's is live is reported. NULL: back to the task
 * scopealloc_task_switch switched in. */
void scopealloc_task_identity(const void *word) SCOPEALLOC_NOTHROW;

/* `task`'s share of `pool` (NULL: the default pool): its current use,
 * peak, capacity and counts, wherever it is switched in; task NULL: the
 * start-up context's (the pool's own buffer). Returns 0, or -1 (and leaves
 * *out alone) if the task has no share of the pool (task NULL: no task has
 * a share of it).
 * scopealloc_pool_stats on a pool that tasks have shares of sums current,
 * allocs and failures over the start-up context and every task that ran,
 * with peak = the largest share's peak and capacity = all shares'
 * together. */
int scopealloc_task_stats(const scopealloc_task *task,
                          const scopealloc_pool *pool,
                          scopealloc_stats *out) SCOPEALLOC_NOTHROW;

/* ---- Fibers and coroutines (hosted only) ---- */

/* The default pool is one LIFO arena per thread. Fibers or stackful
 * coroutines (ucontext, boost.context, a scheduler's own stacks) that take
 * turns on one thread would share it, and one fiber's release would free
 * the buffers another still uses. The shared runtime interposes
 * makecontext, getcontext, swapcontext and setcontext and gives each
 * ucontext context an arena of its own ("workspace/ucontext<N>",
 * docs/fibers.md). Elsewhere (the static runtime, other stack switchers)
 * give each fiber an arena of its own and switch the thread to it right
 * before switching to the fiber:
 *
 *   scopealloc_arena *arena = scopealloc_arena_create(0);  // per fiber
 *   ...
 *   scopealloc_arena *prev = scopealloc_arena_switch(arena);
 *   swapcontext(&scheduler, &fiber);     // the fiber runs on its arena
 *   scopealloc_arena_switch(prev);       // back on the scheduler's
 *   ...
 *   scopealloc_arena_destroy(arena);     // once the fiber has finished
 *
 * Switching copies the arena's state into the thread's pool (which the
 * inline fast path reads), so it works with code built either way; it
 * takes the runtime's process-wide lock briefly (not async-signal-safe).
 * An arena is switched in by one thread at a time; a parked one may move to
 * another thread (an M:N scheduler). Statistics travel with the arena:
 * scopealloc_thread_stats reports the one switched in, and failures name
 * it ("workspace/fiber<N>", N counting arenas from 1).
 *
 * A thread that exits with a fiber arena switched in leaves it parked as it
 * is. In the child of fork, the forking thread keeps the arena it has
 * switched in and every parked one; arenas other threads had switched in
 * are parked there, empty (the code that used them is not in the child). */
#if !defined(__STDC_HOSTED__) || __STDC_HOSTED__
typedef struct scopealloc_arena scopealloc_arena;

/* A new arena with its own reservation of `cap` bytes (rounded up to whole
 * pages; 0: a thread's cap, see the default pool above), between guard
 * pages, committed on demand. Returns NULL with errno set if the system
 * refuses the reservation. */
scopealloc_arena *scopealloc_arena_create(size_t cap) SCOPEALLOC_NOTHROW;
/* Makes `to` the calling thread's default pool (NULL: the thread's own
 * arena) and returns the previous one (NULL: the thread's own). Switching
 * to an arena another thread has switched in is reported through the
 * exhaustion handler (SCOPEALLOC_REASON_IN_USE, naming the arena). */
scopealloc_arena *
scopealloc_arena_switch(scopealloc_arena *to) SCOPEALLOC_NOTHROW;
/* The arena the calling thread has switched in (NULL: its own). */
scopealloc_arena *scopealloc_arena_current(void) SCOPEALLOC_NOTHROW;
/* Returns the arena's memory. It must be empty and switched in by no
 * thread: anything else is reported through the exhaustion handler
 * (SCOPEALLOC_REASON_ARENA_NOT_EMPTY, SCOPEALLOC_REASON_ARENA_CURRENT) and
 * the arena is left alone. NULL is ignored. Destroying it again, or
 * switching to it or asking its statistics afterwards, is reported
 * (SCOPEALLOC_REASON_ARENA_DESTROYED): its header is kept until 64 newer
 * arenas were destroyed. */
void scopealloc_arena_destroy(scopealloc_arena *arena) SCOPEALLOC_NOTHROW;
/* The arena's statistics, wherever it is switched in. */
void scopealloc_arena_stats(const scopealloc_arena *arena,
                            scopealloc_stats *out) SCOPEALLOC_NOTHROW;
#endif

#ifdef __cplusplus
}
#endif

#endif /* SCOPEALLOC_SCOPEALLOC_H */
