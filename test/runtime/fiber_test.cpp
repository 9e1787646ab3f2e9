// Fiber arenas: ucontext fibers taking turns on one thread each allocate from
// their own arena (scopealloc_arena_switch), so one fiber's release never
// frees another's buffers; statistics travel with the arena; misuse (destroy
// while in use or not empty, a switch to another thread's arena) is reported
// naming the arena; thread exit and fork park what they must.
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "scopealloc/scopealloc.h"

bool CatchFailure(const std::function<void()> &fn, scopealloc_failure *out);

namespace {

constexpr size_t KiB = 1024;

// A demoted frame as the pass emits it: mark, allocate, (use), release.
struct Frame {
  void *mark;
  char *buf;
  size_t size;
  Frame(size_t n, char fill) : mark(__scopealloc_mark()), size(n) {
    buf = static_cast<char *>(__scopealloc_alloc(n, 16));
    std::memset(buf, fill, n);
  }
  bool Holds(char fill) const {
    for (size_t i = 0; i < size; i++)
      if (buf[i] != fill)
        return false;
    return true;
  }
  ~Frame() { __scopealloc_release(mark); }
};

// Two ucontext fibers and a scheduler that switches the arena with them.
struct Fibers {
  ucontext_t scheduler;
  ucontext_t ctx[2];
  std::vector<char> stack[2];
  scopealloc_arena *arena[2] = {nullptr, nullptr};
  bool use_arenas = true;
  bool intact[2] = {false, false};
  bool finished[2] = {false, false};
};
Fibers *g_fibers;

void Yield(int id) { swapcontext(&g_fibers->ctx[id], &g_fibers->scheduler); }

// Each fiber holds a buffer across every switch, opens and releases a second
// frame in between, and checks its buffer after the other fiber released
// frames of its own and the scheduler used its arena.
void FiberMain(int id) {
  {
    Frame held(4 * KiB, char('A' + id));
    {
      Frame inner(8 * KiB, char('a' + id));
      Yield(id);
      g_fibers->intact[id] = inner.Holds(char('a' + id));
    }
    Yield(id);
    g_fibers->intact[id] = g_fibers->intact[id] && held.Holds(char('A' + id));
  }
  g_fibers->finished[id] = true;
}

void Resume(int id) {
  Fibers &f = *g_fibers;
  scopealloc_arena *prev = nullptr;
  if (f.use_arenas)
    prev = scopealloc_arena_switch(f.arena[id]);
  swapcontext(&f.scheduler, &f.ctx[id]);
  if (f.use_arenas)
    EXPECT_EQ(scopealloc_arena_switch(prev), f.arena[id]);
  // The scheduler's own demoted work between fibers.
  Frame scribble(16 * KiB, char(0x5a));
}

// Runs both fibers to completion; returns whether both buffers survived.
bool RunTwoFibers(bool use_arenas) {
  Fibers f;
  g_fibers = &f;
  f.use_arenas = use_arenas;
  for (int id = 0; id < 2; id++) {
    f.stack[id].resize(64 * KiB);
    getcontext(&f.ctx[id]);
    f.ctx[id].uc_stack.ss_sp = f.stack[id].data();
    f.ctx[id].uc_stack.ss_size = f.stack[id].size();
    f.ctx[id].uc_link = &f.scheduler;
    makecontext(&f.ctx[id], reinterpret_cast<void (*)()>(FiberMain), 1, id);
    if (use_arenas)
      f.arena[id] = scopealloc_arena_create(1 << 20);
  }
  Frame own(2 * KiB, 'T'); // the thread's own frame, under everything
  for (int round = 0; round < 3; round++)
    for (int id = 0; id < 2; id++)
      if (!f.finished[id])
        Resume(id);
  EXPECT_TRUE(own.Holds('T'));
  for (int id = 0; id < 2; id++) {
    EXPECT_TRUE(f.finished[id]) << "fiber " << id;
    scopealloc_arena_destroy(f.arena[id]);
  }
  g_fibers = nullptr;
  return f.intact[0] && f.intact[1];
}

TEST(FiberArena, TwoUcontextFibersKeepTheirBuffers) {
  EXPECT_TRUE(RunTwoFibers(true));
}

// What the arenas fix: sharing the thread's arena, the first fiber's release
// frees the second's frames (the runtime reports the second one's release as
// a mark outside the pool, or its buffers are overwritten).
TEST(FiberArena, WithoutArenasFibersCorruptEachOther) {
  scopealloc_failure f;
  bool intact = true;
  bool failed = CatchFailure([&] { intact = RunTwoFibers(false); }, &f);
  EXPECT_TRUE(failed || !intact);
}

TEST(FiberArena, SwitchReturnsThePreviousArena) {
  scopealloc_arena *a = scopealloc_arena_create(0);
  scopealloc_arena *b = scopealloc_arena_create(64 * KiB);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(scopealloc_arena_current(), nullptr);
  EXPECT_EQ(scopealloc_arena_switch(a), nullptr);
  EXPECT_EQ(scopealloc_arena_current(), a);
  EXPECT_EQ(scopealloc_arena_switch(a), a); // already in: nothing changes
  EXPECT_EQ(scopealloc_arena_switch(b), a);
  EXPECT_EQ(scopealloc_arena_switch(nullptr), b);
  EXPECT_EQ(scopealloc_arena_current(), nullptr);
  scopealloc_arena_destroy(a);
  scopealloc_arena_destroy(b);
  scopealloc_arena_destroy(nullptr);
}

TEST(FiberArena, StatisticsTravelWithTheArena) {
  Frame own(1 * KiB, 'o');
  scopealloc_stats thread_before, process_before;
  scopealloc_thread_stats(&thread_before);
  scopealloc_process_stats(&process_before);

  scopealloc_arena *a = scopealloc_arena_create(256 * KiB);
  ASSERT_NE(a, nullptr);
  scopealloc_arena_switch(a);
  void *m = __scopealloc_mark();
  ASSERT_NE(__scopealloc_alloc(3 * KiB, 16), nullptr);
  ASSERT_NE(__scopealloc_alloc(1 * KiB, 16), nullptr);
  scopealloc_stats in;
  scopealloc_thread_stats(&in);
  EXPECT_EQ(std::string(in.name).rfind("workspace/fiber", 0), 0u) << in.name;
  EXPECT_EQ(in.current, 4 * KiB);
  EXPECT_EQ(in.allocs, 2u);
  EXPECT_EQ(in.capacity, 256 * KiB);
  scopealloc_process_stats(&in);
  // The fiber arena is counted once, and so is the thread's own (parked).
  EXPECT_EQ(in.current, process_before.current + 4 * KiB);
  EXPECT_EQ(in.allocs, process_before.allocs + 2);
  scopealloc_arena_switch(nullptr);

  scopealloc_stats parked;
  scopealloc_arena_stats(a, &parked);
  EXPECT_EQ(parked.current, 4 * KiB);
  EXPECT_EQ(parked.peak, 4 * KiB);
  EXPECT_EQ(parked.allocs, 2u);
  scopealloc_stats back;
  scopealloc_thread_stats(&back);
  EXPECT_STREQ(back.name, "workspace");
  EXPECT_EQ(back.current, thread_before.current);
  EXPECT_EQ(back.allocs, thread_before.allocs);
  scopealloc_process_stats(&back);
  EXPECT_EQ(back.current, process_before.current + 4 * KiB);
  EXPECT_EQ(back.allocs, process_before.allocs + 2);

  scopealloc_arena_switch(a);
  __scopealloc_release(m);
  scopealloc_arena_switch(nullptr);
  scopealloc_arena_destroy(a);
  // A destroyed arena's allocations still count, its bytes no longer do.
  scopealloc_process_stats(&back);
  EXPECT_EQ(back.current, process_before.current);
  EXPECT_EQ(back.allocs, process_before.allocs + 2);
}

TEST(FiberArena, ExhaustionNamesTheArena) {
  scopealloc_arena *a = scopealloc_arena_create(64 * KiB);
  ASSERT_NE(a, nullptr);
  scopealloc_stats s;
  scopealloc_arena_stats(a, &s);
  std::string name = s.name;
  scopealloc_arena *prev = scopealloc_arena_switch(a);
  scopealloc_failure f;
  ASSERT_TRUE(CatchFailure([] { __scopealloc_alloc(128 * KiB, 16); }, &f));
  scopealloc_arena_switch(prev);
  EXPECT_EQ(std::string(f.pool), name);
  EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_EXHAUSTED);
  EXPECT_EQ(f.capacity, 64 * KiB);
  EXPECT_EQ(f.available, 64 * KiB);
  scopealloc_arena_stats(a, &s);
  EXPECT_EQ(s.failures, 1u);
  scopealloc_arena_destroy(a);
}

TEST(FiberArenaDeathTest, ExhaustionMessageNamesTheArena) {
  EXPECT_DEATH(
      {
        scopealloc_arena_switch(scopealloc_arena_create(64 * KiB));
        __scopealloc_alloc(128 * KiB, 16);
      },
      "scopealloc: pool 'workspace/fiber[0-9]+' exhausted: requested 131072 "
      "bytes \\(align 16\\), available 65536, peak 0, capacity 65536");
}

TEST(FiberArena, DestroyingANonEmptyArenaIsReported) {
  scopealloc_arena *a = scopealloc_arena_create(64 * KiB);
  scopealloc_arena_switch(a);
  void *m = __scopealloc_mark();
  __scopealloc_alloc(100, 8);
  scopealloc_arena_switch(nullptr);
  scopealloc_failure f;
  ASSERT_TRUE(CatchFailure([a] { scopealloc_arena_destroy(a); }, &f));
  EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_ARENA_NOT_EMPTY);
  EXPECT_EQ(std::string(f.pool).rfind("workspace/fiber", 0), 0u);
  EXPECT_EQ(f.capacity - f.available, 100u);
  // Left alone: still usable, and destroyable once empty.
  scopealloc_arena_switch(a);
  __scopealloc_release(m);
  scopealloc_arena_switch(nullptr);
  scopealloc_arena_destroy(a);
}

TEST(FiberArena, DestroyingTheCurrentArenaIsReported) {
  scopealloc_arena *a = scopealloc_arena_create(64 * KiB);
  scopealloc_arena_switch(a);
  scopealloc_failure f;
  ASSERT_TRUE(CatchFailure([a] { scopealloc_arena_destroy(a); }, &f));
  EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_ARENA_CURRENT);
  EXPECT_EQ(scopealloc_arena_current(), a);
  scopealloc_arena_switch(nullptr);
  scopealloc_arena_destroy(a);
}

TEST(FiberArenaDeathTest, DestroyMessageNamesTheArena) {
  EXPECT_DEATH(
      {
        scopealloc_arena *a = scopealloc_arena_create(64 * KiB);
        scopealloc_arena_switch(a);
        __scopealloc_alloc(100, 8);
        scopealloc_arena_switch(nullptr);
        scopealloc_arena_destroy(a);
      },
      "scopealloc: pool 'workspace/fiber[0-9]+': arena destroyed while it "
      "holds allocations \\(100 bytes in use, peak 100, capacity 65536\\)");
}

// A destroyed arena's header is kept (quarantined, never freed): using it
// again is reported naming it, instead of reading freed memory.
TEST(FiberArena, DestroyingTwiceIsReported) {
  scopealloc_arena *a = scopealloc_arena_create(64 * KiB);
  ASSERT_NE(a, nullptr);
  scopealloc_stats s;
  scopealloc_arena_stats(a, &s);
  std::string name = s.name;
  scopealloc_arena_destroy(a);
  scopealloc_failure f;
  ASSERT_TRUE(CatchFailure([a] { scopealloc_arena_destroy(a); }, &f));
  EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_ARENA_DESTROYED);
  EXPECT_EQ(std::string(f.pool), name);
  ASSERT_TRUE(CatchFailure([a] { scopealloc_arena_stats(a, nullptr); }, &f));
  EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_ARENA_DESTROYED);
}

TEST(FiberArena, SwitchingToADestroyedArenaIsReported) {
  scopealloc_arena *a = scopealloc_arena_create(64 * KiB);
  ASSERT_NE(a, nullptr);
  scopealloc_arena_destroy(a);
  scopealloc_failure f;
  ASSERT_TRUE(CatchFailure([a] { scopealloc_arena_switch(a); }, &f));
  EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_ARENA_DESTROYED);
  EXPECT_EQ(std::string(f.pool).rfind("workspace/fiber", 0), 0u);
  // Nothing changed: the thread is still on its own arena.
  EXPECT_EQ(scopealloc_arena_current(), nullptr);
  Frame still(100, 'x');
  EXPECT_TRUE(still.Holds('x'));
}

// Still detected after many more arenas came and went, as long as fewer
// than the quarantine's length were destroyed since.
TEST(FiberArena, DestroyedArenaStaysDetectableAmidChurn) {
  scopealloc_arena *a = scopealloc_arena_create(64 * KiB);
  scopealloc_arena_destroy(a);
  for (int i = 0; i < 32; i++)
    scopealloc_arena_destroy(scopealloc_arena_create(64 * KiB));
  scopealloc_failure f;
  ASSERT_TRUE(CatchFailure([a] { scopealloc_arena_switch(a); }, &f));
  EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_ARENA_DESTROYED);
}

TEST(FiberArenaDeathTest, DoubleDestroyMessageNamesTheArena) {
  EXPECT_DEATH(
      {
        scopealloc_arena *a = scopealloc_arena_create(64 * KiB);
        scopealloc_arena_destroy(a);
        scopealloc_arena_destroy(a);
      },
      "scopealloc: pool 'workspace/fiber[0-9]+': arena used after it was "
      "destroyed \\(0 bytes in use, peak 0, capacity 65536\\)");
}

// Two contexts sharing one arena (fibers switching stacks without
// switching arenas): the first one's release frees the second's frame,
// whose own release then finds its mark above the top.
TEST(FiberArena, ReleaseAboveTheTopIsReported) {
  scopealloc_arena *a = scopealloc_arena_create(64 * KiB);
  scopealloc_arena_switch(a);
  void *first = __scopealloc_mark();
  __scopealloc_alloc(1000, 16);
  void *second = __scopealloc_mark();
  __scopealloc_alloc(2000, 16);
  __scopealloc_release(first);
  scopealloc_failure f;
  ASSERT_TRUE(CatchFailure([second] { __scopealloc_release(second); }, &f));
  EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_RELEASE_ABOVE_TOP);
  EXPECT_EQ(f.mark, second);
  EXPECT_EQ(std::string(f.pool).rfind("workspace/fiber", 0), 0u);
  // A mark outside the arena is still a bad release.
  char outside;
  ASSERT_TRUE(CatchFailure([&] { __scopealloc_release(&outside); }, &f));
  EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_BAD_RELEASE);
  scopealloc_arena_switch(nullptr);
  scopealloc_arena_destroy(a);
}

TEST(FiberArenaDeathTest, ReleaseAboveTheTopMessage) {
  EXPECT_DEATH(
      {
        void *first = __scopealloc_mark();
        __scopealloc_alloc(1000, 16);
        void *second = __scopealloc_mark();
        __scopealloc_alloc(2000, 16);
        __scopealloc_release(first);
        __scopealloc_release(second);
      },
      "scopealloc: pool 'workspace': release of a mark above the top "
      "\\(mark 0x[0-9a-f]+; [0-9]+ bytes in use, capacity [0-9]+\\)(.|\n)*"
      "belongs to another fiber or ucontext that shares this arena");
}

// One thread at a time: a switch to an arena another thread has in is
// reported; once that thread switches it out, the arena may move.
TEST(FiberArena, AnotherThreadsArenaIsInUseUntilParked) {
  scopealloc_arena *a = scopealloc_arena_create(64 * KiB);
  std::mutex mu;
  std::condition_variable cv;
  int step = 0;
  std::thread other([&] {
    scopealloc_arena_switch(a);
    void *m = __scopealloc_mark();
    __scopealloc_alloc(48, 8);
    {
      std::unique_lock<std::mutex> lock(mu);
      step = 1;
      cv.notify_all();
      cv.wait(lock, [&] { return step == 2; });
    }
    __scopealloc_release(m);
    scopealloc_arena_switch(nullptr);
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return step == 1; });
  }
  scopealloc_failure f;
  ASSERT_TRUE(CatchFailure([a] { scopealloc_arena_switch(a); }, &f));
  EXPECT_STREQ(f.reason, SCOPEALLOC_REASON_IN_USE);
  EXPECT_EQ(f.capacity - f.available, 48u);
  EXPECT_EQ(scopealloc_arena_current(), nullptr);
  {
    std::lock_guard<std::mutex> lock(mu);
    step = 2;
    cv.notify_all();
  }
  other.join();
  // Parked now: this thread may take it.
  EXPECT_EQ(scopealloc_arena_switch(a), nullptr);
  scopealloc_stats s;
  scopealloc_thread_stats(&s);
  EXPECT_EQ(s.allocs, 1u);
  EXPECT_EQ(s.current, 0u);
  scopealloc_arena_switch(nullptr);
  scopealloc_arena_destroy(a);
}

// A thread that exits with a fiber arena switched in parks it (its own arena
// is unmapped as usual); the arena stays usable.
TEST(FiberArena, ThreadExitParksTheArena) {
  scopealloc_arena *a = scopealloc_arena_create(64 * KiB);
  std::thread([a] {
    __scopealloc_mark(); // the thread has an arena of its own too
    scopealloc_arena_switch(a);
    __scopealloc_alloc(32, 8);
  }).join();
  std::thread([a] { scopealloc_arena_switch(a); }).join(); // no own arena
  scopealloc_stats s;
  scopealloc_arena_stats(a, &s);
  EXPECT_EQ(s.current, 32u);
  EXPECT_EQ(scopealloc_arena_switch(a), nullptr);
  __scopealloc_release(nullptr);
  scopealloc_arena_switch(nullptr);
  scopealloc_arena_destroy(a);
}

// fork: the forking thread keeps its arena switched in; an arena another
// thread had switched in is parked empty in the child and can be destroyed.
TEST(FiberArena, ForkParksOtherThreadsArenas) {
  scopealloc_arena *mine = scopealloc_arena_create(64 * KiB);
  scopealloc_arena *theirs = scopealloc_arena_create(64 * KiB);
  std::mutex mu;
  std::condition_variable cv;
  int step = 0;
  std::thread other([&] {
    Frame own(KiB, 'y');
    scopealloc_arena_switch(theirs);
    void *m = __scopealloc_mark();
    __scopealloc_alloc(64, 8);
    std::unique_lock<std::mutex> lock(mu);
    step = 1;
    cv.notify_all();
    cv.wait(lock, [&] { return step == 2; });
    __scopealloc_release(m);
    scopealloc_arena_switch(nullptr);
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return step == 1; });
  }
  scopealloc_arena_switch(mine);
  int status = -1;
  {
    Frame held(200, 'h');
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
      alarm(20);
      int bad = 0;
      bad |= scopealloc_arena_current() != mine;
      bad |= !held.Holds('h') << 1;
      scopealloc_stats s;
      scopealloc_arena_stats(theirs, &s);
      bad |= (s.current != 0) << 2;
      bad |= (scopealloc_arena_switch(theirs) != mine) << 3;
      bad |= (__scopealloc_alloc(64, 8) == nullptr) << 4;
      __scopealloc_release(nullptr);
      scopealloc_arena_switch(nullptr);
      scopealloc_arena_destroy(theirs);
      scopealloc_process_stats(&s); // takes the lock: fork left it free
      _exit(bad);
    }
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
  }
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  {
    std::lock_guard<std::mutex> lock(mu);
    step = 2;
    cv.notify_all();
  }
  other.join();
  scopealloc_arena_switch(nullptr);
  scopealloc_arena_destroy(mine);
  scopealloc_arena_destroy(theirs);
}

} // namespace
