// Named pools: fixed buffers, LIFO marks, alignment, exhaustion, ownership.
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "latch.h"
#include "scopealloc/scopealloc.h"

bool CatchFailure(const std::function<void()> &fn, scopealloc_failure *out);

SCOPEALLOC_DEFINE_POOL(t_lifo, 4096);
SCOPEALLOC_DEFINE_POOL(t_align, 64 * 1024);
SCOPEALLOC_DEFINE_POOL(t_small, 1024);
SCOPEALLOC_DEFINE_POOL(t_exact, 4096);
SCOPEALLOC_DEFINE_POOL(t_shared, 4096);
SCOPEALLOC_DEFINE_POOL_IN_SECTION(t_sectioned, 256, ".data.scopealloc_test");
alignas(64) static char g_over_buffer[512];
SCOPEALLOC_DEFINE_POOL_OVER(t_over, g_over_buffer, sizeof g_over_buffer);

namespace {

uintptr_t addr(const void *p) { return reinterpret_cast<uintptr_t>(p); }

// Every test leaves its pool empty, as the generated code would.
struct Emptied {
  scopealloc_pool *pool;
  ~Emptied() { __scopealloc_pool_release(pool, pool->base); }
};

TEST(NamedPool, StartsEmptyOverItsBuffer) {
  EXPECT_EQ(__scopealloc_pool_t_over.base, g_over_buffer);
  EXPECT_EQ(__scopealloc_pool_t_over.cur, g_over_buffer);
  EXPECT_EQ(__scopealloc_pool_t_over.limit, g_over_buffer + 512);
  EXPECT_EQ(__scopealloc_pool_t_over.reserve_end, g_over_buffer + 512);
  EXPECT_STREQ(__scopealloc_pool_t_over.name, "t_over");
  EXPECT_EQ(addr(__scopealloc_pool_t_lifo.base) % SCOPEALLOC_POOL_ALIGN, 0u);
  EXPECT_EQ(__scopealloc_pool_t_sectioned.limit -
                __scopealloc_pool_t_sectioned.base,
            256);
  // The ABI layout the inline fast path relies on.
  EXPECT_EQ(offsetof(scopealloc_pool, cur), 0u);
  EXPECT_EQ(offsetof(scopealloc_pool, limit), sizeof(void *));
}

TEST(NamedPool, LifoMarkAndRelease) {
  scopealloc_pool *pool = &__scopealloc_pool_t_lifo;
  Emptied guard{pool};
  void *m0 = __scopealloc_pool_mark(pool);
  EXPECT_EQ(m0, nullptr) << "this thread holds nothing in the pool yet";
  char *a = static_cast<char *>(__scopealloc_pool_alloc(pool, 100, 8));
  char *b = static_cast<char *>(__scopealloc_pool_alloc(pool, 200, 16));
  EXPECT_EQ(a, pool->base);
  EXPECT_GE(b, a + 100);
  EXPECT_EQ(addr(b) % 16, 0u);
  void *m1 = __scopealloc_pool_mark(pool);
  EXPECT_EQ(m1, b + 200);
  char *c = static_cast<char *>(__scopealloc_pool_alloc(pool, 50, 8));
  EXPECT_GE(c, b + 200);
  std::memset(a, 'a', 100);
  std::memset(b, 'b', 200);
  std::memset(c, 'c', 50);

  __scopealloc_pool_release(pool, m1); // frees c only
  EXPECT_EQ(__scopealloc_pool_mark(pool), m1);
  EXPECT_EQ(__scopealloc_pool_alloc(pool, 50, 8), c); // LIFO reuse
  for (int i = 0; i < 100; ++i)
    ASSERT_EQ(a[i], 'a');
  for (int i = 0; i < 200; ++i)
    ASSERT_EQ(b[i], 'b');

  // Releasing to an older mark frees everything allocated after it.
  __scopealloc_pool_release(pool, m0);
  EXPECT_EQ(pool->cur, pool->base);
  EXPECT_EQ(pool->owner, nullptr);
  EXPECT_EQ(__scopealloc_pool_alloc(pool, 100, 8), a);
}

TEST(NamedPool, AlignmentIsHonoured) {
  scopealloc_pool *pool = &__scopealloc_pool_t_align;
  Emptied guard{pool};
  for (size_t align : {0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048,
                       4096}) {
    for (size_t size : {1, 3, 17}) {
      void *before = pool->cur;
      char *p = static_cast<char *>(__scopealloc_pool_alloc(pool, size, align));
      size_t want = align ? align : 1;
      EXPECT_EQ(addr(p) % want, 0u) << "align " << align;
      EXPECT_EQ(addr(p) % 8, 0u) << "allocations start 8-aligned";
      EXPECT_GE(p, static_cast<char *>(before));
      EXPECT_LT(p - static_cast<char *>(before), static_cast<ptrdiff_t>(
                                                     want < 8 ? 8 : want));
      EXPECT_EQ(pool->cur, p + size);
      std::memset(p, 0x5a, size);
    }
  }
}

TEST(NamedPool, ZeroSizeGivesAPointerInsideThePool) {
  scopealloc_pool *pool = &__scopealloc_pool_t_lifo;
  Emptied guard{pool};
  __scopealloc_pool_alloc(pool, 3, 1);
  char *p = static_cast<char *>(__scopealloc_pool_alloc(pool, 0, 16));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(addr(p) % 16, 0u);
  EXPECT_GE(p, pool->base);
  EXPECT_LE(p, pool->limit);
  EXPECT_EQ(pool->cur, p);
}

TEST(NamedPool, ExactFitSucceedsOneMoreByteFails) {
  scopealloc_pool *pool = &__scopealloc_pool_t_exact;
  Emptied guard{pool};
  EXPECT_EQ(__scopealloc_pool_alloc(pool, 4096, 1), pool->base);
  EXPECT_EQ(__scopealloc_pool_alloc(pool, 0, 1), pool->limit);
  scopealloc_failure f;
  EXPECT_TRUE(CatchFailure([&] { __scopealloc_pool_alloc(pool, 1, 1); }, &f));
  EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_EXHAUSTED);
  EXPECT_EQ(f.available, 0u);
  EXPECT_EQ(f.capacity, 4096u);
}

TEST(NamedPool, ExhaustionCallsTheHandlerWithTheFacts) {
  scopealloc_pool *pool = &__scopealloc_pool_t_small;
  Emptied guard{pool};
  uint64_t failures = pool->failures;
  __scopealloc_pool_alloc(pool, 1000, 8);
  char *top = pool->cur;
  scopealloc_failure f;
  ASSERT_TRUE(
      CatchFailure([&] { __scopealloc_pool_alloc(pool, 4096, 16); }, &f));
  EXPECT_STREQ(f.pool, "t_small");
  EXPECT_STREQ(f.reason, "exhausted");
  EXPECT_EQ(f.requested, 4096u);
  EXPECT_EQ(f.alignment, 16u);
  EXPECT_EQ(f.available, 24u);
  EXPECT_EQ(f.peak, 1000u);
  EXPECT_EQ(f.capacity, 1024u);
  EXPECT_EQ(f.mark, nullptr);
  EXPECT_EQ(f.partition, nullptr) << "a plain pool";
  // Nothing moved; the failure is counted; the pool still works.
  EXPECT_EQ(pool->cur, top);
  EXPECT_EQ(pool->failures, failures + 1);
  EXPECT_NE(__scopealloc_pool_alloc(pool, 24, 8), nullptr);
}

TEST(NamedPool, HugeSizesAndAlignmentsDoNotWrapAround) {
  scopealloc_pool *pool = &__scopealloc_pool_t_small;
  Emptied guard{pool};
  __scopealloc_pool_alloc(pool, 5, 1);
  char *top = pool->cur;
  const size_t huge[] = {SIZE_MAX, SIZE_MAX - 4, SIZE_MAX - 4096,
                         SIZE_MAX / 2 + 1, ~addr(top) + 1};
  for (size_t size : huge) {
    scopealloc_failure f;
    ASSERT_TRUE(
        CatchFailure([&] { __scopealloc_pool_alloc(pool, size, 8); }, &f))
        << size;
    EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_EXHAUSTED);
    EXPECT_EQ(f.requested, size);
    EXPECT_EQ(pool->cur, top);
  }
  for (size_t align : {size_t(1) << 20, size_t(1) << 40, size_t(1) << 63}) {
    scopealloc_failure f;
    ASSERT_TRUE(
        CatchFailure([&] { __scopealloc_pool_alloc(pool, 8, align); }, &f));
    EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_EXHAUSTED);
    EXPECT_EQ(f.alignment, align);
    EXPECT_EQ(pool->cur, top);
  }
}

TEST(NamedPool, NonPowerOfTwoAlignmentIsReported) {
  scopealloc_pool *pool = &__scopealloc_pool_t_small;
  Emptied guard{pool};
  for (size_t align : {3, 6, 24, 100}) {
    scopealloc_failure f;
    ASSERT_TRUE(
        CatchFailure([&] { __scopealloc_pool_alloc(pool, 8, align); }, &f));
    EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_BAD_ALIGNMENT);
    EXPECT_EQ(f.alignment, align);
    EXPECT_EQ(pool->cur, pool->base);
    EXPECT_EQ(pool->owner, nullptr) << "a failed first request claims nothing";
  }
}

TEST(NamedPool, ReleaseOutsideThePoolIsReported) {
  scopealloc_pool *pool = &__scopealloc_pool_t_lifo;
  Emptied guard{pool};
  __scopealloc_pool_alloc(pool, 64, 8);
  char *top = pool->cur;
  // (NULL is no bad mark: it is the mark of a thread that held nothing.)
  for (char *bad : {top + 8, pool->base - 8, pool->limit + 1}) {
    scopealloc_failure f;
    ASSERT_TRUE(
        CatchFailure([&] { __scopealloc_pool_release(pool, bad); }, &f));
    EXPECT_STREQ(f.pool, "t_lifo");
    // Inside the pool above the top: a frame released already.
    EXPECT_STREQ(f.reason, bad == top + 8
                               ? "release of a mark above the top"
                               : "release of a mark outside the pool");
    EXPECT_EQ(f.mark, bad);
    EXPECT_EQ(pool->cur, top) << "a bad release must not move the top";
  }
}

TEST(NamedPool, SetHandlerReturnsThePreviousOne) {
  auto mine = [](const scopealloc_failure *) {};
  scopealloc_exhaustion_handler prev = scopealloc_set_exhaustion_handler(mine);
  EXPECT_EQ(prev, &scopealloc_default_exhaustion_handler);
  EXPECT_EQ(scopealloc_set_exhaustion_handler(nullptr),
            static_cast<scopealloc_exhaustion_handler>(mine));
  EXPECT_EQ(scopealloc_set_exhaustion_handler(nullptr),
            &scopealloc_default_exhaustion_handler);
}

TEST(NamedPoolDeathTest, DefaultHandlerPrintsAndAborts) {
  EXPECT_DEATH(
      {
        __scopealloc_pool_alloc(&__scopealloc_pool_t_small, 1000, 8);
        __scopealloc_pool_alloc(&__scopealloc_pool_t_small, 4096, 16);
      },
      "scopealloc: pool 't_small' exhausted: requested 4096 bytes \\(align "
      "16\\), available 24, peak 1000, capacity 1024");
}

TEST(NamedPoolDeathTest, BadReleaseMessage) {
  EXPECT_DEATH(
      {
        __scopealloc_pool_alloc(&__scopealloc_pool_t_small, 16, 8);
        __scopealloc_pool_release(&__scopealloc_pool_t_small,
                                  __scopealloc_pool_t_small.base + 512);
      },
      "scopealloc: pool 't_small': release of a mark above the top \\(mark "
      "0x[0-9a-f]+; 16 bytes in use, capacity 1024\\)");
}

TEST(NamedPoolDeathTest, HandlerThatReturnsAborts) {
  EXPECT_DEATH(
      {
        scopealloc_set_exhaustion_handler([](const scopealloc_failure *) {});
        __scopealloc_pool_alloc(&__scopealloc_pool_t_small, 2048, 8);
      },
      "exhaustion handler returned for pool 't_small' \\(exhausted\\); "
      "handlers must not return");
}

TEST(NamedPool, UseByASecondThreadWhileNonEmptyIsReported) {
  scopealloc_pool *pool = &__scopealloc_pool_t_shared;
  Latch holding, done_checking;
  char *held = nullptr;
  std::thread owner([&] {
    void *m = __scopealloc_pool_mark(pool);
    held = static_cast<char *>(__scopealloc_pool_alloc(pool, 128, 16));
    std::memset(held, 7, 128);
    holding.open();
    done_checking.wait();
    __scopealloc_pool_release(pool, m);
  });
  holding.wait();
  EXPECT_NE(pool->owner, nullptr);
  char *top = pool->cur;

  scopealloc_failure f;
  ASSERT_TRUE(
      CatchFailure([&] { __scopealloc_pool_alloc(pool, 64, 8); }, &f));
  EXPECT_STREQ(f.pool, "t_shared");
  EXPECT_STREQ(f.reason, "in use by another thread");
  EXPECT_EQ(f.requested, 64u);
  EXPECT_EQ(pool->cur, top);

  // Moving the other thread's top is as wrong as allocating.
  ASSERT_TRUE(
      CatchFailure([&] { __scopealloc_pool_release(pool, pool->base); }, &f));
  EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_IN_USE);
  EXPECT_EQ(pool->cur, top);
  for (int i = 0; i < 128; ++i)
    ASSERT_EQ(held[i], 7);

  done_checking.open();
  owner.join();
  // Empty again: nobody owns it, and this thread may use it.
  EXPECT_EQ(pool->cur, pool->base);
  EXPECT_EQ(pool->owner, nullptr);
  void *m = __scopealloc_pool_mark(pool);
  EXPECT_EQ(__scopealloc_pool_alloc(pool, 64, 8), pool->base);
  EXPECT_NE(pool->owner, nullptr);
  __scopealloc_pool_release(pool, m);
  EXPECT_EQ(pool->owner, nullptr);
}

TEST(NamedPool, ThreadsTakingTurnsAreFine) {
  scopealloc_pool *pool = &__scopealloc_pool_t_shared;
  for (int t = 0; t < 4; ++t) {
    std::thread([&] {
      for (int i = 0; i < 100; ++i) {
        void *m = __scopealloc_pool_mark(pool);
        char *p = static_cast<char *>(__scopealloc_pool_alloc(pool, 256, 32));
        p[0] = p[255] = static_cast<char>(i);
        __scopealloc_pool_alloc(pool, 100, 8);
        __scopealloc_pool_release(pool, m);
      }
    }).join();
    EXPECT_EQ(pool->owner, nullptr);
  }
}

// A frame that takes its mark while another thread holds the pool, and
// gets the pool once that thread is done, must still empty it on release:
// the top it would have marked was the other thread's.
TEST(NamedPool, MarkTakenWhileAnotherThreadHeldThePool) {
  scopealloc_pool *pool = &__scopealloc_pool_t_shared;
  Latch holding, marked;
  std::thread other([&] {
    void *m = __scopealloc_pool_mark(pool);
    std::memset(__scopealloc_pool_alloc(pool, 256, 16), 1, 256);
    holding.open();
    marked.wait();
    __scopealloc_pool_release(pool, m);
  });
  holding.wait();
  void *m = __scopealloc_pool_mark(pool);
  EXPECT_EQ(m, nullptr);
  // Not ours: releasing our (empty) mark now is a no-op, not a failure.
  __scopealloc_pool_release(pool, m);
  EXPECT_EQ(pool->cur, pool->base + 256);
  marked.open();
  other.join();
  char *p = static_cast<char *>(__scopealloc_pool_alloc(pool, 256, 16));
  EXPECT_EQ(p, pool->base);
  EXPECT_EQ(__scopealloc_pool_mark(pool), p + 256);
  __scopealloc_pool_release(pool, m);
  EXPECT_EQ(pool->cur, pool->base);
  EXPECT_EQ(pool->owner, nullptr) << "the pool is free for the next thread";
}

} // namespace
