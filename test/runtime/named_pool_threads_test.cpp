// Named pools and threads: shared pools (a partition per thread), their
// failures, and what a thread gives back when it exits (return, pthread_exit,
// cancellation), for shared and plain pools alike.
//
// Partitions stay with their thread until it exits, and the main thread
// never does: a test that lets the main thread use a pool gives that pool to
// no other test.
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "latch.h"
#include "scopealloc/scopealloc.h"

bool CatchFailure(const std::function<void()> &fn, scopealloc_failure *out);

SCOPEALLOC_DEFINE_POOL_SHARED(t_part4, 4 * 4096, 4096);
SCOPEALLOC_DEFINE_POOL_SHARED(t_part_small, 2 * 1024, 1000); // 1024 each
SCOPEALLOC_DEFINE_POOL_SHARED(t_part_small_death, 2 * 1024, 1000);
SCOPEALLOC_DEFINE_POOL_SHARED(t_part_two, 2 * 1024, 1024);
SCOPEALLOC_DEFINE_POOL_SHARED(t_part_two_death, 2 * 1024, 1024);
SCOPEALLOC_DEFINE_POOL_SHARED(t_exit_return, 1024, 1024);
SCOPEALLOC_DEFINE_POOL_SHARED(t_exit_pthread_exit, 1024, 1024);
SCOPEALLOC_DEFINE_POOL_SHARED(t_exit_cancel, 1024, 1024);
SCOPEALLOC_DEFINE_POOL_SHARED(t_part_lifo, 2 * 2048, 2048);
SCOPEALLOC_DEFINE_POOL_SHARED(t_part_stats, 4 * 1024, 1024);
SCOPEALLOC_DEFINE_POOL_SHARED(t_part_fork, 2 * 1024, 1024);
SCOPEALLOC_DEFINE_POOL_SHARED(t_part_two_pools_a, 2 * 1024, 1024);
SCOPEALLOC_DEFINE_POOL_SHARED(t_part_two_pools_b, 2 * 1024, 1024);
alignas(64) static char g_shared_over[3 * 512 + 100];
SCOPEALLOC_DEFINE_POOL_SHARED_OVER(t_part_over, g_shared_over,
                                   sizeof g_shared_over, 500);
SCOPEALLOC_DEFINE_POOL(t_set_later, 8192);
SCOPEALLOC_DEFINE_POOL(t_set_busy, 8192);
SCOPEALLOC_DEFINE_POOL(t_plain_return, 2048);
SCOPEALLOC_DEFINE_POOL(t_plain_pthread_exit, 2048);
SCOPEALLOC_DEFINE_POOL(t_plain_cancel, 2048);
SCOPEALLOC_DEFINE_POOL(t_plain_second, 1024);
SCOPEALLOC_DEFINE_POOL(t_plain_late_key, 1024);

namespace {

uintptr_t addr(const void *p) { return reinterpret_cast<uintptr_t>(p); }
long Tid() { return static_cast<long>(syscall(SYS_gettid)); }

// Everyone waits until `n` threads arrived (reusable, like pthread_barrier).
class Barrier {
public:
  explicit Barrier(int n) { pthread_barrier_init(&b_, nullptr, n); }
  ~Barrier() { pthread_barrier_destroy(&b_); }
  void wait() { pthread_barrier_wait(&b_); }

private:
  pthread_barrier_t b_;
};

size_t PartitionOf(const scopealloc_pool *pool, const void *p) {
  size_t bytes = 0;
  scopealloc_pool_partitions(pool, &bytes);
  return (addr(p) - addr(pool->base)) / bytes;
}

TEST(SharedPool, DefineMacrosCutThePool) {
  size_t bytes = 0;
  EXPECT_EQ(scopealloc_pool_partitions(&__scopealloc_pool_t_part4, &bytes), 4u);
  EXPECT_EQ(bytes, 4096u);
  // Rounded up to SCOPEALLOC_POOL_ALIGN: partitions start aligned like the
  // pool and share no cache line.
  EXPECT_EQ(scopealloc_pool_partitions(&__scopealloc_pool_t_part_small, &bytes),
            2u);
  EXPECT_EQ(bytes, 1024u);
  // Over a buffer of the application's: what is left over is not used.
  EXPECT_EQ(scopealloc_pool_partitions(&__scopealloc_pool_t_part_over, &bytes),
            3u);
  EXPECT_EQ(bytes, 512u);
  EXPECT_EQ(__scopealloc_pool_t_part_over.base, g_shared_over);
  // A plain pool has none.
  EXPECT_EQ(
      scopealloc_pool_partitions(&__scopealloc_pool_t_plain_return, &bytes),
      0u);
  EXPECT_EQ(bytes, 0u);
  // The fields the compiler reads are those of any pool.
  EXPECT_EQ(__scopealloc_pool_t_part4.cur, __scopealloc_pool_t_part4.base);
  EXPECT_EQ(__scopealloc_pool_t_part4.limit,
            __scopealloc_pool_t_part4.base + 4 * 4096);
  EXPECT_EQ(__scopealloc_pool_t_part4.bound, nullptr);
  EXPECT_STREQ(__scopealloc_pool_t_part4.name, "t_part4");
}

// Four threads use one shared pool at once, each with nested LIFO frames:
// each gets a partition of its own, and what one writes no other sees.
TEST(SharedPool, FourThreadsAllocateLifoAtOnce) {
  scopealloc_pool *pool = &__scopealloc_pool_t_part4;
  constexpr int kThreads = 4, kRounds = 300;
  Barrier barrier(kThreads);
  struct Seen {
    uintptr_t lo = 0, hi = 0; // what the thread held at the barrier
    size_t partition = 0;
    int bad = 0;
  } seen[kThreads];
  std::vector<std::thread> threads;
  for (int id = 0; id < kThreads; ++id)
    threads.emplace_back([&, id] {
      Seen &s = seen[id];
      for (int round = 0; round < kRounds; ++round) {
        void *m0 = __scopealloc_pool_mark(pool);
        if (round == 0 && m0 != nullptr)
          s.bad++; // holds nothing yet: the NULL mark
        auto *a = static_cast<unsigned char *>(
            __scopealloc_pool_alloc(pool, 1000, 64));
        std::memset(a, id + 1, 1000);
        void *m1 = __scopealloc_pool_mark(pool);
        auto *b = static_cast<unsigned char *>(
            __scopealloc_pool_alloc(pool, 2000, 16));
        std::memset(b, id + 101, 2000);
        if (addr(a) % 64 || addr(b) % 16 || addr(b) < addr(a) + 1000 ||
            m1 != a + 1000)
          s.bad++;
        if (round == 0) {
          s.lo = addr(a);
          s.hi = addr(b) + 2000;
          s.partition = PartitionOf(pool, a);
          barrier.wait(); // all four hold their frames now
        }
        for (int i = 0; i < 1000; i += 7)
          s.bad += a[i] != id + 1;
        for (int i = 0; i < 2000; i += 7)
          s.bad += b[i] != id + 101;
        __scopealloc_pool_release(pool, m1);
        if (__scopealloc_pool_mark(pool) != m1)
          s.bad++;
        // LIFO: the released bytes come back first.
        if (__scopealloc_pool_alloc(pool, 2000, 16) != b)
          s.bad++;
        __scopealloc_pool_release(pool, m0);
        if (round == 0)
          barrier.wait(); // nobody releases before everyone checked
      }
    });
  for (auto &t : threads)
    t.join();

  const uintptr_t base = addr(pool->base);
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(seen[i].bad, 0) << "thread " << i;
    ASSERT_LT(seen[i].partition, 4u);
    // Within the thread's partition.
    EXPECT_GE(seen[i].lo, base + 4096 * seen[i].partition);
    EXPECT_LE(seen[i].hi, base + 4096 * (seen[i].partition + 1));
    for (int j = 0; j < i; ++j) {
      EXPECT_NE(seen[i].partition, seen[j].partition);
      EXPECT_TRUE(seen[i].hi <= seen[j].lo || seen[j].hi <= seen[i].lo)
          << "threads " << j << " and " << i << " overlap";
    }
  }
  scopealloc_stats s;
  scopealloc_pool_stats(pool, &s);
  EXPECT_STREQ(s.name, "t_part4");
  EXPECT_EQ(s.current, 0u);
  EXPECT_EQ(s.allocs, uint64_t(kThreads) * kRounds * 3);
  EXPECT_EQ(s.failures, 0u);
  EXPECT_EQ(s.capacity, 4u * 4096);
  EXPECT_EQ(s.peak, 3008u) << "1000 + 8 of padding + 2000";
  for (size_t i = 0; i < 4; ++i) {
    ASSERT_EQ(scopealloc_pool_partition_stats(pool, i, &s), 0);
    EXPECT_EQ(s.allocs, uint64_t(kRounds) * 3) << i;
    EXPECT_EQ(s.capacity, 4096u);
  }
  EXPECT_EQ(scopealloc_pool_partition_stats(pool, 4, &s), -1);
}

// A thread keeps its partition while it uses another shared pool, and its
// marks in the first stay right (the per-thread cache holds one pool).
TEST(SharedPool, MarksStayRightAcrossPools) {
  scopealloc_pool *a = &__scopealloc_pool_t_part_two_pools_a;
  scopealloc_pool *b = &__scopealloc_pool_t_part_two_pools_b;
  std::thread([&] {
    void *ma = __scopealloc_pool_mark(a);
    char *x = static_cast<char *>(__scopealloc_pool_alloc(a, 100, 8));
    void *ma2 = __scopealloc_pool_mark(a);
    EXPECT_EQ(ma2, x + 100);
    void *mb = __scopealloc_pool_mark(b);
    char *y = static_cast<char *>(__scopealloc_pool_alloc(b, 200, 8));
    // Back in `a` (a frame nested in the one using `b`): the top is the
    // thread's, not NULL, so its release keeps x.
    void *ma3 = __scopealloc_pool_mark(a);
    EXPECT_EQ(ma3, x + 100);
    char *z = static_cast<char *>(__scopealloc_pool_alloc(a, 50, 8));
    EXPECT_EQ(z, x + 104);
    __scopealloc_pool_release(a, ma3);
    EXPECT_EQ(__scopealloc_pool_mark(b), y + 200);
    __scopealloc_pool_release(b, mb);
    EXPECT_EQ(__scopealloc_pool_mark(a), x + 100);
    __scopealloc_pool_release(a, ma);
    EXPECT_EQ(__scopealloc_pool_mark(a), x) << "the partition stays";
  }).join();
}

TEST(SharedPool, ExhaustionNamesThePartition) {
  scopealloc_pool *pool = &__scopealloc_pool_t_part_small;
  std::thread([&] {
    char *p = static_cast<char *>(__scopealloc_pool_alloc(pool, 1000, 8));
    char *top = p + 1000;
    scopealloc_failure f;
    ASSERT_TRUE(
        CatchFailure([&] { __scopealloc_pool_alloc(pool, 100, 8); }, &f));
    EXPECT_STREQ(f.pool, "t_part_small");
    EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_EXHAUSTED);
    // (CatchFailure copied the failure and longjmped: the partition record
    // is the thread's, still there.)
    ASSERT_NE(f.partition, nullptr);
    EXPECT_EQ(f.partition->index, PartitionOf(pool, p));
    EXPECT_EQ(f.partition->bytes, 1024u);
    EXPECT_EQ(f.partition->count, 2u);
    EXPECT_EQ(f.partition->thread, Tid());
    EXPECT_EQ(f.requested, 100u);
    EXPECT_EQ(f.alignment, 8u);
    EXPECT_EQ(f.available, 24u);
    EXPECT_EQ(f.peak, 1000u);
    EXPECT_EQ(f.capacity, 1024u);
    // Nothing moved, the failure is counted, the partition still works.
    EXPECT_EQ(__scopealloc_pool_mark(pool), top);
    EXPECT_NE(__scopealloc_pool_alloc(pool, 24, 8), nullptr);
    scopealloc_stats s;
    scopealloc_pool_stats(pool, &s);
    EXPECT_EQ(s.failures, 1u);
    scopealloc_pool_partition_stats(pool, f.partition->index, &s);
    EXPECT_EQ(s.failures, 1u);
  }).join();
}

TEST(SharedPoolDeathTest, ExhaustionMessageNamesThePartition) {
  EXPECT_DEATH(
      {
        scopealloc_pool *pool = &__scopealloc_pool_t_part_small_death;
        __scopealloc_pool_alloc(pool, 1000, 8);
        __scopealloc_pool_alloc(pool, 100, 8);
      },
      "scopealloc: pool 't_part_small_death' partition 0 \\(of 2, 1024 bytes "
      "each; thread [0-9]+\\) exhausted: requested 100 bytes \\(align 8\\), "
      "available 24, peak 1000, capacity 1024");
}

TEST(SharedPool, EveryPartitionTaken) {
  scopealloc_pool *pool = &__scopealloc_pool_t_part_two;
  Latch holding[2], done;
  std::vector<std::thread> holders;
  for (int i = 0; i < 2; ++i)
    holders.emplace_back([&, i] {
      void *m = __scopealloc_pool_mark(pool);
      std::memset(__scopealloc_pool_alloc(pool, 512, 8), i, 512);
      holding[i].open();
      done.wait();
      __scopealloc_pool_release(pool, m); // empty, but still theirs
    });
  holding[0].wait();
  holding[1].wait();
  std::thread([&] {
    scopealloc_failure f;
    ASSERT_TRUE(
        CatchFailure([&] { __scopealloc_pool_alloc(pool, 64, 8); }, &f));
    EXPECT_STREQ(f.pool, "t_part_two");
    EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_NO_PARTITION);
    ASSERT_NE(f.partition, nullptr);
    EXPECT_EQ(f.partition->index, SCOPEALLOC_NO_PARTITION);
    EXPECT_EQ(f.partition->bytes, 1024u);
    EXPECT_EQ(f.partition->count, 2u);
    EXPECT_EQ(f.partition->thread, Tid());
    EXPECT_EQ(f.requested, 64u);
    EXPECT_EQ(f.available, 0u);
    EXPECT_EQ(f.peak, 512u);
    EXPECT_EQ(f.capacity, 2048u);
    // It holds nothing: its mark is NULL and releasing it does nothing.
    void *m = __scopealloc_pool_mark(pool);
    EXPECT_EQ(m, nullptr);
    __scopealloc_pool_release(pool, m);
  }).join();
  scopealloc_stats s;
  scopealloc_pool_stats(pool, &s);
  EXPECT_EQ(s.current, 1024u);
  EXPECT_EQ(s.failures, 1u);
  done.open();
  for (auto &t : holders)
    t.join();
  // The holders are gone: a new thread finds a partition free.
  std::thread([&] {
    EXPECT_NE(__scopealloc_pool_alloc(pool, 1024, 8), nullptr);
  }).join();
  scopealloc_pool_stats(pool, &s);
  EXPECT_EQ(s.current, 0u);
}

TEST(SharedPoolDeathTest, EveryPartitionTakenMessage) {
  EXPECT_DEATH(
      {
        scopealloc_pool *pool = &__scopealloc_pool_t_part_two_death;
        Latch holding[2];
        for (int i = 0; i < 2; ++i)
          std::thread([&, i] {
            __scopealloc_pool_alloc(pool, 100, 8);
            holding[i].open();
            pause(); // holds it until the process ends
          }).detach();
        holding[0].wait();
        holding[1].wait();
        __scopealloc_pool_alloc(pool, 64, 8);
      },
      "scopealloc: pool 't_part_two_death': every partition is taken by "
      "another thread \\(2 partitions of 1024 bytes, peak 100; thread [0-9]+ "
      "requested 64 bytes \\(align 8\\)\\)\n"
      "scopealloc:   a thread keeps its partition until it exits");
}

// ---- Thread exit gives back what the thread held ----

enum class Exit { kReturn, kPthreadExit, kCancel };

struct Dying {
  std::vector<scopealloc_pool *> pools;
  size_t size;
  Exit how;
  int ready[2], block[2];
  std::vector<char *> got;
};

// Allocates `size` from each pool, never releases, and ends as told; a
// cancellation finds it blocked in read(), a cancellation point, with the
// frames still holding the memory.
void *DieHolding(void *arg) {
  auto *d = static_cast<Dying *>(arg);
  for (scopealloc_pool *pool : d->pools) {
    __scopealloc_pool_mark(pool);
    char *p = static_cast<char *>(__scopealloc_pool_alloc(pool, d->size, 16));
    std::memset(p, 0x5a, d->size);
    d->got.push_back(p);
  }
  if (d->how == Exit::kPthreadExit)
    pthread_exit(nullptr);
  if (d->how == Exit::kCancel) {
    char c = 1;
    if (write(d->ready[1], &c, 1) != 1)
      return nullptr;
    for (;;)
      if (read(d->block[0], &c, 1) <= 0) // cancelled in here
        break;
  }
  return nullptr;
}

// Runs DieHolding on a new thread until it is gone (joined).
void RunDying(Dying &d) {
  ASSERT_EQ(pipe(d.ready), 0);
  ASSERT_EQ(pipe(d.block), 0);
  pthread_t t;
  ASSERT_EQ(pthread_create(&t, nullptr, DieHolding, &d), 0);
  if (d.how == Exit::kCancel) {
    char c;
    ASSERT_EQ(read(d.ready[0], &c, 1), 1);
    ASSERT_EQ(pthread_cancel(t), 0);
  }
  void *result = nullptr;
  ASSERT_EQ(pthread_join(t, &result), 0);
  if (d.how == Exit::kCancel)
    EXPECT_EQ(result, PTHREAD_CANCELED);
  for (int fd : {d.ready[0], d.ready[1], d.block[0], d.block[1]})
    close(fd);
}

// A shared pool of one 1024-byte partition: the dead thread's partition,
// full when it died, is free and empty for the next thread, then for main.
void SharedPartitionComesBack(scopealloc_pool *pool, Exit how) {
  Dying d{{pool}, 1000, how, {}, {}, {}};
  RunDying(d);
  ASSERT_EQ(d.got.size(), 1u);
  EXPECT_EQ(d.got[0], pool->base);
  scopealloc_stats s;
  scopealloc_pool_stats(pool, &s);
  EXPECT_EQ(s.current, 0u);
  EXPECT_EQ(s.peak, 1000u);
  EXPECT_EQ(s.allocs, 1u);
  // A new thread gets the whole partition (the only one) back.
  std::thread([&] {
    EXPECT_EQ(__scopealloc_pool_mark(pool), nullptr);
    EXPECT_EQ(__scopealloc_pool_alloc(pool, 1024, 8), pool->base);
  }).join();
  // And so does the main thread, last (it keeps it).
  void *m = __scopealloc_pool_mark(pool);
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(__scopealloc_pool_alloc(pool, 1024, 8), pool->base);
  __scopealloc_pool_release(pool, m);
  scopealloc_pool_stats(pool, &s);
  EXPECT_EQ(s.current, 0u);
  EXPECT_EQ(s.allocs, 3u);
  EXPECT_EQ(s.failures, 0u);
}

TEST(SharedPoolExit, ReturnGivesThePartitionBack) {
  SharedPartitionComesBack(&__scopealloc_pool_t_exit_return, Exit::kReturn);
}
TEST(SharedPoolExit, PthreadExitGivesThePartitionBack) {
  SharedPartitionComesBack(&__scopealloc_pool_t_exit_pthread_exit,
                           Exit::kPthreadExit);
}
TEST(SharedPoolExit, CancellationInsideAFrameGivesThePartitionBack) {
  SharedPartitionComesBack(&__scopealloc_pool_t_exit_cancel, Exit::kCancel);
}

// Issue 20 item 13: a thread that ends while it owns a plain pool (here two,
// and a partition of a shared one) gives them back emptied; the next thread,
// which may get the dead thread's TLS block, does not pass for the owner.
void PlainPoolComesBack(scopealloc_pool *pool, Exit how) {
  scopealloc_pool *second = &__scopealloc_pool_t_plain_second;
  scopealloc_pool *shared = &__scopealloc_pool_t_part_lifo;
  Dying d{{pool, second, shared}, 1024, how, {}, {}, {}};
  RunDying(d);
  ASSERT_EQ(d.got.size(), 3u);
  for (scopealloc_pool *p : {pool, second}) {
    EXPECT_EQ(p->owner, nullptr) << p->name;
    EXPECT_EQ(p->cur, p->base) << p->name;
    scopealloc_stats s;
    scopealloc_pool_stats(p, &s);
    EXPECT_EQ(s.current, 0u) << p->name;
    EXPECT_EQ(s.peak, 1024u) << p->name;
  }
  scopealloc_stats s;
  scopealloc_pool_stats(shared, &s);
  EXPECT_EQ(s.current, 0u);
  // A new thread holds nothing in the pool, and gets all of it.
  std::thread([&] {
    EXPECT_EQ(__scopealloc_pool_mark(pool), nullptr);
    EXPECT_EQ(__scopealloc_pool_alloc(pool, 2048, 8), pool->base);
    __scopealloc_pool_release(pool, nullptr);
  }).join();
  // So does the main thread: the 1024 bytes came back.
  void *m = __scopealloc_pool_mark(pool);
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(__scopealloc_pool_alloc(pool, 2048, 8), pool->base);
  __scopealloc_pool_release(pool, m);
  EXPECT_EQ(pool->owner, nullptr);
  void *m2 = __scopealloc_pool_mark(second);
  EXPECT_EQ(__scopealloc_pool_alloc(second, 1024, 8), second->base);
  __scopealloc_pool_release(second, m2);
}

TEST(PlainPoolExit, OwnerReturningGivesThePoolBack) {
  PlainPoolComesBack(&__scopealloc_pool_t_plain_return, Exit::kReturn);
}
TEST(PlainPoolExit, OwnerCallingPthreadExitGivesThePoolBack) {
  PlainPoolComesBack(&__scopealloc_pool_t_plain_pthread_exit,
                     Exit::kPthreadExit);
}
TEST(PlainPoolExit, OwnerCancelledInsideAFrameGivesThePoolBack) {
  PlainPoolComesBack(&__scopealloc_pool_t_plain_cancel, Exit::kCancel);
}

// Demoted code in a pthread-key destructor that runs after the runtime's
// (created later, so later in the same round) claims the pool again: the
// next destructor round gives it back.
pthread_key_t g_late_key;
void UsePoolAndLeave(void *) {
  __scopealloc_pool_alloc(&__scopealloc_pool_t_plain_late_key, 100, 8);
}

TEST(PlainPoolExit, UseInALaterKeyDestructorIsGivenBack) {
  scopealloc_pool *pool = &__scopealloc_pool_t_plain_late_key;
  // The runtime's key exists before ours.
  std::thread([&] { __scopealloc_pool_alloc(pool, 8, 8); }).join();
  ASSERT_EQ(pthread_key_create(&g_late_key, UsePoolAndLeave), 0);
  std::thread([&] {
    void *m = __scopealloc_pool_mark(pool);
    __scopealloc_pool_alloc(pool, 200, 8);
    __scopealloc_pool_release(pool, m);
    pthread_setspecific(g_late_key, &g_late_key);
  }).join();
  pthread_key_delete(g_late_key);
  EXPECT_EQ(pool->owner, nullptr);
  EXPECT_EQ(pool->cur, pool->base);
  scopealloc_stats s;
  scopealloc_pool_stats(pool, &s);
  EXPECT_EQ(s.allocs, 3u);
  EXPECT_EQ(s.current, 0u);
}

// ---- Configuration at run time ----

TEST(SharedPool, SetPartitionAtRunTime) {
  scopealloc_pool *pool = &__scopealloc_pool_t_set_later;
  EXPECT_EQ(scopealloc_pool_set_partition(pool, 8193), EINVAL);
  EXPECT_EQ(scopealloc_pool_set_partition(pool, SIZE_MAX), EINVAL);
  EXPECT_EQ(scopealloc_pool_set_partition(pool, 0), 0) << "plain already";
  EXPECT_EQ(scopealloc_pool_partitions(pool, nullptr), 0u);
  // 3000 -> 3008 (a multiple of 64): two fit in 8192.
  ASSERT_EQ(scopealloc_pool_set_partition(pool, 3000), 0);
  size_t bytes = 0;
  EXPECT_EQ(scopealloc_pool_partitions(pool, &bytes), 2u);
  EXPECT_EQ(bytes, 3008u);
  // Before first use it may change, or become plain again.
  ASSERT_EQ(scopealloc_pool_set_partition(pool, 0), 0);
  EXPECT_EQ(scopealloc_pool_partitions(pool, nullptr), 0u);
  EXPECT_EQ(pool->owner, nullptr);
  ASSERT_EQ(scopealloc_pool_set_partition(pool, 4096), 0);
  EXPECT_EQ(scopealloc_pool_partitions(pool, &bytes), 2u);
  EXPECT_EQ(bytes, 4096u);
  Latch holding, done;
  char *first = nullptr;
  std::thread other([&] {
    first = static_cast<char *>(__scopealloc_pool_alloc(pool, 4096, 8));
    std::memset(first, 1, 4096);
    holding.open();
    done.wait();
  });
  holding.wait();
  // Used shared: the size stays (asking for the same size is fine).
  EXPECT_EQ(scopealloc_pool_set_partition(pool, 2048), EBUSY);
  EXPECT_EQ(scopealloc_pool_set_partition(pool, 0), EBUSY);
  EXPECT_EQ(scopealloc_pool_set_partition(pool, 4090), 0) << "4096 rounded";
  std::thread([&] {
    char *p = static_cast<char *>(__scopealloc_pool_alloc(pool, 4096, 8));
    EXPECT_EQ(p, first == pool->base ? pool->base + 4096 : pool->base);
  }).join();
  done.open();
  other.join();
}

TEST(SharedPool, SetPartitionRefusesAPoolInUse) {
  scopealloc_pool *pool = &__scopealloc_pool_t_set_busy;
  Latch holding, done;
  std::thread owner([&] {
    void *m = __scopealloc_pool_mark(pool);
    __scopealloc_pool_alloc(pool, 64, 8);
    holding.open();
    done.wait();
    __scopealloc_pool_release(pool, m);
  });
  holding.wait();
  EXPECT_EQ(scopealloc_pool_set_partition(pool, 1024), EBUSY);
  EXPECT_EQ(scopealloc_pool_partitions(pool, nullptr), 0u);
  done.open();
  owner.join();
  EXPECT_EQ(scopealloc_pool_set_partition(pool, 1024), 0);
  EXPECT_EQ(scopealloc_pool_partitions(pool, nullptr), 8u);
}

// ---- Statistics ----

TEST(SharedPool, StatisticsSumThePartitions) {
  scopealloc_pool *pool = &__scopealloc_pool_t_part_stats;
  Latch holding[2], done;
  std::vector<std::thread> threads;
  size_t index[2];
  for (int i = 0; i < 2; ++i)
    threads.emplace_back([&, i] {
      void *m = __scopealloc_pool_mark(pool);
      char *p =
          static_cast<char *>(__scopealloc_pool_alloc(pool, 300 * (i + 1), 8));
      index[i] = PartitionOf(pool, p);
      holding[i].open();
      done.wait();
      __scopealloc_pool_release(pool, m);
    });
  holding[0].wait();
  holding[1].wait();
  scopealloc_stats s;
  scopealloc_pool_stats(pool, &s);
  EXPECT_EQ(s.current, 900u);
  EXPECT_EQ(s.peak, 600u) << "the largest partition peak";
  EXPECT_EQ(s.capacity, 4096u);
  EXPECT_EQ(s.allocs, 2u);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(scopealloc_pool_partition_stats(pool, index[i], &s), 0);
    EXPECT_STREQ(s.name, "t_part_stats");
    EXPECT_EQ(s.current, 300u * (i + 1));
    EXPECT_EQ(s.peak, 300u * (i + 1));
    EXPECT_EQ(s.capacity, 1024u);
    EXPECT_EQ(s.allocs, 1u);
  }
  done.open();
  for (auto &t : threads)
    t.join();

  testing::internal::CaptureStderr();
  scopealloc_print_stats();
  std::string out = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(std::regex_search(
      out, std::regex("\n  t_part_stats +0 +600 +4096 +2 +0\n")))
      << out;
  for (int i = 0; i < 2; ++i)
    EXPECT_TRUE(std::regex_search(
        out, std::regex("\n    t_part_stats\\[" + std::to_string(index[i]) +
                        "\\] +0 +" + std::to_string(300 * (i + 1)) +
                        " +1024 +1 +0\n")))
        << out;
  // Partitions no thread used get no row.
  EXPECT_FALSE(
      std::regex_search(out, std::regex("t_part_stats\\[[0-9]+\\] +0 +0 ")))
      << out;
  EXPECT_NE(out.find("(t_part_stats: shared, 4 partitions of 1024 bytes, 2 "
                     "used; current/allocs/failures summed, peak = largest "
                     "partition peak, capacity of the whole pool)"),
            std::string::npos)
      << out;
}

// ---- fork ----

// A partition another thread holds at the fork is empty and free in the
// child; the forking thread keeps its own, data and all.
TEST(SharedPool, ForkFreesPartitionsOfThreadsThatDidNotSurvive) {
  scopealloc_pool *pool = &__scopealloc_pool_t_part_fork;
  void *m = __scopealloc_pool_mark(pool);
  char *mine = static_cast<char *>(__scopealloc_pool_alloc(pool, 700, 8));
  std::memset(mine, 'm', 700);
  Latch holding, done;
  char *theirs = nullptr;
  std::thread other([&] {
    theirs = static_cast<char *>(__scopealloc_pool_alloc(pool, 900, 8));
    std::memset(theirs, 'o', 900);
    holding.open();
    done.wait();
  });
  holding.wait();
  pid_t pid = fork();
  if (pid == 0) {
    scopealloc_stats s;
    scopealloc_pool_stats(pool, &s);
    if (s.current != 700 || mine[699] != 'm')
      _exit(2);
    if (__scopealloc_pool_mark(pool) != mine + 700)
      _exit(3);
    // The other thread's partition is free: a new thread gets it whole.
    char *got = nullptr;
    std::thread([&] {
      got = static_cast<char *>(__scopealloc_pool_alloc(pool, 1024, 8));
    }).join();
    if (got != pool->base + (theirs - pool->base) / 1024 * 1024)
      _exit(4);
    _exit(0);
  }
  ASSERT_GT(pid, 0);
  int status = -1;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  // The parent's are untouched.
  EXPECT_EQ(theirs[899], 'o');
  scopealloc_stats s;
  scopealloc_pool_stats(pool, &s);
  EXPECT_EQ(s.current, 1600u);
  done.open();
  other.join();
  __scopealloc_pool_release(pool, m);
  scopealloc_pool_stats(pool, &s);
  EXPECT_EQ(s.current, 0u);
}

} // namespace
