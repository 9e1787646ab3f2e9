// fork: the child goes on with the forking thread's arena, gets fresh ones
// for its new threads, and finds consistent statistics and usable named
// pools whatever the parent's other threads were doing.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "process_memory.h"
#include "scopealloc/scopealloc.h"

SCOPEALLOC_DEFINE_POOL(t_fork, 4096);

namespace {

constexpr size_t MiB = size_t(1) << 20;

// Runs `fn` in a forked child that must finish within `seconds` (a deadlock
// ends in SIGALRM); returns its exit status, or minus the killing signal.
int InChild(const std::function<int()> &fn, unsigned seconds = 20) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0)
    return -1000;
  if (pid == 0) {
    alarm(seconds);
    _exit(fn());
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid)
    return -1001;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

// In a child: report the failed condition and exit with status 1.
#define CHILD_CHECK(cond)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "%s:%d: in the child: %s\n", __FILE__, __LINE__,    \
                   #cond);                                                     \
      return 1;                                                                \
    }                                                                          \
  } while (0)

size_t ThreadCurrent() {
  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  return s.current;
}

// Uses `bytes` of the calling thread's arena, checks it, gives it back.
bool UseArena(size_t bytes, char fill) {
  void *m = __scopealloc_mark();
  char *p = static_cast<char *>(__scopealloc_alloc(bytes, 64));
  std::memset(p, fill, bytes);
  bool ok = p[0] == fill && p[bytes - 1] == fill;
  __scopealloc_release(m);
  return ok && __scopealloc_mark() == m;
}

bool UseArenaOnANewThread(size_t bytes) {
  bool ok = false;
  std::thread([&] {
    ok = UseArena(bytes, 't') && ThreadCurrent() == 0;
  }).join();
  return ok;
}

TEST(Fork, ChildGoesOnWithTheForkingThreadsArena) {
  void *m = __scopealloc_mark();
  char *p = static_cast<char *>(__scopealloc_alloc(1000, 16));
  std::memset(p, 'x', 1000);
  int rc = InChild([&] {
    CHILD_CHECK(p[0] == 'x' && p[999] == 'x');
    CHILD_CHECK(__scopealloc_tls_pool.cur == p + 1000);
    // Past the parent's commit: the child grows its copy of the arena.
    char *q = static_cast<char *>(__scopealloc_alloc(3 * MiB, 64));
    CHILD_CHECK(q >= p + 1000);
    std::memset(q, 'y', 3 * MiB);
    sa_process_totals t = ProcessTotals();
    CHILD_CHECK(t.live_threads == 1);
    CHILD_CHECK(t.stats.current == ThreadCurrent());
    CHILD_CHECK(UseArenaOnANewThread(2 * MiB));
    CHILD_CHECK(ProcessTotals().live_threads == 1);
    // The child's own fork handlers work too.
    int grandchild = InChild([&] {
      CHILD_CHECK(q[3 * MiB - 1] == 'y');
      CHILD_CHECK(UseArena(MiB, 'g') && UseArenaOnANewThread(MiB));
      return 0;
    });
    CHILD_CHECK(grandchild == 0);
    __scopealloc_release(m);
    CHILD_CHECK(ProcessTotals().stats.current == ThreadCurrent());
    CHILD_CHECK(__scopealloc_mark() == m);
    return 0;
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(p[0], 'x');
  // The child's moves stay in the child.
  EXPECT_EQ(__scopealloc_tls_pool.cur, p + 1000);
  __scopealloc_release(m);
}

// Six threads hold arena memory while the main thread forks: in the child
// they do not exist, so their memory stops counting, their reservations are
// returned except the part in use (still readable, like their stacks), and
// new threads of the child (which may get the dead threads' TLS blocks) get
// arenas of their own.
TEST(Fork, ChildOfAProcessWhoseOtherThreadsHoldArenas) {
  constexpr int kThreads = 6;
  struct Held {
    char *data, *top, *reserve_end;
    size_t size;
  } held[kThreads];
  std::atomic<int> holding{0}, bad{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      void *m = __scopealloc_mark();
      size_t size = (t + 1) * 300000;
      char *data = static_cast<char *>(__scopealloc_alloc(size, 64));
      std::memset(data, 'a' + t, size);
      held[t] = {data, __scopealloc_tls_pool.cur,
                 __scopealloc_tls_pool.reserve_end, size};
      holding++;
      while (!done.load())
        std::this_thread::yield();
      if (data[0] != 'a' + t || data[size - 1] != 'a' + t)
        bad++;
      __scopealloc_release(m);
    });
  while (holding.load() < kThreads)
    std::this_thread::yield();
  void *m = __scopealloc_mark();
  __scopealloc_alloc(5000, 8);
  const sa_process_totals parent = ProcessTotals();
  const size_t mine = ThreadCurrent();
  ASSERT_EQ(parent.live_threads, 1u + kThreads);

  int rc = InChild([&] {
    sa_process_totals t = ProcessTotals();
    CHILD_CHECK(t.live_threads == 1);
    CHILD_CHECK(t.threads == parent.threads);
    CHILD_CHECK(t.stats.current == mine);
    CHILD_CHECK(t.stats.allocs == parent.stats.allocs);
    CHILD_CHECK(t.stats.peak == parent.stats.peak);
    uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    for (const Held &h : held) {
      CHILD_CHECK(h.data[0] == (&h - held) + 'a');
      CHILD_CHECK(h.data[h.size - 1] == (&h - held) + 'a');
      char *kept_end = reinterpret_cast<char *>(
          (reinterpret_cast<uintptr_t>(h.top) + page - 1) & ~(page - 1));
      CHILD_CHECK(IsMapped(kept_end - 1));
      CHILD_CHECK(!IsMapped(kept_end));
      CHILD_CHECK(!IsMapped(h.reserve_end - 1));
    }
    for (int round = 0; round < 4; ++round) {
      std::vector<std::thread> fresh;
      std::atomic<int> ok{0};
      for (int i = 0; i < 8; ++i)
        fresh.emplace_back([&] {
          if (__scopealloc_tls_pool.cur == nullptr && UseArena(2 * MiB, 'n'))
            ok++;
        });
      for (auto &f : fresh)
        f.join();
      CHILD_CHECK(ok.load() == 8);
    }
    t = ProcessTotals();
    CHILD_CHECK(t.live_threads == 1);
    CHILD_CHECK(t.threads == parent.threads + 32);
    CHILD_CHECK(t.stats.current == mine);
    return 0;
  });
  done = true;
  for (auto &t : threads)
    t.join();
  __scopealloc_release(m);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(bad.load(), 0) << "the child's clean-up reached the parent";
  EXPECT_EQ(ProcessTotals().live_threads, parent.live_threads - kThreads);
}

// The forking thread need not be the main thread: in the child it is the
// only one, and the main thread's arena is the one left behind.
TEST(Fork, FromAThreadOtherThanMain) {
  void *main_mark = __scopealloc_mark();
  char *main_data = static_cast<char *>(__scopealloc_alloc(5000, 8));
  std::memset(main_data, 'm', 5000);
  int rc = -1;
  std::thread([&] {
    void *m = __scopealloc_mark();
    char *p = static_cast<char *>(__scopealloc_alloc(100000, 16));
    std::memset(p, 'w', 100000);
    rc = InChild([&] {
      sa_process_totals t = ProcessTotals();
      CHILD_CHECK(t.live_threads == 1);
      CHILD_CHECK(t.stats.current == 100000);
      CHILD_CHECK(main_data[4999] == 'm'); // the main thread's data is kept
      CHILD_CHECK(UseArena(4 * MiB, 'c'));
      CHILD_CHECK(UseArenaOnANewThread(MiB));
      __scopealloc_release(m);
      CHILD_CHECK(ProcessTotals().stats.current == 0);
      return 0;
    });
    __scopealloc_release(m);
  }).join();
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(main_data[0], 'm');
  __scopealloc_release(main_mark);
}

// A named pool that another thread holds at the fork is empty and free in
// the child (that thread and its frames are gone); the parent's is untouched.
TEST(Fork, NamedPoolHeldByAnotherThreadIsFreeInTheChild) {
  scopealloc_pool *pool = &__scopealloc_pool_t_fork;
  std::atomic<bool> holding{false}, done{false};
  char *held = nullptr;
  std::thread owner([&] {
    void *m = __scopealloc_pool_mark(pool);
    held = static_cast<char *>(__scopealloc_pool_alloc(pool, 512, 16));
    std::memset(held, 'o', 512);
    holding = true;
    while (!done.load())
      std::this_thread::yield();
    __scopealloc_pool_release(pool, m);
  });
  while (!holding.load())
    std::this_thread::yield();
  int rc = InChild([&] {
    CHILD_CHECK(pool->owner == nullptr);
    CHILD_CHECK(pool->cur == pool->base);
    void *m = __scopealloc_pool_mark(pool);
    char *p = static_cast<char *>(__scopealloc_pool_alloc(pool, 256, 16));
    CHILD_CHECK(p == pool->base);
    CHILD_CHECK(pool->owner != nullptr);
    __scopealloc_pool_release(pool, m);
    CHILD_CHECK(pool->owner == nullptr);
    return 0;
  });
  EXPECT_EQ(rc, 0);
  EXPECT_NE(pool->owner, nullptr);
  EXPECT_EQ(pool->cur, held + 512);
  EXPECT_EQ(held[511], 'o');
  done = true;
  owner.join();
  EXPECT_EQ(pool->cur, pool->base);
  EXPECT_EQ(pool->owner, nullptr);
}

// Forks while other threads create and return arenas and read statistics
// (all of which take the runtime's lock): every child must be able to do the
// same at once, i.e. never inherit the lock held.
TEST(Fork, RepeatedForksWhileThreadsComeAndGo) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> churn;
  for (int i = 0; i < 3; ++i)
    churn.emplace_back([&] {
      while (!stop.load()) {
        std::thread([] { UseArena(64 * 1024, 'c'); }).join();
        ProcessTotals();
      }
    });
  int failures = 0;
  for (int i = 0; i < 60; ++i) {
    int rc = InChild(
        [] {
          ProcessTotals();
          CHILD_CHECK(UseArena(MiB, 'f') && UseArenaOnANewThread(MiB));
          CHILD_CHECK(ProcessTotals().live_threads <= 1);
          return 0;
        },
        10);
    if (rc != 0) {
      ADD_FAILURE() << "child " << i << " ended with " << rc;
      if (++failures == 3)
        break;
    }
  }
  stop = true;
  for (auto &t : churn)
    t.join();
}

} // namespace
