// The default pool: one lazily created, growing arena per thread.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "default_cap.h"
#include "scopealloc/scopealloc.h"

bool CatchFailure(const std::function<void()> &fn, scopealloc_failure *out);

namespace {

uintptr_t addr(const void *p) { return reinterpret_cast<uintptr_t>(p); }
constexpr size_t MiB = size_t(1) << 20;

// Runs fn on a fresh thread, so that it starts without an arena.
void OnFreshThread(const std::function<void()> &fn) { std::thread(fn).join(); }

// Sets SCOPEALLOC_RESERVE for the scope (read when a thread's arena is made).
struct ReserveEnv {
  explicit ReserveEnv(const char *value) {
    setenv("SCOPEALLOC_RESERVE", value, 1);
  }
  ~ReserveEnv() { unsetenv("SCOPEALLOC_RESERVE"); }
};

TEST(ThreadArena, FreshThreadHasNoArenaUntilFirstUse) {
  OnFreshThread([] {
    EXPECT_EQ(__scopealloc_tls_pool.cur, nullptr);
    scopealloc_stats s;
    scopealloc_thread_stats(&s);
    EXPECT_EQ(s.capacity, 0u);
    EXPECT_EQ(s.allocs, 0u);
    // mark() makes the arena, so the mark is a real position in it.
    void *m = __scopealloc_mark();
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m, __scopealloc_tls_pool.base);
    scopealloc_thread_stats(&s);
    EXPECT_GT(s.capacity, 0u);
    EXPECT_EQ(s.current, 0u);
    void *p = __scopealloc_alloc(100, 16);
    EXPECT_EQ(p, m);
    __scopealloc_release(m);
    EXPECT_EQ(__scopealloc_mark(), m);
  });
}

TEST(ThreadArena, FirstUseCanBeAnAllocation) {
  OnFreshThread([] {
    char *p = static_cast<char *>(__scopealloc_alloc(4000, 64));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(addr(p) % 64, 0u);
    std::memset(p, 1, 4000);
    scopealloc_stats s;
    scopealloc_thread_stats(&s);
    EXPECT_EQ(s.current, 4000u);
  });
}

TEST(ThreadArena, ReleaseToNullMeansEmpty) {
  OnFreshThread([] {
    __scopealloc_alloc(10, 8);
    __scopealloc_alloc(1000, 8);
    __scopealloc_release(nullptr);
    EXPECT_EQ(__scopealloc_tls_pool.cur, __scopealloc_tls_pool.base);
  });
  // A thread that never allocated may release the empty mark too.
  OnFreshThread([] {
    __scopealloc_release(nullptr);
    EXPECT_EQ(__scopealloc_tls_pool.cur, nullptr);
  });
}

TEST(ThreadArena, LifoMarkRelease) {
  void *m0 = __scopealloc_mark();
  char *a = static_cast<char *>(__scopealloc_alloc(64, 8));
  void *m1 = __scopealloc_mark();
  char *b = static_cast<char *>(__scopealloc_alloc(64, 8));
  void *m2 = __scopealloc_mark();
  char *c = static_cast<char *>(__scopealloc_alloc(64, 8));
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  std::memset(a, 'a', 64);
  std::memset(b, 'b', 64);
  __scopealloc_release(m2);
  EXPECT_EQ(__scopealloc_alloc(64, 8), c);
  __scopealloc_release(m1);
  EXPECT_EQ(__scopealloc_mark(), m1);
  EXPECT_EQ(__scopealloc_alloc(64, 8), b);
  EXPECT_EQ(a[0], 'a');
  EXPECT_EQ(a[63], 'a');
  __scopealloc_release(m0);
  EXPECT_EQ(__scopealloc_mark(), m0);
}

TEST(ThreadArena, AlignmentIsHonoured) {
  void *m = __scopealloc_mark();
  for (size_t align = 1; align <= 65536; align *= 2) {
    for (size_t size : {0, 1, 7, 100}) {
      char *before = __scopealloc_tls_pool.cur;
      char *p = static_cast<char *>(__scopealloc_alloc(size, align));
      EXPECT_EQ(addr(p) % align, 0u) << align;
      EXPECT_EQ(addr(p) % 8, 0u);
      EXPECT_GE(p, before);
      EXPECT_LT(addr(p) - addr(before), align < 8 ? 8 : align);
      std::memset(p, 0x33, size);
    }
  }
  char *p = static_cast<char *>(__scopealloc_alloc(5, 0)); // 0 means 1
  EXPECT_EQ(addr(p) % 8, 0u);
  __scopealloc_release(m);
}

TEST(ThreadArena, GrowsPastTheCommitStepAndKeepsData) {
  ReserveEnv env("1G"); // above the default cap (64 MiB at an 8 MiB stack)
  OnFreshThread([] {
    void *m = __scopealloc_mark();
    EXPECT_EQ(__scopealloc_tls_pool.limit - static_cast<char *>(m),
              static_cast<ptrdiff_t>(MiB));
    // 300 MiB in uneven pieces, each filled with its own pattern.
    std::vector<std::pair<uint32_t *, size_t>> pieces;
    size_t total = 0;
    for (unsigned i = 0; total < 300 * MiB; ++i) {
      size_t words = (MiB + 4096 * (i % 7) + 12 * i) / 4;
      auto *p = static_cast<uint32_t *>(__scopealloc_alloc(words * 4, 16));
      ASSERT_EQ(addr(p) % 16, 0u);
      if (!pieces.empty()) // one contiguous arena
        ASSERT_GE(addr(p), addr(pieces.back().first + pieces.back().second));
      for (size_t w = 0; w < words; w += 1024)
        p[w] = i * 2654435761u + static_cast<uint32_t>(w);
      p[words - 1] = ~i;
      pieces.emplace_back(p, words);
      total += words * 4;
    }
    for (unsigned i = 0; i < pieces.size(); ++i) {
      auto [p, words] = pieces[i];
      for (size_t w = 0; w < words; w += 1024)
        ASSERT_EQ(p[w], i * 2654435761u + static_cast<uint32_t>(w));
      ASSERT_EQ(p[words - 1], ~i);
    }
    scopealloc_stats s;
    scopealloc_thread_stats(&s);
    EXPECT_GE(s.peak, 300 * MiB);
    EXPECT_EQ(s.allocs, pieces.size());
    // Commits grow geometrically: far fewer steps than allocations.
    EXPECT_GE(static_cast<size_t>(__scopealloc_tls_pool.limit -
                                  __scopealloc_tls_pool.base),
              s.current);
    __scopealloc_release(m);
    scopealloc_thread_stats(&s);
    EXPECT_EQ(s.current, 0u);
    // Released memory is reused from the bottom.
    EXPECT_EQ(__scopealloc_alloc(64, 16), pieces[0].first);
  });
}

TEST(ThreadArena, OneLargeAllocationSpanningManySteps) {
  ReserveEnv env("1G"); // above the default cap (64 MiB at an 8 MiB stack)
  OnFreshThread([] {
    __scopealloc_alloc(100, 8);
    const size_t size = 200 * MiB + 123;
    char *p = static_cast<char *>(__scopealloc_alloc(size, 4096));
    EXPECT_EQ(addr(p) % 4096, 0u);
    for (size_t i = 0; i < size; i += 4096)
      p[i] = static_cast<char>(i >> 12);
    p[size - 1] = 42;
    for (size_t i = 0; i < size; i += 4096)
      ASSERT_EQ(p[i], static_cast<char>(i >> 12));
    EXPECT_EQ(p[size - 1], 42);
  });
}

TEST(ThreadArena, HugeRequestsAreExhaustionNotWraparound) {
  OnFreshThread([] {
    __scopealloc_alloc(3, 1);
    char *top = __scopealloc_tls_pool.cur;
    const size_t capacity =
        __scopealloc_tls_pool.reserve_end - __scopealloc_tls_pool.base;
    struct Case {
      size_t size, align;
    } cases[] = {{SIZE_MAX, 8},        {SIZE_MAX - 7, 1},
                 {~addr(top) + 1, 8},  {capacity, 8},
                 {8, size_t(1) << 62}, {SIZE_MAX / 2, size_t(1) << 40}};
    for (const Case &c : cases) {
      scopealloc_failure f;
      ASSERT_TRUE(CatchFailure(
          [&] { __scopealloc_alloc(c.size, c.align); }, &f))
          << c.size << " " << c.align;
      EXPECT_STREQ(f.pool, "workspace");
      EXPECT_STREQ(f.reason, "exhausted");
      EXPECT_EQ(f.requested, c.size);
      EXPECT_EQ(f.alignment, c.align);
      EXPECT_EQ(f.capacity, capacity);
      EXPECT_EQ(f.available, capacity - 3);
      EXPECT_EQ(__scopealloc_tls_pool.cur, top);
    }
    scopealloc_stats s;
    scopealloc_thread_stats(&s);
    EXPECT_EQ(s.failures, std::size(cases));
    EXPECT_EQ(s.allocs, 1u);
  });
}

TEST(ThreadArena, NonPowerOfTwoAlignmentIsReported) {
  OnFreshThread([] {
    scopealloc_failure f;
    ASSERT_TRUE(CatchFailure([] { __scopealloc_alloc(8, 12); }, &f));
    EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_BAD_ALIGNMENT);
  });
}

TEST(ThreadArena, ReleaseAboveTheTopIsReported) {
  OnFreshThread([] {
    void *m = __scopealloc_mark();
    __scopealloc_alloc(64, 8);
    char *top = __scopealloc_tls_pool.cur;
    for (char *bad : {top + 64, static_cast<char *>(m) - 16}) {
      scopealloc_failure f;
      ASSERT_TRUE(CatchFailure([&] { __scopealloc_release(bad); }, &f));
      EXPECT_STREQ(f.pool, "workspace");
      EXPECT_STREQ(f.reason, bad > top ? SCOPEALLOC_REASON_RELEASE_ABOVE_TOP
                                       : SCOPEALLOC_REASON_BAD_RELEASE);
      EXPECT_EQ(f.mark, bad);
      EXPECT_EQ(__scopealloc_tls_pool.cur, top);
    }
    __scopealloc_release(m);
  });
}

TEST(ThreadArena, EachThreadHasItsOwnArena) {
  constexpr int kThreads = 4;
  std::atomic<int> arrived{0};
  uintptr_t lo[kThreads], hi[kThreads];
  char *blocks[kThreads];
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      char *p = static_cast<char *>(__scopealloc_alloc(1000, 8));
      std::memset(p, t, 1000);
      blocks[t] = p;
      lo[t] = addr(__scopealloc_tls_pool.base);
      hi[t] = addr(__scopealloc_tls_pool.reserve_end);
      // Keep every arena alive until all have written.
      arrived++;
      while (arrived.load() < kThreads)
        std::this_thread::yield();
      for (int i = 0; i < 1000; ++i)
        ASSERT_EQ(p[i], t);
    });
  for (auto &t : threads)
    t.join();
  for (int a = 0; a < kThreads; ++a) {
    EXPECT_GE(addr(blocks[a]), lo[a]);
    EXPECT_LT(addr(blocks[a]), hi[a]);
    for (int b = 0; b < a; ++b)
      EXPECT_TRUE(hi[a] <= lo[b] || hi[b] <= lo[a]) << a << " overlaps " << b;
  }
}

TEST(ThreadArena, ConcurrentStressOfEightThreads) {
  constexpr int kThreads = 8, kRounds = 3000;
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::minstd_rand rng(t + 1);
      while (!go.load())
        std::this_thread::yield();
      for (int r = 0; r < kRounds; ++r) {
        // A random nest of frames, each filling and later checking its data.
        void *marks[6];
        unsigned char *data[6];
        size_t sizes[6];
        int depth = 1 + rng() % 6;
        for (int d = 0; d < depth; ++d) {
          marks[d] = __scopealloc_mark();
          sizes[d] = 1 + rng() % 20000;
          data[d] = static_cast<unsigned char *>(
              __scopealloc_alloc(sizes[d], size_t(1) << (rng() % 8)));
          std::memset(data[d], (t * 31 + d) & 0xff, sizes[d]);
        }
        for (int d = depth - 1; d >= 0; --d) {
          for (size_t i = 0; i < sizes[d]; i += 97)
            if (data[d][i] != ((t * 31 + d) & 0xff))
              bad++;
          __scopealloc_release(marks[d]);
        }
      }
      scopealloc_stats s;
      scopealloc_thread_stats(&s);
      if (s.current != 0 || s.failures != 0)
        bad++;
    });
  go = true;
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(bad.load(), 0);
}

// Without the cache of exited threads' arenas (arena_cache_test.cpp).
TEST(ThreadArena, ArenaIsUnmappedWhenTheThreadExits) {
  char *base = nullptr;
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  setenv("SCOPEALLOC_ARENA_CACHE", "0", 1);
  OnFreshThread([&] {
    __scopealloc_alloc(100, 8);
    base = __scopealloc_tls_pool.base;
    unsigned char vec[1];
    EXPECT_EQ(mincore(base, page, vec), 0);
  });
  unsetenv("SCOPEALLOC_ARENA_CACHE");
  unsigned char vec[1];
  errno = 0;
  EXPECT_EQ(mincore(base, page, vec), -1);
  EXPECT_EQ(errno, ENOMEM);
}

TEST(ThreadArena, DefaultReservation) {
  unsetenv("SCOPEALLOC_RESERVE");
  OnFreshThread([] {
    __scopealloc_mark();
    scopealloc_stats s;
    scopealloc_thread_stats(&s);
    // Derived from RLIMIT_STACK (see default_cap_test.cpp for the rule).
    EXPECT_EQ(s.capacity, ExpectedDefaultCap());
    EXPECT_EQ(__scopealloc_tls_pool.limit - __scopealloc_tls_pool.base,
              static_cast<ptrdiff_t>(MiB));
  });
}

TEST(ThreadArena, ReserveFromTheEnvironment) {
  const struct {
    const char *value;
    size_t bytes;
  } cases[] = {{"3M", 3 * MiB},   {"1G", size_t(1) << 30},
               {"100k", 102400},  {"4097", 8192},
               {"65536", 65536},  {"2m", 2 * MiB}};
  for (const auto &c : cases) {
    ReserveEnv env(c.value);
    OnFreshThread([&] {
      __scopealloc_mark();
      scopealloc_stats s;
      scopealloc_thread_stats(&s);
      EXPECT_EQ(s.capacity, c.bytes) << c.value;
      // Commit never passes the reservation.
      EXPECT_LE(__scopealloc_tls_pool.limit, __scopealloc_tls_pool.reserve_end);
    });
  }
}

TEST(ThreadArena, SmallReservationExhaustsThroughTheHandler) {
  ReserveEnv env("64K");
  OnFreshThread([] {
    void *m = __scopealloc_mark();
    char *p = static_cast<char *>(__scopealloc_alloc(40960, 16));
    std::memset(p, 9, 40960);
    scopealloc_failure f;
    ASSERT_TRUE(CatchFailure([] { __scopealloc_alloc(40960, 16); }, &f));
    EXPECT_STREQ(f.pool, "workspace");
    EXPECT_STREQ(f.reason, "exhausted");
    EXPECT_EQ(f.requested, 40960u);
    EXPECT_EQ(f.alignment, 16u);
    EXPECT_EQ(f.available, 65536u - 40960u);
    EXPECT_EQ(f.peak, 40960u);
    EXPECT_EQ(f.capacity, 65536u);
    // The rest still fits exactly.
    EXPECT_NE(__scopealloc_alloc(65536 - 40960, 8), nullptr);
    __scopealloc_release(m);
  });
}

TEST(ThreadArenaDeathTest, SmallReservationExhaustionMessage) {
  EXPECT_DEATH(
      {
        setenv("SCOPEALLOC_RESERVE", "64K", 1);
        OnFreshThread([] { __scopealloc_alloc(128 * 1024, 16); });
      },
      "scopealloc: pool 'workspace' exhausted: requested 131072 bytes "
      "\\(align 16\\), available 65536, peak 0, capacity 65536");
}

TEST(ThreadArenaDeathTest, BadReserveValueNamesTheVariable) {
  for (const char *value : {"abc", "12X", "0", "-5", "1.5G", "99999999999999999999",
                            "99999999999G", "64KB"}) {
    EXPECT_DEATH(
        {
          setenv("SCOPEALLOC_RESERVE", value, 1);
          OnFreshThread([] { __scopealloc_mark(); });
        },
        "invalid SCOPEALLOC_RESERVE='" + std::string(value) + "'")
        << value;
  }
}

} // namespace
