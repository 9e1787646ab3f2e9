/* The guard region's fault handler (hosted Linux).
 *
 * Frames of at most SCOPEALLOC_GUARDED_FRAME_MAX bytes bumped by the
 * compiler's guarded fast path are not compared with anything: before the
 * frame moves `cur`, it stores a marker byte just above itself, and that
 * store faults when the frame would end in uncommitted reservation or past
 * the arena. A SIGSEGV handler, installed with the first arena, then
 *  - commits more of the reservation when the byte lies in [limit,
 *    reserve_end) of the faulting thread's arena, and returns: the store
 *    runs again (the way the kernel grows a stack);
 *  - reports the arena's exhaustion when it lies in the guard above the
 *    arena (pool, the frame's size, the peak, the function, the remedy),
 *    as a checked frame's slow path does;
 *  - otherwise passes the signal on to the handler that was installed
 *    before it (or to the default action), so the program's own handler,
 *    a sanitizer's, or a core dump sees every other fault as before.
 * The handler runs on an alternate stack (SA_ONSTACK): the thread's own if
 * it has one, else one the runtime gives a thread with an arena once
 * guarded frames are known to be in use, which goes back with the arena
 * into thread_arena.c's cache when the thread exits, so that the next
 * thread needs no mmap for it. Known to be in use: a marker store has
 * faulted in this process (sa_guard_seen). Until then no thread gets one
 * (code built with checked frames, the default, never faults, and its
 * threads make no sigaltstack call): the handler runs on the thread's own
 * stack then, as the kernel's growth of the main stack does, for the
 * threads that had their arenas before the first fault (the handler gives
 * them none); every thread that makes or takes an arena after it gets one
 * with the arena. Under Valgrind every thread with an arena gets one at
 * once, as before: Valgrind does not grow the main stack any more once the
 * handler has run on it (a guarded recursion on the main thread then dies
 * of SIGSEGV). */
#define _GNU_SOURCE 1
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#if defined(SCOPEALLOC_HAVE_VALGRIND) && SCOPEALLOC_HAVE_VALGRIND
#include <valgrind/valgrind.h>
#define SA_ON_VALGRIND() RUNNING_ON_VALGRIND
#else
#define SA_ON_VALGRIND() 0
#endif

/* The marker may be the byte just above the largest frame: a guard of at
 * least this size catches every guarded frame that overruns. */
#define SA_ALTSTACK_SIZE ((size_t)64 << 10)

static const sa_guard_ops *sa_ops;
static struct sigaction sa_previous;
static int sa_installed; /* 1 once the handler is in place */
static int sa_guard_seen; /* 1 once a marker store has faulted */
static pthread_mutex_t sa_install_lock = PTHREAD_MUTEX_INITIALIZER;

/* This thread's alternate stack, when the runtime gave it one. */
static __thread char *sa_altstack;

/* The faulting instruction: what the report names as the caller (it
 * subtracts one from a return address, so pass one past). */
static const void *sa_fault_pc(const void *context) {
  const ucontext_t *uc = (const ucontext_t *)context;
#if defined(__x86_64__)
  return (const char *)uc->uc_mcontext.gregs[REG_RIP] + 1;
#elif defined(__i386__)
  return (const char *)uc->uc_mcontext.gregs[REG_EIP] + 1;
#elif defined(__aarch64__)
  return (const char *)uc->uc_mcontext.pc + 1;
#elif defined(__riscv)
  return (const char *)uc->uc_mcontext.__gregs[REG_PC] + 1;
#else
  (void)uc;
  return NULL;
#endif
}

/* Whether the faulting instruction is a guarded frame's marker store (a
 * byte store of SCOPEALLOC_GUARD_MARKER): only those are the runtime's to
 * serve. Any other access to the arena's uncommitted part or its guard is
 * the program's overrun, and faults as it did before. */
static int sa_is_marker_store(const void *context) {
  const ucontext_t *uc = (const ucontext_t *)context;
#if defined(__x86_64__)
  /* movb $imm8, m8: [REX] C6 /0 ModRM [SIB] [disp8|disp32] imm8 */
  const unsigned char *op = (const unsigned char *)uc->uc_mcontext.gregs[REG_RIP];
  if ((*op & 0xf0) == 0x40)
    op++;
  if (op[0] != 0xc6 || (op[1] & 0x38) != 0)
    return 0;
  unsigned mod = op[1] >> 6, rm = op[1] & 7;
  const unsigned char *next = op + 2;
  if (mod == 3)
    return 0;
  unsigned base = rm;
  if (rm == 4)
    base = *next++ & 7; /* SIB */
  if (mod == 1)
    next += 1;
  else if (mod == 2 || (mod == 0 && (rm == 5 || base == 5)))
    next += 4;
  return *next == SCOPEALLOC_GUARD_MARKER;
#elif defined(__aarch64__)
  /* STRB/STURB Wt, [Xn, #imm] whose Wt holds the marker. */
  unsigned insn = *(const unsigned *)uc->uc_mcontext.pc;
  if ((insn & 0xffc00000u) != 0x39000000u &&
      (insn & 0xffe00c00u) != 0x38000000u)
    return 0;
  unsigned rt = insn & 31;
  return rt != 31 &&
         (uc->uc_mcontext.regs[rt] & 0xff) == SCOPEALLOC_GUARD_MARKER;
#else
  (void)uc;
  return 0;
#endif
}

/* Passes the fault on, as if this handler had not been there. */
static void sa_chain(int sig, siginfo_t *info, void *context) {
  const struct sigaction *prev = &sa_previous;
  if (prev->sa_flags & SA_SIGINFO) {
    if (prev->sa_sigaction) {
      prev->sa_sigaction(sig, info, context);
      return;
    }
  } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
    prev->sa_handler(sig);
    return;
  }
  /* The default action: returning re-runs the instruction, which faults
   * again without this handler and dumps core where it faulted. (A
   * synchronous SIGSEGV cannot be ignored.) */
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
}

static void sa_guard_fault(int sig, siginfo_t *info, void *context) {
  int saved_errno = errno;
  const sa_guard_ops *ops = SA_LOAD(&sa_ops);
  scopealloc_pool *pool = ops ? ops->pool() : NULL;
  char *at = (char *)info->si_addr;
  char *base = pool ? SA_LOAD_RELAXED(&pool->base) : NULL;
  /* Only this thread's arena: a fault in another thread's memory is not one
   * of this thread's frames. */
  if (base && info->si_code == SEGV_ACCERR && sa_is_marker_store(context)) {
    char *limit = pool->limit, *end = pool->reserve_end;
    if (!SA_LOAD_RELAXED(&sa_guard_seen))
      SA_STORE_RELAXED(&sa_guard_seen, 1);
    if (at >= limit && at < end) {
      if (ops->commit(pool, at + 1) == 0) {
        errno = saved_errno;
        return;
      }
      ops->fail(pool, SCOPEALLOC_REASON_NO_MEMORY,
                (size_t)(at - pool->cur), sa_fault_pc(context));
    }
    if (at >= end && at < end + ops->guard) {
      /* The marker sits at cur + size: cur is still the frame's start. A
       * frame that would end exactly at the arena's end needs one byte
       * more, for its marker: say so, rather than "requested N, available
       * N". */
      char *cur = SA_LOAD_RELAXED(&pool->cur);
      size_t size = at > cur ? (size_t)(at - cur) : 0;
      if (at == end)
        size++;
      ops->fail(pool, SCOPEALLOC_REASON_EXHAUSTED, size,
                sa_fault_pc(context));
    }
  }
  errno = saved_errno;
  sa_chain(sig, info, context);
}

void sa_guard_install(const sa_guard_ops *ops) {
  if (SA_LOAD(&sa_installed))
    return;
  pthread_mutex_lock(&sa_install_lock);
  if (!sa_installed) {
    SA_STORE(&sa_ops, ops);
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = sa_guard_fault;
    /* SA_NODEFER: a fault in the program's chained handler is its own. */
    act.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&act.sa_mask);
    if (sigaction(SIGSEGV, &act, &sa_previous) == 0)
      SA_STORE(&sa_installed, 1);
  }
  pthread_mutex_unlock(&sa_install_lock);
}

/* The runtime's alternate stack: SA_ALTSTACK_SIZE bytes above a guard
 * page, so that the handler's own overflow faults. */
static size_t sa_altstack_page(void) { return (size_t)sysconf(_SC_PAGESIZE); }

void sa_guard_altstack_free(void *map) {
  if (map)
    munmap(map, SA_ALTSTACK_SIZE + sa_altstack_page());
}

/* One sigaltstack call in the usual case (a spare from an exited thread,
 * and a thread without a stack of its own): install ours and look at what
 * was there; put back a stack the thread had. None before guarded frames
 * are known to be in use (see the top). */
int sa_guard_thread_start(void *spare) {
  if (sa_altstack || (!SA_LOAD_RELAXED(&sa_guard_seen) && !SA_ON_VALGRIND()))
    return 0;
  size_t page = sa_altstack_page();
  char *map = (char *)spare;
  if (!map) {
    stack_t current;
    if (sigaltstack(NULL, &current) != 0 || !(current.ss_flags & SS_DISABLE))
      return 0; /* the thread has one (its own, or a sanitizer's) */
    map = (char *)mmap(NULL, SA_ALTSTACK_SIZE + page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == (char *)MAP_FAILED)
      return 0; /* the handler then runs on the thread's stack */
    mprotect(map, page, PROT_NONE);
  }
  stack_t mine, old;
  mine.ss_sp = map + page;
  mine.ss_size = SA_ALTSTACK_SIZE;
  mine.ss_flags = 0;
  if (sigaltstack(&mine, &old) != 0) {
    if (!spare)
      sa_guard_altstack_free(map);
    return 0;
  }
  if (!(old.ss_flags & SS_DISABLE)) { /* the thread's own: keep it */
    sigaltstack(&old, NULL);
    if (!spare)
      sa_guard_altstack_free(map);
    return 0;
  }
  sa_altstack = map;
  return spare != NULL;
}

/* One sigaltstack call in the usual case: switch the stack off and look at
 * what it was; put back a stack the program set since (and then keep
 * ours: it is in no one's way, and the thread is ending). */
void *sa_guard_thread_end(void) {
  char *map = sa_altstack;
  if (!map)
    return NULL;
  size_t page = sa_altstack_page();
  stack_t off, old;
  memset(&off, 0, sizeof off);
  off.ss_flags = SS_DISABLE;
  /* Fails only on the stack (a handler that ended the thread): then it
   * stays in use, and mapped. */
  if (sigaltstack(&off, &old) != 0)
    return NULL;
  if (!(old.ss_flags & SS_DISABLE) && old.ss_sp != (void *)(map + page))
    sigaltstack(&old, NULL);
  sa_altstack = NULL;
  return map;
}
