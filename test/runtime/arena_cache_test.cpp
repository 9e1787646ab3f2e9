// The cache of exited threads' arenas (issue 48): a new thread takes the
// arena an exited one left, the cache holds at most SCOPEALLOC_ARENA_CACHE
// arenas, and statistics stay exact across reuse, fork and key-destructor
// rounds. The marker scan behind the peak reads only pages a thread wrote,
// so a thread's exit costs what it used, not what its arena committed.
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "latch.h"
#include "process_memory.h"
#include "scopealloc/scopealloc.h"

namespace {

constexpr size_t KiB = 1024;

// What one thread saw of its arena.
struct ArenaSeen {
  char *base = nullptr;
  char *limit = nullptr;
  scopealloc_stats stats{};
};

// A guarded frame as the compiler's guarded fast path makes it
// (-scope-alloc-fast-path=guarded): the marker just above the frame, then
// the new top; the runtime never hears of it.
char *GuardedFrame(size_t size) {
  scopealloc_pool *pool = &__scopealloc_tls_pool;
  char *frame = pool->cur;
  *static_cast<volatile char *>(frame + size) = SCOPEALLOC_GUARD_MARKER;
  __atomic_store_n(&pool->cur, frame + size, __ATOMIC_RELAXED);
  return frame;
}

// Runs fn on a thread of its own and waits for it to end.
ArenaSeen OnThread(const std::function<void()> &fn) {
  ArenaSeen seen;
  std::thread([&] {
    fn();
    seen.base = __scopealloc_tls_pool.base;
    seen.limit = __scopealloc_tls_pool.limit;
    scopealloc_thread_stats(&seen.stats);
  }).join();
  return seen;
}

// One allocation of `bytes` through the runtime (counted), released.
void UseBytes(size_t bytes) {
  void *m = __scopealloc_mark();
  std::memset(__scopealloc_alloc(bytes, 16), 0x5a, bytes);
  __scopealloc_release(m);
}

// Pages of [from, to) that are resident.
size_t ResidentPages(const char *from, const char *to) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> vec((to - from + page - 1) / page);
  if (mincore(const_cast<char *>(from), to - from, vec.data()) != 0)
    return SIZE_MAX;
  size_t n = 0;
  for (unsigned char v : vec)
    n += v & 1;
  return n;
}

// `threads` threads that each hold an arena at the same time, then end.
void CrowdHoldingArenas(int threads) {
  Latch go;
  std::atomic<int> holding{0};
  std::vector<std::thread> crowd;
  for (int i = 0; i < threads; ++i)
    crowd.emplace_back([&] {
      void *m = __scopealloc_mark();
      __scopealloc_alloc(64, 16);
      holding++;
      go.wait();
      __scopealloc_release(m);
    });
  while (holding < threads)
    std::this_thread::yield();
  go.open();
  for (auto &t : crowd)
    t.join();
}

TEST(ArenaCache, ANewThreadTakesTheArenaAnExitedThreadLeft) {
  const ArenaSeen first = OnThread([] { UseBytes(1000); });
  const sa_process_totals between = ProcessTotals();
  const ArenaSeen second = OnThread([] { UseBytes(1000); });
  const sa_process_totals after = ProcessTotals();
  ASSERT_NE(first.base, nullptr);
  EXPECT_EQ(second.base, first.base);
  // The same mapping served both: nothing mapped or unmapped.
  EXPECT_EQ(after.reservations, between.reservations);
  EXPECT_GE(after.cached, 1u);
  EXPECT_EQ(after.threads, between.threads + 1);
  EXPECT_EQ(second.stats.allocs, 1u);
  EXPECT_EQ(second.stats.peak, 1000u); // main.cpp turns exact counts on
}

// The peak of a reused arena is its new thread's alone: what the previous
// thread left (its buffers, its guarded frames' markers) was cleared, and
// the process totals count both threads exactly once.
TEST(ArenaCache, StatisticsStayExactAcrossReuse) {
  const sa_process_totals before = ProcessTotals();
  char *marker = nullptr;
  const ArenaSeen first = OnThread([&] {
    void *m = __scopealloc_mark();
    UseBytes(3000);
    GuardedFrame(16 * KiB);
    GuardedFrame(16 * KiB);
    char *last = GuardedFrame(16 * KiB);
    marker = last + 16 * KiB;
    __scopealloc_release(m);
  });
  EXPECT_EQ(first.stats.peak, 48 * KiB); // the guarded frames' top
  EXPECT_EQ(first.stats.allocs, 1u);
  bool marker_cleared = false;
  const ArenaSeen second = OnThread([&] {
    UseBytes(1000);
    UseBytes(500);
    marker_cleared = *static_cast<volatile char *>(marker) == 0;
  });
  ASSERT_EQ(second.base, first.base);
  EXPECT_TRUE(marker_cleared);
  EXPECT_EQ(second.stats.peak, 1000u);
  EXPECT_EQ(second.stats.allocs, 2u);
  EXPECT_EQ(second.stats.current, 0u);
  const sa_process_totals after = ProcessTotals();
  EXPECT_EQ(after.stats.allocs, before.stats.allocs + 3);
  EXPECT_GE(after.stats.peak, 48 * KiB);
  EXPECT_EQ(after.threads, before.threads + 2);
  EXPECT_EQ(after.live_threads, before.live_threads);
}

// Reading the peak (as a thread's exit does) reads no page the thread never
// wrote: the arena has at least 1 MiB committed, of which the thread
// touches its first page. Reading them all would make every page resident
// (the zero page), at a fault each: the exit would cost what the arena
// committed. (A reused arena may keep up to 64 KiB of its earlier thread's
// pages resident, cleared: only pages past 128 KiB are counted.)
TEST(ArenaCache, ThePeakScanReadsOnlyWrittenPages) {
  size_t resident_before = 0, resident_after = 0, far_pages = 0;
  scopealloc_stats s{};
  OnThread([&] {
    void *m = __scopealloc_mark();
    std::memset(GuardedFrame(4 * KiB), 1, 4 * KiB);
    char *far = __scopealloc_tls_pool.base + 128 * KiB;
    char *limit = __scopealloc_tls_pool.limit;
    resident_before = ResidentPages(far, limit);
    scopealloc_thread_stats(&s);
    resident_after = ResidentPages(far, limit);
    far_pages = (limit - far) / sysconf(_SC_PAGESIZE);
    __scopealloc_release(m);
  });
  EXPECT_EQ(s.peak, 4 * KiB);
  EXPECT_GE(far_pages, 200u);
  EXPECT_EQ(resident_before, 0u);
  EXPECT_EQ(resident_after, 0u);
}

// The cache keeps at most SCOPEALLOC_ARENA_CACHE arenas (read at each
// thread's exit): 0 keeps none, 4 keeps 4 of 10 exiting at once; a value
// that is no number is reported once and the default (16) kept. In a child,
// which may change its environment.
int CheckCacheSetting() {
  setenv("SCOPEALLOC_ARENA_CACHE", "0", 1);
  CrowdHoldingArenas(40); // takes whatever the parent left in the cache
  const sa_process_totals empty = ProcessTotals();
  setenv("SCOPEALLOC_ARENA_CACHE", "4", 1);
  CrowdHoldingArenas(10);
  const sa_process_totals four = ProcessTotals();
  setenv("SCOPEALLOC_ARENA_CACHE", "many", 1);
  CrowdHoldingArenas(40);
  const sa_process_totals dflt = ProcessTotals();
  std::fprintf(stderr,
               "cached: %llu with 0, %llu with 4 (reservations +%lld), %llu "
               "with the default\n",
               (unsigned long long)empty.cached,
               (unsigned long long)four.cached,
               (long long)(four.reservations - empty.reservations),
               (unsigned long long)dflt.cached);
  return empty.cached == 0 && four.cached == 4 &&
                 four.reservations == empty.reservations + 4 &&
                 dflt.cached == 16 &&
                 dflt.reservations == empty.reservations + 16
             ? 0
             : 1;
}

TEST(ArenaCacheDeathTest, TheSettingBoundsTheCache) {
  EXPECT_EXIT(std::exit(CheckCacheSetting()), testing::ExitedWithCode(0),
              "ignoring SCOPEALLOC_ARENA_CACHE='many': expected a number of "
              "arenas from 0 to 1024; keeping up to 16.*cached: 0 with "
              "0, 4 with 4 \\(reservations \\+4\\), 16 with the default");
}

// fork: an arena the parent's cache held serves a thread of the child, and
// the child's statistics go on from the parent's.
TEST(ArenaCache, AForkChildReusesACachedArena) {
  const ArenaSeen parent = OnThread([] { UseBytes(2000); });
  const sa_process_totals at_fork = ProcessTotals();
  ASSERT_GE(at_fork.cached, 1u);
  std::fflush(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(20);
    const ArenaSeen child = OnThread([] { UseBytes(700); });
    const sa_process_totals after = ProcessTotals();
    int ok = child.base == parent.base && child.stats.peak == 700 &&
             child.stats.allocs == 1 &&
             after.stats.allocs == at_fork.stats.allocs + 1 &&
             after.threads == at_fork.threads + 1 &&
             after.reservations == at_fork.reservations;
    if (!ok)
      std::fprintf(stderr,
                   "child: base %s, peak %zu, allocs %llu -> %llu, threads "
                   "%llu -> %llu, reservations %llu -> %llu\n",
                   child.base == parent.base ? "reused" : "new",
                   child.stats.peak, (unsigned long long)at_fork.stats.allocs,
                   (unsigned long long)after.stats.allocs,
                   (unsigned long long)at_fork.threads,
                   (unsigned long long)after.threads,
                   (unsigned long long)at_fork.reservations,
                   (unsigned long long)after.reservations);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

// A key destructor that runs after the runtime's returned the arena (to the
// cache) makes a new one, which a later round returns: its frames are
// counted, and the cache neither grows nor shrinks by it.
pthread_key_t g_late_key;
void LateDestructor(void *) {
  UseBytes(100);
  UseBytes(200);
}

TEST(ArenaCache, KeyDestructorsAfterTheArenaWentBackAreCounted) {
  UseBytes(1); // the runtime's key exists before ours
  ASSERT_EQ(pthread_key_create(&g_late_key, LateDestructor), 0);
  auto run = [] {
    OnThread([] {
      UseBytes(10);
      pthread_setspecific(g_late_key, &g_late_key);
    });
  };
  run();
  const sa_process_totals before = ProcessTotals();
  for (int i = 0; i < 20; ++i)
    run();
  const sa_process_totals after = ProcessTotals();
  pthread_key_delete(g_late_key);
  EXPECT_EQ(after.stats.allocs, before.stats.allocs + 20 * 3);
  EXPECT_EQ(after.threads, before.threads + 20);
  EXPECT_EQ(after.reservations, before.reservations);
  EXPECT_EQ(after.cached, before.cached);
  EXPECT_EQ(after.stats.current, before.stats.current);
}

} // namespace
