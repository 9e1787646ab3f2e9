/* A signal handler that runs demoted code may interrupt the runtime while it
 * creates or unmaps the calling thread's arena. This program makes that
 * happen every time: it interposes mprotect, munmap and pthread_sigmask
 * (the static runtime's calls bind to the executable's definitions) and,
 * when a thread has armed them, sends that thread a signal from inside the
 * runtime's own call: mprotect and munmap when arenas are mapped and
 * unmapped (SCOPEALLOC_ARENA_CACHE=0); with the cache of exited threads'
 * arenas, where taking and returning one makes no such call (nor, without
 * guarded frames, any sigaltstack call), pthread_sigmask as it blocks the
 * signal around the arena's creation and return. The handler then uses the
 * default pool, as demoted code in a handler does.
 *
 * Creation: before the fix the handler found no arena yet (cur still NULL),
 * made a second one and listed the thread twice, which left a cycle in the
 * runtime's thread list and hung a later thread exit. Teardown: the handler
 * allocated from the arena just unmapped and crashed. Either way the program
 * fails (a crash, a wrong count, or the ctest timeout). */
#define _GNU_SOURCE 1
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "scopealloc/scopealloc.h"

#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "signal_in_arena_lifecycle: %s:%d: check failed: %s\n", \
              __FILE__, __LINE__, #c);                                         \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static __thread int arm_mprotect, arm_munmap;
static int handler_runs; /* one thread at a time runs here */

static void signal_if_armed(int *arm) {
  if (*arm) {
    *arm = 0;
    pthread_kill(pthread_self(), SIGUSR1);
  }
}

int mprotect(void *addr, size_t len, int prot) {
  signal_if_armed(&arm_mprotect);
  return (int)syscall(SYS_mprotect, addr, len, prot);
}

/* The signal comes after the mapping is gone, as late as it can. */
int munmap(void *addr, size_t len) {
  int r = (int)syscall(SYS_munmap, addr, len);
  signal_if_armed(&arm_munmap);
  return r;
}

/* With the cache only (set by main): without it mprotect and munmap are
 * the calls inside the sections. */
static int sigmask_arms;

/* In creation (an arena from the cache) and teardown (back into it): the
 * call that blocks SIGUSR1, so the signal is sent from inside the section. */
int pthread_sigmask(int how, const sigset_t *set, sigset_t *old) {
  int r = (int)syscall(SYS_rt_sigprocmask, how, set, old, _NSIG / 8);
  if (r == 0 && sigmask_arms && set && how != SIG_UNBLOCK &&
      sigismember(set, SIGUSR1)) {
    signal_if_armed(&arm_mprotect);
    signal_if_armed(&arm_munmap);
  }
  return r == 0 ? 0 : errno;
}

/* What demoted code in a handler does: a frame of the default pool. */
static void on_signal(int sig) {
  (void)sig;
  void *mark = __scopealloc_mark();
  char *buf = (char *)__scopealloc_alloc(4096, 64);
  memset(buf, 0x5a, 4096);
  for (int i = 0; i < 4096; ++i)
    CHECK(buf[i] == 0x5a);
  __scopealloc_release(mark);
  __atomic_fetch_add(&handler_runs, 1, __ATOMIC_RELAXED);
}

/* The thread's first use creates its arena; the first commit signals. */
static void *first_use(void *arg) {
  (void)arg;
  arm_mprotect = 1;
  void *mark = __scopealloc_mark();
  char *buf = (char *)__scopealloc_alloc(1024, 16);
  memset(buf, 1, 1024);
  __scopealloc_release(mark);
  CHECK(!arm_mprotect); /* the runtime did call mprotect */
  return NULL;
}

/* The thread's exit unmaps its arena; the unmap signals. (The runtime's
 * unmap is the only munmap through the PLT on the way out.) */
static void *last_use(void *arg) {
  (void)arg;
  void *mark = __scopealloc_mark();
  (void)__scopealloc_alloc(1024, 16);
  __scopealloc_release(mark);
  arm_munmap = 1;
  return NULL;
}

static void run_thread(void *(*fn)(void *)) {
  pthread_t t;
  CHECK(pthread_create(&t, NULL, fn, NULL) == 0);
  CHECK(pthread_join(t, NULL) == 0);
}

int main(void) {
  const char *cache_env = getenv("SCOPEALLOC_ARENA_CACHE");
  sigmask_arms = !cache_env || strcmp(cache_env, "0") != 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGUSR1, &sa, NULL);

  sa_process_totals before, after;
  sa_process_totals_get(&before);
  run_thread(first_use);
  sa_process_totals_get(&after);
  CHECK(handler_runs == 1);
  CHECK(after.threads == before.threads + 1); /* listed once */
  CHECK(after.live_threads == before.live_threads);
  /* Nothing left mapped but what the cache keeps. */
  CHECK(after.reservations - after.cached ==
        before.reservations - before.cached);

  /* The handler runs once the arena is gone, and gets a new one (a zombie
   * arena, which the thread's exit returns as well). */
  run_thread(last_use);
  CHECK(handler_runs == 2);
  run_thread(first_use); /* a later exit reaps it; the list is whole */
  CHECK(handler_runs == 3);
  sa_process_totals_get(&after);
  const char *cache = getenv("SCOPEALLOC_ARENA_CACHE");
  int cached = !cache || strcmp(cache, "0") != 0;
  CHECK(after.cached == (cached ? 1 : 0));
  printf("signals in arena creation and teardown ok (%s)\n",
         cached ? "arenas from the cache" : "no cache");
  return 0;
}
