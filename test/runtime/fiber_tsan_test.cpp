// Fiber arenas under ThreadSanitizer (built into scopealloc_tsan_stress with
// the runtime's sources): arenas migrate between threads as an M:N
// scheduler would move fibers, while another thread reads the process
// statistics. TSan must stay silent, every arena must come back empty with
// the allocations counted, and the totals must add up.
#include <atomic>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "scopealloc/scopealloc.h"

namespace {

TEST(FiberArenaTsan, ArenasMigrateBetweenThreadsWhileStatsAreRead) {
  constexpr int kArenas = 8, kThreads = 4, kRounds = 3000;
  scopealloc_arena *arenas[kArenas];
  std::atomic<bool> taken[kArenas];
  for (int i = 0; i < kArenas; ++i) {
    arenas[i] = scopealloc_arena_create(1 << 20);
    ASSERT_NE(arenas[i], nullptr);
    taken[i] = false;
  }
  scopealloc_stats before;
  scopealloc_process_stats(&before);
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::atomic<uint64_t> frames{0};
  std::thread reader([&] {
    while (!done.load()) {
      scopealloc_stats s;
      scopealloc_process_stats(&s);
      if (s.allocs < before.allocs)
        bad++;
      for (int i = 0; i < kArenas; ++i) {
        scopealloc_arena_stats(arenas[i], &s);
        if (s.current > s.capacity)
          bad++;
      }
    }
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t)
    workers.emplace_back([&, t] {
      std::minstd_rand rng(t + 1);
      for (int r = 0; r < kRounds; ++r) {
        int i = rng() % kArenas;
        bool expected = false;
        if (!taken[i].compare_exchange_strong(expected, true))
          continue;
        scopealloc_arena *prev = scopealloc_arena_switch(arenas[i]);
        void *m = __scopealloc_mark();
        size_t n = 1 + rng() % 4000;
        auto *p = static_cast<unsigned char *>(__scopealloc_alloc(n, 16));
        std::memset(p, t, n);
        for (size_t k = 0; k < n; ++k)
          if (p[k] != t)
            bad++;
        __scopealloc_release(m);
        frames++;
        if (scopealloc_arena_switch(prev) != arenas[i])
          bad++;
        taken[i].store(false);
      }
    });
  for (auto &w : workers)
    w.join();
  done = true;
  reader.join();
  EXPECT_EQ(bad.load(), 0);
  uint64_t allocs = 0;
  for (int i = 0; i < kArenas; ++i) {
    scopealloc_stats s;
    scopealloc_arena_stats(arenas[i], &s);
    EXPECT_EQ(s.current, 0u);
    allocs += s.allocs;
    scopealloc_arena_destroy(arenas[i]);
  }
  EXPECT_EQ(allocs, frames.load());
  scopealloc_stats after;
  scopealloc_process_stats(&after);
  EXPECT_EQ(after.allocs, before.allocs + frames.load());
  EXPECT_EQ(after.current, before.current);
}

} // namespace
