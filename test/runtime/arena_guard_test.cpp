// Guard regions around every thread's arena: an overrun off either end of
// the default pool faults instead of writing into a neighbouring mapping
// (another thread's stack, TLS or arena).
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "scopealloc/scopealloc.h"

namespace {

constexpr uintptr_t kGuard = 64 * 1024; // the documented guard size

struct Mapping {
  uintptr_t lo = 0, hi = 0;
  std::string perms;
};

// The /proc/self/maps line that holds `a` (perms empty if none does).
Mapping MappingAt(uintptr_t a) {
  Mapping m;
  if (FILE *f = std::fopen("/proc/self/maps", "r")) {
    char line[4096];
    while (std::fgets(line, sizeof line, f)) {
      uintptr_t lo, hi;
      char perms[8];
      if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s", &lo, &hi, perms) ==
              3 &&
          lo <= a && a < hi) {
        m = {lo, hi, perms};
        break;
      }
    }
    std::fclose(f);
  }
  return m;
}

struct ArenaBounds {
  uintptr_t base, reserve_end;
};

// A fresh thread's arena bounds; the thread exits, but `keep` lets the
// caller look before that happens.
template <typename Fn> void WithFreshArena(Fn fn) {
  std::thread([&] {
    __scopealloc_mark();
    fn(ArenaBounds{
        reinterpret_cast<uintptr_t>(__scopealloc_tls_pool.base),
        reinterpret_cast<uintptr_t>(__scopealloc_tls_pool.reserve_end)});
  }).join();
}

// /proc/self/maps shows a PROT_NONE region of at least kGuard on each side.
TEST(ArenaGuard, MapsShowProtNoneNeighbours) {
  WithFreshArena([](ArenaBounds a) {
    const long page = sysconf(_SC_PAGESIZE);
    ASSERT_EQ(a.base % page, 0u);
    ASSERT_EQ(a.reserve_end % page, 0u);
    Mapping below = MappingAt(a.base - 1);
    EXPECT_EQ(below.perms, "---p") << "below base " << std::hex << a.base;
    EXPECT_LE(below.lo, a.base - kGuard);
    Mapping above = MappingAt(a.reserve_end);
    EXPECT_EQ(above.perms, "---p") << "above end " << std::hex << a.reserve_end;
    EXPECT_GE(above.hi, a.reserve_end + kGuard);
    // The arena itself starts committed.
    EXPECT_EQ(MappingAt(a.base).perms, "rw-p");
  });
}

// Same with an arena that is committed to its very end (1 MiB cap): the
// guard above is still there.
TEST(ArenaGuard, FullyCommittedArenaKeepsItsGuardAbove) {
  setenv("SCOPEALLOC_RESERVE", "1M", 1);
  WithFreshArena([](ArenaBounds a) {
    EXPECT_EQ(MappingAt(a.reserve_end - 1).perms, "rw-p");
    Mapping above = MappingAt(a.reserve_end);
    EXPECT_EQ(above.perms, "---p");
    EXPECT_EQ(above.lo, a.reserve_end);
    EXPECT_GE(above.hi, a.reserve_end + kGuard);
  });
  unsetenv("SCOPEALLOC_RESERVE");
}

// A write of one byte just below base, 64 KiB below base, at reserve_end or
// at the last byte of the guard above dies with SIGSEGV. The neighbours are
// made as in a real program: memory mapped before the arena (which mmap
// places just above it) and a thread started after it (its stack and TLS
// just below), so without guards these writes would land in them.
void *Sleep(void *) {
  for (;;)
    pause();
}

void WriteAt(ptrdiff_t from_base, ptrdiff_t from_end) {
  setenv("SCOPEALLOC_RESERVE", "1M", 1); // committed to the end
  void *above = mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (above == MAP_FAILED)
    std::exit(2);
  __scopealloc_mark();
  pthread_t neighbour;
  pthread_create(&neighbour, nullptr, Sleep, nullptr);
  char *p = from_end == 0 ? __scopealloc_tls_pool.base + from_base
                          : __scopealloc_tls_pool.reserve_end + from_end - 1;
  *static_cast<volatile char *>(p) = 1;
  std::fprintf(stderr, "survived the write\n");
  std::exit(0);
}

TEST(ArenaGuardDeathTest, WriteJustBelowBaseFaults) {
  EXPECT_EXIT(WriteAt(-1, 0), testing::KilledBySignal(SIGSEGV), "");
}
TEST(ArenaGuardDeathTest, WriteAtBottomOfGuardBelowFaults) {
  EXPECT_EXIT(WriteAt(-static_cast<ptrdiff_t>(kGuard), 0),
              testing::KilledBySignal(SIGSEGV), "");
}
TEST(ArenaGuardDeathTest, WriteAtReserveEndFaults) {
  EXPECT_EXIT(WriteAt(0, 1), testing::KilledBySignal(SIGSEGV), "");
}
TEST(ArenaGuardDeathTest, WriteAtTopOfGuardAboveFaults) {
  EXPECT_EXIT(WriteAt(0, static_cast<ptrdiff_t>(kGuard)),
              testing::KilledBySignal(SIGSEGV), "");
}

} // namespace
