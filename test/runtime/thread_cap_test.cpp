// The default pool's per-thread cap: it is the reservation, derived from
// RLIMIT_STACK unless SCOPEALLOC_RESERVE sets it. Small enough that 10,000
// threads can hold an arena at once; runaway recursion of demoted frames
// ends in the exhaustion handler instead of the OOM killer.
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "default_cap.h"
#include "process_memory.h"
#include "scopealloc/scopealloc.h"

namespace {

constexpr size_t MiB = size_t(1) << 20;

// A demoted-style frame that never returns: 64 KiB of workspace per level,
// one byte touched, like a function with a buffer recursing without end.
__attribute__((noinline)) void Recurse(unsigned depth) {
  void *m = __scopealloc_mark();
  auto *p = static_cast<volatile char *>(__scopealloc_alloc(64 * 1024, 16));
  p[0] = static_cast<char>(depth);
  Recurse(depth + 1);
  __scopealloc_release(m);
  __asm__ volatile("" ::: "memory"); // no tail call
}

void *RecurseOnThread(void *) {
  Recurse(0);
  return nullptr;
}

// Runs fn on a new thread with a small stack and waits for it.
void OnNewThread(void *(*fn)(void *), void *arg) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  pthread_t t;
  if (pthread_create(&t, &attr, fn, arg) != 0)
    std::abort();
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
}

// With a small cap chosen by SCOPEALLOC_RESERVE, runaway recursion ends at
// once in the default handler's message.
TEST(ThreadCapDeathTest, RunawayRecursionEndsInExhaustionMessage) {
  EXPECT_DEATH(
      {
        setenv("SCOPEALLOC_RESERVE", "4M", 1);
        OnNewThread(RecurseOnThread, nullptr);
      },
      "scopealloc: pool 'workspace' exhausted: requested 65536 bytes "
      "\\(align 16\\), available [0-9]+, peak 4194304, capacity 4194304");
}

// Without SCOPEALLOC_RESERVE the cap comes from RLIMIT_STACK: at the usual
// 8 MiB the recursion stops at 64 MiB of workspace, with the message, where
// a 64 GiB reservation would take the machine stack down first (or the
// OOM killer, with frames that touch their memory).
TEST(ThreadCapDeathTest, RunawayRecursionStopsAtTheDefaultCap) {
  EXPECT_DEATH(
      {
        unsetenv("SCOPEALLOC_RESERVE");
        struct rlimit rl;
        getrlimit(RLIMIT_STACK, &rl);
        rl.rlim_cur = 8 * MiB;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < rl.rlim_cur)
          rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_STACK, &rl);
        OnNewThread(RecurseOnThread, nullptr);
      },
      "scopealloc: pool 'workspace' exhausted: requested 65536 bytes "
      "\\(align 16\\), available [0-9]+, peak [0-9]+, capacity 67108864");
}

void *StatsCapacity(void *out) {
  __scopealloc_mark();
  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  *static_cast<size_t *>(out) = s.capacity;
  return nullptr;
}

// 8 x the soft RLIMIT_STACK, at least 64 MiB, at most 1 GiB (also when
// unlimited), read once per process, when its first arena is made (as glibc
// reads it once for its threads' stacks; a forked child reads it again), so
// that a thread taking a cached arena makes no system call for it;
// SCOPEALLOC_RESERVE still wins. Each limit is tried in a child forked for
// it, which then changes the limit: the next new arena (no cache) keeps the
// cap read first. Checked in a child, which may change its limits.
void CheckDefaultCaps() {
  unsetenv("SCOPEALLOC_RESERVE");
  struct rlimit rl;
  getrlimit(RLIMIT_STACK, &rl);
  const rlim_t cases[] = {8 * MiB,  16 * MiB,  10 * MiB + 4096, 1 * MiB,
                          64 * MiB, 512 * MiB, RLIM_INFINITY};
  int bad = 0, tried = 0;
  for (rlim_t soft : cases) {
    if (rl.rlim_max != RLIM_INFINITY &&
        (soft == RLIM_INFINITY || soft > rl.rlim_max))
      continue; // not allowed here
    struct rlimit now = rl;
    now.rlim_cur = soft;
    if (setrlimit(RLIMIT_STACK, &now) != 0)
      continue;
    pid_t pid = fork();
    if (pid == 0) {
      setenv("SCOPEALLOC_ARENA_CACHE", "0", 1);
      size_t capacity = 0;
      OnNewThread(StatsCapacity, &capacity);
      int wrong = capacity != ExpectedDefaultCap(soft);
      if (wrong)
        std::fprintf(stderr, "RLIMIT_STACK %llu: capacity %zu, want %zu\n",
                     (unsigned long long)soft, capacity,
                     ExpectedDefaultCap(soft));
      struct rlimit later = now;
      later.rlim_cur = 2 * MiB; // another cap: 64 MiB, unlike 8 x 16 MiB
      size_t again = 0;
      if (setrlimit(RLIMIT_STACK, &later) == 0) {
        OnNewThread(StatsCapacity, &again);
        if (again != capacity) {
          std::fprintf(stderr,
                       "RLIMIT_STACK %llu, then 2 MiB: capacity %zu, then "
                       "%zu (read again)\n",
                       (unsigned long long)soft, capacity, again);
          wrong = 1;
        }
      }
      std::fflush(stderr);
      _exit(wrong);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
      bad++;
    tried++;
  }
  if (setrlimit(RLIMIT_STACK, &rl) != 0)
    bad++;
  // The environment overrides the default.
  setenv("SCOPEALLOC_RESERVE", "3M", 1);
  size_t capacity = 0;
  OnNewThread(StatsCapacity, &capacity);
  if (capacity != 3 * MiB) {
    std::fprintf(stderr, "SCOPEALLOC_RESERVE=3M: capacity %zu\n", capacity);
    bad++;
  }
  std::fprintf(stderr, "%d limits tried, %d wrong\n", tried, bad);
  std::exit(bad == 0 && tried >= 4 ? 0 : 1);
}

TEST(ThreadCapDeathTest, DefaultCapIsDerivedFromRlimitStack) {
  EXPECT_EXIT(CheckDefaultCaps(), testing::ExitedWithCode(0), "0 wrong");
}

// 10,000 threads alive at once, each with a 64 KiB stack and an arena it
// allocates from. With 64 GiB per reservation the address space runs out
// after about 2,000 (thread creation or the arena fails); with the default
// cap every thread gets its arena at the full cap. Run in a child so the
// parent's address space and mapping count stay as they were. Mappings per
// thread: its stack (no stack guard page, to stay well under
// vm.max_map_count) and the arena's three (guard below, committed part,
// uncommitted part plus guard above).
constexpr int kThreads = 10000;

// Threads sleep (a condition variable, not a spin) until all are there.
struct Crowd {
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t all_ready = PTHREAD_COND_INITIALIZER;
  pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
  int ready = 0;
  bool go = false;
  std::atomic<int> failed{0}, wrong_cap{0};
  size_t cap = 0;
};

void *CrowdMember(void *arg) {
  auto *c = static_cast<Crowd *>(arg);
  void *m = __scopealloc_mark();
  auto *p = static_cast<char *>(__scopealloc_alloc(4096, 64));
  std::memset(p, 1, 4096);
  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  if (s.capacity != c->cap)
    c->wrong_cap++;
  pthread_mutex_lock(&c->lock);
  c->ready++;
  pthread_cond_signal(&c->all_ready);
  while (!c->go)
    pthread_cond_wait(&c->go_cond, &c->lock);
  pthread_mutex_unlock(&c->lock);
  if (p[4095] != 1)
    c->failed++;
  __scopealloc_release(m);
  return nullptr;
}

void TenThousandThreads() {
  unsetenv("SCOPEALLOC_RESERVE");
  Crowd c;
  c.cap = ExpectedDefaultCap();
  const uint64_t live_before = ProcessTotals().live_threads;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_attr_setguardsize(&attr, 0);
  std::vector<pthread_t> threads;
  threads.reserve(kThreads);
  int create_error = 0;
  for (int i = 0; i < kThreads; ++i) {
    pthread_t t;
    if ((create_error = pthread_create(&t, &attr, CrowdMember, &c)) != 0)
      break;
    threads.push_back(t);
  }
  const int created = static_cast<int>(threads.size());
  pthread_mutex_lock(&c.lock);
  while (c.ready < created)
    pthread_cond_wait(&c.all_ready, &c.lock);
  pthread_mutex_unlock(&c.lock);
  const sa_process_totals during = ProcessTotals();
  pthread_mutex_lock(&c.lock);
  c.go = true;
  pthread_cond_broadcast(&c.go_cond);
  pthread_mutex_unlock(&c.lock);
  for (pthread_t t : threads)
    pthread_join(t, nullptr);
  const sa_process_totals after = ProcessTotals();
  std::fprintf(stderr,
               "created %d (error %d), alive at once with an arena %llu, "
               "arenas mapped %llu, wrong cap %d, failed %d, left %llu\n",
               created, create_error,
               (unsigned long long)(during.live_threads - live_before),
               (unsigned long long)during.reservations, c.wrong_cap.load(),
               c.failed.load(),
               (unsigned long long)(after.live_threads - live_before));
  bool ok = created == kThreads &&
            during.live_threads - live_before == uint64_t(kThreads) &&
            during.reservations >= uint64_t(kThreads) && c.wrong_cap == 0 &&
            c.failed == 0 && after.live_threads == live_before;
  std::exit(ok ? 0 : 1);
}

TEST(ThreadCapDeathTest, TenThousandThreadsHoldArenasAtOnce) {
  EXPECT_EXIT(TenThousandThreads(), testing::ExitedWithCode(0),
              "created 10000 \\(error 0\\), alive at once with an arena 10000");
}

} // namespace
