/* Thread churn (issue 48): threads started and joined one after another,
 * each calling one function with a 4 KiB buffer (FRAME_BYTES), which
 * scopealloc-clang at limit 0 demotes to the thread's arena. Built by
 * scripts/bench/thread_churn.sh with plain clang and with the wrapper.
 *
 *   thread_churn <threads> <churners>
 *
 * <churners> threads each start and join <threads>/<churners> threads in
 * turn (1: the main thread does it alone). Prints the wall time of the
 * churn, and the checksum so that nothing is optimized away. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef FRAME_BYTES
#define FRAME_BYTES 4096
#endif

static unsigned long checksum;
static pthread_mutex_t checksum_lock = PTHREAD_MUTEX_INITIALIZER;

/* The demoted frame: a buffer the function fills and reads. */
__attribute__((noinline)) static unsigned long work(unsigned long seed) {
  unsigned char buf[FRAME_BYTES];
  memset(buf, (int)(seed & 0x7f), sizeof buf);
  __asm__ volatile("" : : "r"(buf) : "memory");
  unsigned long sum = 0;
  for (size_t i = 0; i < sizeof buf; i += 512)
    sum += buf[i];
  return sum + seed;
}

static void *worker(void *arg) {
  unsigned long s = work((unsigned long)(size_t)arg);
  return (void *)(size_t)s;
}

static void *churner(void *arg) {
  long n = *(const long *)arg;
  unsigned long sum = 0;
  for (long i = 0; i < n; i++) {
    pthread_t t;
    void *ret;
    if (pthread_create(&t, NULL, worker, (void *)(size_t)i) != 0) {
      perror("pthread_create");
      exit(2);
    }
    pthread_join(t, &ret);
    sum += (unsigned long)(size_t)ret;
  }
  pthread_mutex_lock(&checksum_lock);
  checksum += sum;
  pthread_mutex_unlock(&checksum_lock);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <threads> <churners>\n", argv[0]);
    return 2;
  }
  long threads = atol(argv[1]), churners = atol(argv[2]);
  if (threads < 1 || churners < 1 || churners > 1024) {
    fprintf(stderr, "thread_churn: need threads >= 1 and 1 <= churners <= 1024\n");
    return 2;
  }
  long each = threads / churners;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (churners == 1) {
    churner(&each);
  } else {
    pthread_t c[1024];
    for (long i = 0; i < churners; i++)
      if (pthread_create(&c[i], NULL, churner, &each) != 0) {
        perror("pthread_create");
        return 2;
      }
    for (long i = 0; i < churners; i++)
      pthread_join(c[i], NULL);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double seconds = (double)(t1.tv_sec - t0.tv_sec) +
                   (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  printf("threads %ld churners %ld seconds %.6f checksum %lu\n",
         each * churners, churners, seconds, checksum);
  return 0;
}
