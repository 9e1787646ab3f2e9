// The default pool as the inline fast path needs it, with exact counts off
// (the default outside this test binary, whose main turns them on): the top
// stays a multiple of SCOPEALLOC_DEFAULT_POOL_GRANULE, and `bound` is the
// high-water mark, or NULL while exact counts are on or a ragged top from
// that time may still be live. The fast path itself (compiled code) is
// tested end to end in test/e2e/inline-fast-path-*.c.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "scopealloc/scopealloc.h"

namespace {

constexpr uintptr_t Granule = SCOPEALLOC_DEFAULT_POOL_GRANULE;

// Exact counts set for the scope of a test, restored after it.
struct ExactCounts {
  explicit ExactCounts(int On) : Was(scopealloc_set_exact_stats(On)) {}
  ~ExactCounts() { scopealloc_set_exact_stats(Was); }
  int Was;
};

scopealloc_pool &pool() { return __scopealloc_tls_pool; }
size_t used() { return size_t(pool().cur - pool().base); }
bool onGrid(const void *P) { return (uintptr_t(P) & (Granule - 1)) == 0; }

TEST(FastPath, SetExactStatsReturnsThePreviousSetting) {
  ExactCounts Off(0);
  EXPECT_EQ(scopealloc_set_exact_stats(1), 0);
  EXPECT_EQ(scopealloc_set_exact_stats(7), 1);
  EXPECT_EQ(scopealloc_set_exact_stats(0), 1);
}

TEST(FastPath, CountsOffRoundEveryAllocationToTheGranule) {
  ExactCounts Off(0);
  std::thread([] {
    void *M = __scopealloc_mark();
    void *A = __scopealloc_alloc(100, 8);
    EXPECT_TRUE(onGrid(A));
    EXPECT_EQ(used(), 112u);
    void *B = __scopealloc_alloc(1, 1);
    EXPECT_EQ(static_cast<char *>(B), static_cast<char *>(A) + 112);
    void *C = __scopealloc_alloc(0, 64);
    EXPECT_EQ(uintptr_t(C) % 64, 0u);
    EXPECT_TRUE(onGrid(pool().cur));
    scopealloc_stats S;
    scopealloc_thread_stats(&S);
    EXPECT_EQ(S.current, used());
    EXPECT_EQ(S.peak, used());
    EXPECT_EQ(S.allocs, 3u);
    __scopealloc_release(M);
    EXPECT_EQ(used(), 0u);
  }).join();
}

// Exact counts: the peak is the last byte asked for; the top stays a
// multiple of 8 (where the next allocation starts anyway), so that a frame
// aligned to at most 8 starts at the top and the compiler may release it to
// its own start. `current` counts to the top, or to the peak below it.
TEST(FastPath, CountsOnKeepThePeakAsAskedForAndTheTopOn8) {
  ExactCounts On(1);
  std::thread([] {
    void *A = __scopealloc_alloc(100, 8);
    EXPECT_EQ(used(), 104u);
    scopealloc_stats S;
    scopealloc_thread_stats(&S);
    EXPECT_EQ(S.peak, 100u);
    EXPECT_EQ(S.current, 100u);
    void *B = __scopealloc_alloc(4, 4);
    EXPECT_EQ(static_cast<char *>(B), static_cast<char *>(A) + 104);
    EXPECT_EQ(used(), 112u);
    scopealloc_thread_stats(&S);
    EXPECT_EQ(S.peak, 108u);
    EXPECT_EQ(S.current, 108u);
    __scopealloc_release(B);
    scopealloc_thread_stats(&S);
    EXPECT_EQ(S.current, 104u); // below the peak: to the top
    __scopealloc_release(nullptr);
  }).join();
}

// Rounding must not turn a request that fits into a wrap or an overrun: the
// last bytes of the reservation can still be had.
TEST(FastPath, RoundingStaysInsideTheReservation) {
  ExactCounts Off(0);
  std::thread([] {
    __scopealloc_mark();
    size_t Room = size_t(pool().reserve_end - pool().cur);
    void *P = __scopealloc_alloc(Room - 3, 16);
    EXPECT_EQ(static_cast<char *>(P), pool().base);
    EXPECT_EQ(pool().cur, pool().reserve_end);
    __scopealloc_release(nullptr);
  }).join();
}

TEST(FastPath, BoundIsTheHighWaterMark) {
  ExactCounts Off(0);
  std::thread([] {
    EXPECT_EQ(pool().bound, nullptr); // no arena yet: the slow path
    void *M = __scopealloc_mark();
    EXPECT_EQ(pool().bound, pool().base);
    __scopealloc_alloc(2048, 16);
    EXPECT_EQ(pool().bound, pool().high);
    EXPECT_EQ(pool().bound, pool().base + 2048);
    __scopealloc_release(M);
    __scopealloc_alloc(1000, 16); // under the peak: the bound stays
    EXPECT_EQ(pool().bound, pool().base + 2048);
    __scopealloc_alloc(4096, 16); // a new peak: the bound follows
    EXPECT_EQ(pool().bound, pool().high);
    EXPECT_EQ(pool().bound, pool().base + 1008 + 4096);
    __scopealloc_release(M);
  }).join();
}

TEST(FastPath, CountsOnCloseTheFastPath) {
  ExactCounts Off(0);
  std::thread([] {
    __scopealloc_alloc(64, 16);
    EXPECT_NE(pool().bound, nullptr);
    {
      ExactCounts On(1);
      EXPECT_EQ(pool().bound, nullptr); // at once, for the calling thread
      __scopealloc_alloc(64, 16);
      EXPECT_EQ(pool().bound, nullptr);
    }
    // The next allocation reopens it.
    __scopealloc_alloc(64, 16);
    EXPECT_EQ(pool().bound, pool().high);
    __scopealloc_release(nullptr);
  }).join();
}

// Another thread's open fast path is closed while it waits, so that its next
// frame is counted; turned off, its next allocation opens it again.
TEST(FastPath, CountsOnReachOtherThreads) {
  ExactCounts Off(0);
  std::mutex Mu;
  std::condition_variable Cv;
  int Step = 0;
  scopealloc_pool *Other = nullptr;
  auto WaitFor = [&](int S) {
    std::unique_lock<std::mutex> L(Mu);
    Cv.wait(L, [&] { return Step >= S; });
  };
  auto Go = [&](int S) {
    {
      std::lock_guard<std::mutex> L(Mu);
      Step = S;
    }
    Cv.notify_all();
  };
  std::thread T([&] {
    __scopealloc_alloc(256, 16);
    Other = &pool();
    Go(1);
    WaitFor(2);
    __scopealloc_alloc(16, 16);
    Go(3);
    WaitFor(4);
    __scopealloc_release(nullptr);
  });
  WaitFor(1);
  EXPECT_EQ(Other->bound, Other->high);
  scopealloc_set_exact_stats(1);
  EXPECT_EQ(Other->bound, nullptr);
  scopealloc_set_exact_stats(0);
  EXPECT_EQ(Other->bound, nullptr); // until its next allocation
  Go(2);
  WaitFor(3);
  EXPECT_EQ(Other->bound, Other->high);
  Go(4);
  T.join();
}

// An allocation with a ragged size made while exact counts were on keeps
// the fast path closed (a frame bumped inline would start off the grid)
// until an allocation starts from at or below it again.
TEST(FastPath, RaggedTopsKeepTheFastPathClosedUntilReleased) {
  ExactCounts Off(0);
  std::thread([] {
    __scopealloc_alloc(32, 16);
    void *M = __scopealloc_mark();
    {
      ExactCounts On(1);
      __scopealloc_alloc(100, 8);
      void *Inner = __scopealloc_mark();
      EXPECT_FALSE(onGrid(Inner));
      __scopealloc_alloc(1, 1);
      __scopealloc_release(Inner); // a ragged mark
    }
    void *Ragged = __scopealloc_mark();
    void *P = __scopealloc_alloc(64, 16); // off, above the ragged top
    EXPECT_TRUE(onGrid(P));
    EXPECT_TRUE(onGrid(pool().cur));
    EXPECT_EQ(pool().bound, nullptr);
    __scopealloc_release(Ragged);
    EXPECT_FALSE(onGrid(pool().cur));
    __scopealloc_alloc(64, 16);
    EXPECT_EQ(pool().bound, nullptr);
    __scopealloc_release(M); // everything from that time is gone
    __scopealloc_alloc(64, 16);
    EXPECT_EQ(pool().bound, pool().high);
    EXPECT_TRUE(onGrid(pool().cur));
    __scopealloc_release(nullptr);
  }).join();
}

// A fiber arena parked while exact counts were turned on gets its fast path
// closed when it is switched in.
TEST(FastPath, FiberArenasSwitchedInAfterCountsOnAreClosed) {
  ExactCounts Off(0);
  std::thread([] {
    scopealloc_arena *A = scopealloc_arena_create(1 << 20);
    ASSERT_NE(A, nullptr);
    scopealloc_arena_switch(A);
    __scopealloc_alloc(64, 16);
    EXPECT_EQ(pool().bound, pool().high);
    __scopealloc_release(nullptr);
    scopealloc_arena_switch(nullptr); // parked with its fast path open
    {
      ExactCounts On(1);
      scopealloc_arena_switch(A);
      EXPECT_EQ(pool().bound, nullptr);
      scopealloc_arena_switch(nullptr);
    }
    scopealloc_arena_destroy(A);
  }).join();
}

} // namespace
