// Many threads at once, built together with the runtime's sources under
// ThreadSanitizer (ctest -L tsan): the default pools, named pools contended
// across threads (ownership, IN_USE through the handler), statistics readers
// and threads that exit while statistics are read. TSan must stay silent
// (halt_on_error=1), and the results must add up.
#include <sched.h>

#include <atomic>
#include <csetjmp>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "scopealloc/scopealloc.h"

SCOPEALLOC_DEFINE_POOL(tsan_a, 16384);
SCOPEALLOC_DEFINE_POOL(tsan_b, 16384);
// 12 partitions: 8 workers and the short-lived threads that follow each
// other (one at a time) hold at most 9 at once.
SCOPEALLOC_DEFINE_POOL_SHARED(tsan_shared, 12 * 8192, 8192);

namespace {

constexpr size_t MiB = size_t(1) << 20;

// A frame nest: each level allocates, fills with a pattern of its own, and
// checks it after the levels above returned.
bool NestedFrames(std::minstd_rand &rng, int id) {
  bool ok = true;
  void *marks[5];
  unsigned char *data[5];
  size_t sizes[5];
  int depth = 1 + rng() % 5;
  for (int d = 0; d < depth; ++d) {
    marks[d] = __scopealloc_mark();
    // Now and then more than the first commit, so arenas grow concurrently.
    sizes[d] = rng() % 64 == 0 ? MiB + rng() % MiB : 1 + rng() % 6000;
    data[d] = static_cast<unsigned char *>(
        __scopealloc_alloc(sizes[d], size_t(1) << (rng() % 7)));
    std::memset(data[d], (id * 7 + d) & 0xff, sizes[d]);
  }
  for (int d = depth - 1; d >= 0; --d) {
    for (size_t i = 0; i < sizes[d]; i += 61)
      ok &= data[d][i] == ((id * 7 + d) & 0xff);
    __scopealloc_release(marks[d]);
  }
  return ok;
}

// Reads the statistics until told to stop; counters only ever grow.
void ReadStatistics(const std::atomic<bool> &stop, std::atomic<int> &bad) {
  uint64_t last_allocs = 0;
  size_t last_peak = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    scopealloc_stats s;
    scopealloc_process_stats(&s);
    if (s.allocs < last_allocs || s.peak < last_peak || s.failures != 0)
      bad++;
    last_allocs = s.allocs;
    last_peak = s.peak;
    scopealloc_for_each_pool(
        [](const scopealloc_pool *pool, void *ctx) {
          scopealloc_stats ps;
          scopealloc_pool_stats(pool, &ps);
          if (ps.current > ps.capacity || ps.peak > ps.capacity)
            ++*static_cast<std::atomic<int> *>(ctx);
        },
        &bad);
    sched_yield();
  }
}

TEST(TsanStress, DefaultPoolsWithStatisticsReadersAndExitingThreads) {
  constexpr int kWorkers = 24, kRounds = 1500;
  std::atomic<bool> go{false}, stop{false};
  std::atomic<int> bad{0}, short_lived{0};
  scopealloc_stats before;
  scopealloc_process_stats(&before);

  std::vector<std::thread> readers, workers;
  for (int r = 0; r < 2; ++r)
    readers.emplace_back(ReadStatistics, std::cref(stop), std::ref(bad));
  // Threads that make an arena and exit while the readers walk the list.
  std::thread churn([&] {
    std::minstd_rand rng(99);
    while (!stop.load()) {
      std::thread([&] {
        if (!NestedFrames(rng, 1000))
          bad++;
      }).join();
      short_lived++;
    }
  });
  for (int t = 0; t < kWorkers; ++t)
    workers.emplace_back([&, t] {
      std::minstd_rand rng(t + 1);
      while (!go.load())
        std::this_thread::yield();
      for (int r = 0; r < kRounds; ++r)
        if (!NestedFrames(rng, t))
          bad++;
      scopealloc_stats s;
      scopealloc_thread_stats(&s);
      if (s.current != 0 || s.failures != 0)
        bad++;
    });
  go = true;
  for (auto &w : workers)
    w.join();
  stop = true;
  churn.join();
  for (auto &r : readers)
    r.join();

  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(short_lived.load(), 0);
  scopealloc_stats after;
  scopealloc_process_stats(&after);
  EXPECT_EQ(after.current, before.current);
  EXPECT_GE(after.allocs, before.allocs + kWorkers * kRounds);
  EXPECT_EQ(after.failures, 0u);
}

// Named pools serve one thread at a time: the others are refused through
// the exhaustion handler (which longjmps back here) until the pool empties.
thread_local std::jmp_buf *t_refused;
thread_local scopealloc_failure t_failure;

void JumpBack(const scopealloc_failure *f) {
  if (!t_refused)
    scopealloc_default_exhaustion_handler(f);
  t_failure = *f;
  std::longjmp(*t_refused, 1);
}

TEST(TsanStress, NamedPoolsContendedAcrossThreads) {
  constexpr int kThreads = 16, kRounds = 4000;
  scopealloc_pool *pools[] = {&__scopealloc_pool_tsan_a,
                              &__scopealloc_pool_tsan_b};
  scopealloc_stats pool_before[2];
  for (int i = 0; i < 2; ++i)
    scopealloc_pool_stats(pools[i], &pool_before[i]);
  scopealloc_exhaustion_handler previous =
      scopealloc_set_exhaustion_handler(JumpBack);
  std::atomic<bool> go{false}, stop{false};
  std::atomic<int> bad{0}, wrong_reason{0};
  std::atomic<uint64_t> served[2] = {{0}, {0}}, refused[2] = {{0}, {0}};

  std::thread reader(ReadStatistics, std::cref(stop), std::ref(bad));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::minstd_rand rng(t + 100);
      std::jmp_buf env;
      t_refused = &env;
      while (!go.load())
        std::this_thread::yield();
      for (int r = 0; r < kRounds; ++r) {
        const int which = rng() % 2;
        scopealloc_pool *pool = pools[which];
        void *m = __scopealloc_pool_mark(pool);
        const size_t size = 64 + rng() % 4000;
        const bool allocate = rng() % 8 != 0, yield = rng() % 4 == 0;
        volatile bool releasing = false;
        if (setjmp(env) != 0) {
          // Refused: another thread holds the pool. Only an allocation may
          // be; a release never is (this thread's mark is its own).
          if (releasing ||
              std::strcmp(t_failure.reason, SCOPEALLOC_REASON_IN_USE) != 0)
            wrong_reason++;
          refused[which]++;
          continue;
        }
        if (allocate) {
          auto *p = static_cast<unsigned char *>(
              __scopealloc_pool_alloc(pool, size, 16));
          served[which]++;
          std::memset(p, t, size);
          if (yield)
            sched_yield(); // let the others find the pool taken
          for (size_t i = 0; i < size; i += 31)
            if (p[i] != t)
              bad++;
        }
        // The frame's release leaves the pool to the others: this thread
        // holds nothing in it any more (its marks are NULL again).
        releasing = true;
        __scopealloc_pool_release(pool, m);
        if (__scopealloc_pool_mark(pool) != nullptr)
          bad++;
      }
      t_refused = nullptr;
    });
  go = true;
  for (auto &t : threads)
    t.join();
  stop = true;
  reader.join();
  scopealloc_set_exhaustion_handler(previous);

  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(wrong_reason.load(), 0);
  for (int i = 0; i < 2; ++i) {
    scopealloc_stats s;
    scopealloc_pool_stats(pools[i], &s);
    EXPECT_EQ(s.current, 0u) << s.name;
    EXPECT_EQ(pools[i]->owner, nullptr) << s.name;
    EXPECT_EQ(s.allocs - pool_before[i].allocs, served[i].load()) << s.name;
    EXPECT_EQ(s.failures - pool_before[i].failures, refused[i].load())
        << s.name;
    EXPECT_GT(served[i].load(), 0u) << s.name;
  }
  // Contention happened (else the test proves little).
  EXPECT_GT(refused[0].load() + refused[1].load(), 0u);
}

// A shared pool used by 8 threads at once (each in its partition, nested
// frames with patterns of its own), while short-lived threads take a
// partition, exit holding it (given back by their exit) and the next one
// takes it over, and statistics readers walk the partitions.
TEST(TsanStress, SharedPoolPartitionsUsedConcurrently) {
  constexpr int kWorkers = 8, kRounds = 3000;
  scopealloc_pool *pool = &__scopealloc_pool_tsan_shared;
  scopealloc_stats before;
  scopealloc_pool_stats(pool, &before);
  std::atomic<bool> go{false}, stop{false};
  std::atomic<int> bad{0};
  std::atomic<uint64_t> served{0};

  auto frames = [&](std::minstd_rand &rng, int id, int depth) {
    void *marks[4];
    unsigned char *data[4];
    size_t sizes[4];
    for (int d = 0; d < depth; ++d) {
      marks[d] = __scopealloc_pool_mark(pool);
      sizes[d] = 1 + rng() % 1500;
      data[d] = static_cast<unsigned char *>(
          __scopealloc_pool_alloc(pool, sizes[d], size_t(1) << (rng() % 7)));
      served++;
      std::memset(data[d], (id * 5 + d) & 0xff, sizes[d]);
    }
    sched_yield();
    for (int d = depth - 1; d >= 0; --d) {
      for (size_t i = 0; i < sizes[d]; i += 29)
        if (data[d][i] != ((id * 5 + d) & 0xff))
          bad++;
      __scopealloc_pool_release(pool, marks[d]);
    }
  };

  std::vector<std::thread> readers, workers;
  for (int r = 0; r < 2; ++r)
    readers.emplace_back(ReadStatistics, std::cref(stop), std::ref(bad));
  std::atomic<int> short_lived{0};
  std::thread churn([&] {
    std::minstd_rand rng(77);
    for (int n = 0; n < 50 || !stop.load(); ++n, ++short_lived)
      std::thread([&, n] {
        frames(rng, 100 + n % 50, 1 + rng() % 4);
        // Dies in the middle of a frame: its exit gives the partition back.
        __scopealloc_pool_alloc(pool, 64, 8);
        served++;
      }).join();
  });
  for (int t = 0; t < kWorkers; ++t)
    workers.emplace_back([&, t] {
      std::minstd_rand rng(t + 900);
      while (!go.load())
        std::this_thread::yield();
      for (int r = 0; r < kRounds; ++r)
        frames(rng, t, 1 + rng() % 4);
    });
  go = true;
  for (auto &w : workers)
    w.join();
  stop = true;
  churn.join();
  for (auto &r : readers)
    r.join();

  EXPECT_EQ(bad.load(), 0);
  EXPECT_GE(short_lived.load(), 50);
  scopealloc_stats after;
  scopealloc_pool_stats(pool, &after);
  EXPECT_EQ(after.current, 0u);
  EXPECT_EQ(after.failures, before.failures);
  EXPECT_EQ(after.allocs - before.allocs, served.load());
  EXPECT_LE(after.peak, 8192u);
}

// Exact counts turned on and off while threads allocate: the bound of a
// thread's pool is written by scopealloc_set_exact_stats in another thread.
// Whenever a thread's fast path is open (bound not NULL) its top is on the
// 16-byte grid, whatever was allocated with exact counts on meanwhile.
TEST(TsanStress, ExactCountsToggledWhileThreadsAllocate) {
  constexpr int kWorkers = 8, kRounds = 3000;
  const int was = scopealloc_set_exact_stats(0);
  std::atomic<bool> go{false}, stop{false};
  std::atomic<int> bad{0}, off_grid{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < kWorkers; ++t)
    workers.emplace_back([&, t] {
      std::minstd_rand rng(t + 500);
      while (!go.load())
        std::this_thread::yield();
      for (int r = 0; r < kRounds; ++r) {
        // Under the nest, a block of a ragged size: its top stays live.
        void *m = __scopealloc_mark();
        __scopealloc_alloc(1 + rng() % 100, 8);
        if (!NestedFrames(rng, t))
          bad++;
        scopealloc_pool *pool = &__scopealloc_tls_pool;
        char *bound = __atomic_load_n(&pool->bound, __ATOMIC_RELAXED);
        if (bound &&
            (uintptr_t(pool->cur) & (SCOPEALLOC_DEFAULT_POOL_GRANULE - 1)))
          off_grid++;
        __scopealloc_release(m);
      }
    });
  std::thread toggler([&] {
    for (int on = 1; !stop.load(); on ^= 1) {
      scopealloc_set_exact_stats(on);
      sched_yield();
    }
  });
  go = true;
  for (auto &w : workers)
    w.join();
  stop = true;
  toggler.join();
  scopealloc_set_exact_stats(was);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(off_grid.load(), 0);
}

} // namespace
