// Several threads run demoted code at once while another thread keeps
// interrupting them with a signal whose handler runs demoted code too, in
// the middle of the interrupted thread's own demoted frames (and of its
// runtime calls). Each thread's arena is LIFO and private, so the handler's
// frames sit above the interrupted ones and are gone before it resumes:
// every result stays right and every arena returns to empty.
// RUN: %scc -O0 -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t.O0 -lpthread && %t.O0 | FileCheck %s
// RUN: %scc -O2 -mllvm -scope-alloc-max-stack-alloca=0 %s -o %t.O2 -lpthread && %t.O2 | FileCheck %s
// CHECK: worker errors 0
// CHECK-NEXT: handler errors 0
// CHECK-NEXT: handler ran in every worker: yes
// CHECK-NEXT: worker arenas empty at the end: yes
#include <scopealloc/scopealloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define WORKERS 4
#define ROUNDS 20000

static atomic_int worker_errors, handler_errors, workers_done, stop;
static atomic_long handler_runs[WORKERS];
static _Thread_local int my_index = -1;

// Demoted frame: a fixed buffer and a VLA, checked against a closed form.
__attribute__((noinline)) static int checked_sum(unsigned n, unsigned seed) {
  unsigned buf[512];
  unsigned vla[n];
  for (unsigned i = 0; i < 512; ++i)
    buf[i] = i * seed;
  for (unsigned i = 0; i < n; ++i)
    vla[i] = buf[i % 512] + 1;
  unsigned long long sum = 0, want = 0;
  for (unsigned i = 0; i < n; ++i) {
    sum += vla[i];
    want += (unsigned long long)((i % 512) * seed) + 1;
  }
  return sum == want;
}

static void on_signal(int sig) {
  (void)sig;
  if (my_index < 0)
    return;
  atomic_fetch_add(&handler_runs[my_index], 1);
  if (!checked_sum(300, 7))
    atomic_fetch_add(&handler_errors, 1);
}

static void *worker(void *arg) {
  // A handler may interrupt this first use, which creates the arena (at -O0
  // the handler's own frame is demoted too): the runtime blocks signals
  // while it creates one (runtime.signal_in_arena_lifecycle).
  (void)__scopealloc_mark();
  my_index = (int)(long)arg;
  for (unsigned r = 0; r < ROUNDS; ++r)
    if (!checked_sum(100 + r % 700, r))
      atomic_fetch_add(&worker_errors, 1);
  scopealloc_stats st;
  scopealloc_thread_stats(&st);
  // Stay alive (and signalled) until every worker is done.
  atomic_fetch_add(&workers_done, 1);
  while (!atomic_load(&stop))
    ;
  // Only this frame's own bytes may be in use.
  return (void *)(long)(st.current <= sizeof st + 64);
}

static void *signaler(void *arg) {
  pthread_t *threads = arg;
  // Paced, so that a loaded machine cannot starve the workers of the time
  // between two handlers (a livelock, not a bug).
  struct timespec pause = {0, 20000};
  while (atomic_load(&workers_done) < WORKERS) {
    for (int i = 0; i < WORKERS; ++i)
      pthread_kill(threads[i], SIGUSR1);
    nanosleep(&pause, NULL);
  }
  atomic_store(&stop, 1);
  return NULL;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, NULL);
  pthread_t threads[WORKERS], sig;
  for (long i = 0; i < WORKERS; ++i)
    pthread_create(&threads[i], NULL, worker, (void *)i);
  pthread_create(&sig, NULL, signaler, threads);
  pthread_join(sig, NULL); // no signal is sent after this
  int empty = 1;
  for (int i = 0; i < WORKERS; ++i) {
    void *ok;
    pthread_join(threads[i], &ok);
    empty &= ok != NULL;
  }
  int every = 1;
  for (int i = 0; i < WORKERS; ++i)
    every &= atomic_load(&handler_runs[i]) > 0;
  printf("worker errors %d\n", atomic_load(&worker_errors));
  printf("handler errors %d\n", atomic_load(&handler_errors));
  printf("handler ran in every worker: %s\n", every ? "yes" : "no");
  printf("worker arenas empty at the end: %s\n", empty ? "yes" : "no");
  return 0;
}
