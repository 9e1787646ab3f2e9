// A thread's arena goes back when the thread exits, whatever ran last in
// it (to the system, or to the cache of exited threads' arenas, which holds
// at most one per thread that ran at once), and a thread that never used
// the arena costs nothing.
#include <pthread.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "process_memory.h"
#include "scopealloc/scopealloc.h"

namespace {

constexpr size_t MiB = size_t(1) << 20;

// A frame that uses `bytes` of the arena in 64 KiB pieces and touches every
// page, so the arena commits (and the process keeps resident) that much.
void UseArena(size_t bytes) {
  void *m = __scopealloc_mark();
  for (size_t used = 0; used < bytes; used += 64 * 1024) {
    auto *p = static_cast<volatile char *>(__scopealloc_alloc(64 * 1024, 64));
    for (size_t i = 0; i < 64 * 1024; i += 4096)
      p[i] = static_cast<char>(i);
  }
  __scopealloc_release(m);
}

// 2000 threads, each committing and touching 2 MiB of its arena (past
// the 1 MiB first commit, so each arena also grew), four at a time. The
// process must end where it started: no reservation left (64 MiB each), no
// resident memory left (2 MiB each), no mapping left, and statistics that
// count every thread as exited. A leak stops the loop early. (The bounds
// leave room for glibc's own caches, far below what one thread would leak.)
TEST(ThreadExit, TwoThousandThreadsLeaveNothingBehind) {
  constexpr int kThreads = 2000, kAtOnce = 4;
  constexpr size_t kUse = 2 * MiB, kAllocsPerThread = kUse / (64 * 1024);
  auto batch = [&](int n) {
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i)
      threads.emplace_back([] { UseArena(kUse); });
    for (auto &t : threads)
      t.join();
  };
  // Let glibc settle first: it caches thread stacks and keeps the malloc
  // arenas new threads create (64 MiB of address space each).
  for (int i = 0; i < 25; ++i)
    batch(kAtOnce);
  const ProcessMemory before = ReadProcessMemory();
  const sa_process_totals totals_before = ProcessTotals();
  ASSERT_GT(before.vm_rss, 0u) << "cannot read /proc/self/status";
  // glibc's own caches, and the arena cache, which may hold fewer arenas
  // at `before` than later (up to kAtOnce; each arena is a few mappings:
  // its guards, committed and reserved parts, its alternate signal stack).
  // A leak of one mapping per thread still passes it within 200 threads.
  constexpr size_t kMappingSlack = 8 + 6 * kAtOnce;

  for (int done = 0; done < kThreads; done += kAtOnce) {
    batch(kAtOnce);
    if (done % 200 == 0) {
      ProcessMemory now = ReadProcessMemory();
      ASSERT_LT(now.vm_size, before.vm_size + 512 * MiB) << "after " << done;
      ASSERT_LT(now.vm_rss, before.vm_rss + 32 * MiB) << "after " << done;
      ASSERT_LE(now.mappings, before.mappings + kMappingSlack)
          << "after " << done;
      // Every arena mapped is a live thread's or in the cache, which
      // holds at most one per thread that ran at once.
      const sa_process_totals now_totals = ProcessTotals();
      ASSERT_EQ(now_totals.reservations - now_totals.cached,
                totals_before.reservations - totals_before.cached)
          << "after " << done;
      ASSERT_LE(now_totals.cached, uint64_t(kAtOnce)) << "after " << done;
    }
  }

  const ProcessMemory after = ReadProcessMemory();
  EXPECT_LT(after.vm_size, before.vm_size + 512 * MiB);
  EXPECT_LT(after.vm_rss, before.vm_rss + 32 * MiB);
  EXPECT_LE(after.mappings, before.mappings + kMappingSlack);

  const sa_process_totals totals = ProcessTotals();
  EXPECT_EQ(totals.reservations - totals.cached,
            totals_before.reservations - totals_before.cached);
  EXPECT_LE(totals.cached, uint64_t(kAtOnce));
  EXPECT_EQ(totals.threads, totals_before.threads + kThreads);
  EXPECT_EQ(totals.live_threads, totals_before.live_threads);
  EXPECT_EQ(totals.stats.allocs,
            totals_before.stats.allocs + kThreads * kAllocsPerThread);
  EXPECT_EQ(totals.stats.current, totals_before.stats.current);
  EXPECT_GE(totals.stats.peak, kUse);
  EXPECT_EQ(totals.stats.failures, totals_before.stats.failures);
}

// While threads hold memory, the process totals count it and them; once
// they are gone, neither.
TEST(ThreadExit, ProcessTotalsFollowLiveThreads) {
  constexpr int kThreads = 6;
  const ProcessMemory memory_before = ReadProcessMemory();
  const sa_process_totals before = ProcessTotals();
  std::atomic<int> holding{0};
  std::atomic<bool> release{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      void *m = __scopealloc_mark();
      std::memset(__scopealloc_alloc(1000 * (t + 1), 8), 1, 1000 * (t + 1));
      holding++;
      while (!release.load())
        std::this_thread::yield();
      __scopealloc_release(m);
    });
  while (holding.load() < kThreads)
    std::this_thread::yield();
  sa_process_totals during = ProcessTotals();
  EXPECT_EQ(during.live_threads, before.live_threads + kThreads);
  EXPECT_EQ(during.stats.current, before.stats.current + 1000 * 21);
  // Each holds its whole reservation, committed or not.
  EXPECT_GE(ReadProcessMemory().vm_size,
            memory_before.vm_size + kThreads * during.stats.capacity);
  release = true;
  for (auto &t : threads)
    t.join();
  sa_process_totals after = ProcessTotals();
  EXPECT_EQ(after.live_threads, before.live_threads);
  EXPECT_EQ(after.threads, before.threads + kThreads);
  EXPECT_EQ(after.stats.current, before.stats.current);
  EXPECT_EQ(after.stats.allocs, before.stats.allocs + kThreads);
}

// A thread that never allocates gets no arena: no reservation, no
// registration, even if it asks for statistics or releases the empty mark.
TEST(ThreadExit, AThreadThatNeverUsesTheArenaCostsNothing) {
  const ProcessMemory before = ReadProcessMemory();
  const sa_process_totals totals_before = ProcessTotals();
  ProcessMemory during;
  sa_process_totals totals_during;
  scopealloc_pool pool_during;
  std::thread([&] {
    scopealloc_stats s;
    scopealloc_thread_stats(&s);
    __scopealloc_release(nullptr);
    during = ReadProcessMemory();
    totals_during = ProcessTotals();
    pool_during = __scopealloc_tls_pool;
  }).join();
  EXPECT_EQ(totals_during.reservations, totals_before.reservations);
  EXPECT_LT(during.vm_size, before.vm_size + 512 * MiB); // stack, malloc arena
  EXPECT_EQ(totals_during.threads, totals_before.threads);
  EXPECT_EQ(totals_during.live_threads, totals_before.live_threads);
  EXPECT_EQ(pool_during.cur, nullptr);
  EXPECT_EQ(pool_during.base, nullptr);
  EXPECT_EQ(pool_during.reserve_end, nullptr);
  EXPECT_EQ(ProcessTotals().threads, totals_before.threads);
}

// Thread exit runs C++ thread_local destructors, then pthread key
// destructors in key order; the runtime's key was created before the one
// below. Both kinds may run demoted code, the key destructor after the
// runtime's own has returned the arena: that use makes a new arena, which
// must be returned too.
pthread_key_t g_late_key;

void LateKeyDestructor(void *) { UseArena(2 * MiB); }

struct UsesArenaWhenDestroyed {
  ~UsesArenaWhenDestroyed() { UseArena(2 * MiB); }
};

TEST(ThreadExit, ArenaUsedByExitTimeDestructorsIsReturned) {
  UseArena(1); // the runtime's key exists before ours
  ASSERT_EQ(pthread_key_create(&g_late_key, LateKeyDestructor), 0);
  auto run = [](int n) {
    for (int i = 0; i < n; ++i)
      std::thread([] {
        thread_local UsesArenaWhenDestroyed tl;
        (void)&tl;
        UseArena(3 * MiB);
        pthread_setspecific(g_late_key, &g_late_key);
      }).join();
  };
  run(4);
  const ProcessMemory before = ReadProcessMemory();
  const sa_process_totals totals_before = ProcessTotals();
  run(200);
  const ProcessMemory after = ReadProcessMemory();
  const sa_process_totals totals = ProcessTotals();
  pthread_key_delete(g_late_key);
  EXPECT_EQ(totals.reservations - totals.cached,
            totals_before.reservations - totals_before.cached);
  EXPECT_LT(after.vm_size, before.vm_size + 512 * MiB);
  EXPECT_LT(after.vm_rss, before.vm_rss + 32 * MiB);
  EXPECT_EQ(totals.live_threads, totals_before.live_threads);
  EXPECT_EQ(totals.stats.current, totals_before.stats.current);
  // Each thread had its arena twice (once in its life and in the
  // thread_local destructor, once more in the late key destructor) but
  // counts once: the second arena is made after the runtime's destructor
  // ran, and returned in the next destructor round.
  EXPECT_EQ(totals.threads, totals_before.threads + 200);
}

} // namespace
