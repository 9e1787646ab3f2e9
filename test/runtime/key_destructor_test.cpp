// Application pthread-key destructors that run demoted code in glibc's last
// destructor round, after the runtime's own destructor: the arena they make
// must not outlive the thread. And a shared library holding a copy of the
// runtime may be unloaded while threads that used it are still alive.
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <gtest/gtest.h>

#include "process_memory.h"
#include "scopealloc/scopealloc.h"

namespace {

// Several keys, all created after the runtime's (so in each round their
// destructors run after the runtime's). Each destructor sets its key again
// until the final round, PTHREAD_DESTRUCTOR_ITERATIONS, and only then runs
// a demoted-style frame: no later round exists to return that arena.
constexpr int kKeys = 3;
pthread_key_t g_keys[kKeys];
std::atomic<int> g_last_round_uses{0}, g_bad_memory{0};

template <int I> void LastRoundDestructor(void *value) {
  uintptr_t round = reinterpret_cast<uintptr_t>(value);
  if (round < PTHREAD_DESTRUCTOR_ITERATIONS) {
    pthread_setspecific(g_keys[I], reinterpret_cast<void *>(round + 1));
    return;
  }
  void *m = __scopealloc_mark();
  auto *p = static_cast<volatile char *>(__scopealloc_alloc(2 << 20, 64));
  p[0] = 1;
  p[(2 << 20) - 1] = 2;
  if (p[0] != 1 || p[(2 << 20) - 1] != 2)
    g_bad_memory++;
  __scopealloc_release(m);
  g_last_round_uses++;
}

void (*const kDestructors[kKeys])(void *) = {
    LastRoundDestructor<0>, LastRoundDestructor<1>, LastRoundDestructor<2>};

void *ThreadSettingKeys(void *) {
  void *m = __scopealloc_mark();
  __scopealloc_alloc(1000, 8);
  __scopealloc_release(m);
  for (int k = 0; k < kKeys; ++k)
    pthread_setspecific(g_keys[k], reinterpret_cast<void *>(1));
  return nullptr;
}

void RunThreads(int n) {
  for (int i = 0; i < n; ++i) {
    pthread_t t;
    if (pthread_create(&t, nullptr, ThreadSettingKeys, nullptr) != 0)
      std::abort();
    pthread_join(t, nullptr);
  }
}

// Run in a child with an alarm: without the fix, the dead threads' pools
// stay on the runtime's list of live threads and reading the totals may
// never finish.
void LastRoundArenas() {
  alarm(30);
  __scopealloc_mark(); // the runtime's key exists before ours
  for (int k = 0; k < kKeys; ++k)
    if (pthread_key_create(&g_keys[k], kDestructors[k]) != 0)
      std::exit(2);
  RunThreads(4);
  const sa_process_totals before = ProcessTotals();
  const int uses_before = g_last_round_uses.load();
  constexpr int kThreads = 100;
  RunThreads(kThreads);
  // Every thread has been joined, so has really ended: reading the totals
  // reclaims what it left.
  const sa_process_totals after = ProcessTotals();
  const int uses = g_last_round_uses.load() - uses_before;
  std::fprintf(stderr,
               "last-round uses %d, bad memory %d, reservations %llu -> %llu, "
               "live threads %llu -> %llu, threads +%llu\n",
               uses, g_bad_memory.load(),
               (unsigned long long)before.reservations,
               (unsigned long long)after.reservations,
               (unsigned long long)before.live_threads,
               (unsigned long long)after.live_threads,
               (unsigned long long)(after.threads - before.threads));
  const bool ok = uses == kThreads * kKeys && g_bad_memory == 0 &&
                  after.reservations == before.reservations &&
                  after.live_threads == before.live_threads &&
                  after.stats.current == before.stats.current &&
                  after.threads == before.threads + kThreads;
  std::exit(ok ? 0 : 1);
}

TEST(KeyDestructorDeathTest, ArenaMadeInTheLastRoundIsReturned) {
  EXPECT_EXIT(LastRoundArenas(), testing::ExitedWithCode(0),
              "last-round uses 300, bad memory 0");
}

// Also reclaimed by the next thread that makes an arena, without anyone
// asking for statistics.
TEST(KeyDestructor, NextArenaCreationReclaims) {
  __scopealloc_mark();
  for (int k = 0; k < kKeys; ++k)
    ASSERT_EQ(pthread_key_create(&g_keys[k], kDestructors[k]), 0);
  const ProcessMemory memory_before = ReadProcessMemory();
  RunThreads(50);
  const ProcessMemory memory_after = ReadProcessMemory();
  for (int k = 0; k < kKeys; ++k)
    pthread_key_delete(g_keys[k]);
  // 50 leaked arenas would be 50 x 3 mappings and 50 x 64 MiB. glibc keeps
  // the stacks of joined threads in a cache (up to 40 MiB, each a stack and
  // a guard mapping), so a few mappings more are not a leak.
  EXPECT_LE(memory_after.mappings, memory_before.mappings + 30);
  EXPECT_LT(memory_after.vm_size, memory_before.vm_size + (256 << 20));
}

// A shared library linking its own (static) copy of the runtime is used by
// threads that stay alive while it is dlclose'd; then they exit. Their exit
// must not call into the unloaded library (the runtime's key destructor).
// Run in a child: a crash there is the failure.
struct Holders {
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
  int used = 0;
  bool go = false;
  void *(*use)(void) = nullptr;
};

void *Holder(void *arg) {
  auto *h = static_cast<Holders *>(arg);
  h->use();
  pthread_mutex_lock(&h->lock);
  h->used++;
  pthread_cond_broadcast(&h->cond);
  while (!h->go)
    pthread_cond_wait(&h->cond, &h->lock);
  pthread_mutex_unlock(&h->lock);
  return nullptr;
}

void DlcloseWhileThreadsHoldArenas() {
  void *lib = dlopen(SCOPEALLOC_DLCLOSE_LIB, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    std::exit(2);
  }
  Holders h;
  h.use = reinterpret_cast<void *(*)(void)>(dlsym(lib, "dlclose_lib_use"));
  if (!h.use)
    std::exit(3);
  constexpr int kThreads = 4;
  pthread_t threads[kThreads];
  for (pthread_t &t : threads)
    if (pthread_create(&t, nullptr, Holder, &h) != 0)
      std::exit(4);
  pthread_mutex_lock(&h.lock);
  while (h.used < kThreads)
    pthread_cond_wait(&h.cond, &h.lock);
  pthread_mutex_unlock(&h.lock);
  if (dlclose(lib) != 0)
    std::exit(5);
  if (dlopen(SCOPEALLOC_DLCLOSE_LIB, RTLD_NOW | RTLD_NOLOAD)) {
    std::fprintf(stderr, "the library is still loaded\n");
    std::exit(6);
  }
  pthread_mutex_lock(&h.lock);
  h.go = true;
  pthread_cond_broadcast(&h.cond);
  pthread_mutex_unlock(&h.lock);
  for (pthread_t t : threads)
    pthread_join(t, nullptr);
  std::fprintf(stderr, "threads ended after dlclose\n");
  std::exit(0);
}

TEST(KeyDestructorDeathTest, DlcloseWhileThreadsHoldArenas) {
  EXPECT_EXIT(DlcloseWhileThreadsHoldArenas(), testing::ExitedWithCode(0),
              "threads ended after dlclose");
}

} // namespace
