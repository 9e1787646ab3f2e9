// pthreads: three rounds of 4 threads, each thread using 32 KiB and 2 MiB
// local buffers, VLAs in a loop and a recursion with 2 KiB frames
// concurrently. A barrier makes all threads hold their buffers at the same
// time; each then checks that nobody else wrote into them. Results are
// joined in order.
// The largest thread peak is about 2.6 MiB; a VLA loop that grew the arena
// every iteration would need 8 MiB more.
// COMPARE: max-peak=6291456
//
// RUN: bash %S/Inputs/compare.sh %s %t %clang %scc -pthread
#include "Inputs/e2e.h"
#include <pthread.h>
#include <string.h>

#define NTHREADS 4
static pthread_barrier_t barrier;

E2E_NOINLINE static uint64_t rec(int depth, int id) {
  unsigned char frame[2048];
  memset(frame, (depth * 7 + id) & 0xff, sizeof frame);
  e2e_escape(frame);
  uint64_t below = depth ? rec(depth - 1, id) : (uint64_t)id;
  for (size_t i = 0; i < sizeof frame; i += 97)
    CHECK(frame[i] == (unsigned char)((depth * 7 + id) & 0xff));
  return e2e_mix(below, frame[depth % 2048]);
}

E2E_NOINLINE static uint64_t vla_work(int id, int iters) {
  uint64_t h = E2E_HASH_INIT;
  for (int i = 0; i < iters; ++i) {
    int n = 50 + (i * 31 + id * 17) % 2000;
    unsigned v[n];
    for (int k = 0; k < n; ++k)
      v[k] = (unsigned)(k * id + i);
    e2e_escape(v);
    h = e2e_mix(h, v[n - 1] ^ v[n / 2]);
  }
  return h;
}

struct job {
  int id, round;
  uint64_t result;
};

static void *worker(void *arg) {
  struct job *j = arg;
  unsigned int big[8192]; /* 32 KiB */
  char text[4096];
  unsigned char huge[2 << 20]; /* 2 MiB, within a default 8 MiB thread stack */
  memset(huge, j->id + j->round, sizeof huge);
  e2e_escape(huge);
  for (int i = 0; i < 8192; ++i)
    big[i] = (unsigned)(i * (j->id + 1) + j->round);
  int len = snprintf(text, sizeof text, "thread %d round %d", j->id, j->round);
  e2e_escape(big);
  e2e_escape(text);

  /* Everyone holds buffers now; wait until all threads got here. */
  pthread_barrier_wait(&barrier);
  uint64_t h = vla_work(j->id, 2000);
  h = e2e_mix(h, rec(150 + j->id * 10, j->id));
  pthread_barrier_wait(&barrier);

  for (int i = 0; i < 8192; ++i)
    CHECK(big[i] == (unsigned)(i * (j->id + 1) + j->round));
  char expect[64];
  snprintf(expect, sizeof expect, "thread %d round %d", j->id, j->round);
  CHECK(strcmp(text, expect) == 0 && (int)strlen(text) == len);
  for (size_t i = 0; i < sizeof huge; i += 4093)
    CHECK(huge[i] == (unsigned char)(j->id + j->round));
  h = e2e_hash(h, big, sizeof big);
  j->result = e2e_hash(h, text, (size_t)len);
  return NULL;
}

int main(void) {
  pthread_barrier_init(&barrier, NULL, NTHREADS);
  uint64_t total = E2E_HASH_INIT;
  for (int round = 0; round < 3; ++round) {
    pthread_t th[NTHREADS];
    struct job jobs[NTHREADS];
    for (int i = 0; i < NTHREADS; ++i) {
      jobs[i].id = i;
      jobs[i].round = round;
      jobs[i].result = 0;
      CHECK(pthread_create(&th[i], NULL, worker, &jobs[i]) == 0);
    }
    for (int i = 0; i < NTHREADS; ++i) {
      CHECK(pthread_join(th[i], NULL) == 0);
      printf("round %d thread %d: %016llx\n", round, i,
             (unsigned long long)jobs[i].result);
      total = e2e_mix(total, jobs[i].result);
    }
  }
  /* The main thread does the same work alone afterwards. */
  uint64_t solo = e2e_mix(vla_work(9, 1000), rec(300, 9));
  printf("main thread: %016llx\n", (unsigned long long)solo);
  printf("threads total: %016llx\n", (unsigned long long)total);
  pthread_barrier_destroy(&barrier);
  return 0;
}
