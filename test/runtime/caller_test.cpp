// A failure names the program's code that called the runtime:
// scopealloc_failure::caller is a return address inside the function that
// called the entry point (not inside the runtime), and the default handler
// prints that function's name. The test binary is linked with -rdynamic
// (ENABLE_EXPORTS), so dladdr names the extern "C" callers below.
#include <dlfcn.h>

#include <climits>
#include <cstdint>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "scopealloc/scopealloc.h"

bool CatchFailure(const std::function<void()> &fn, scopealloc_failure *out);

SCOPEALLOC_DEFINE_POOL(caller_test_pool, 4096);

// Each caller uses the runtime's result after the call, so the call is not
// a tail call and its return address stays inside the caller.
extern "C" {
void *volatile caller_test_sink;

__attribute__((noinline)) void caller_test_pool_alloc(size_t size) {
  caller_test_sink =
      __scopealloc_pool_alloc(&__scopealloc_pool_caller_test_pool, size, 8);
}

__attribute__((noinline)) void caller_test_pool_release(void *mark) {
  __scopealloc_pool_release(&__scopealloc_pool_caller_test_pool, mark);
  caller_test_sink = nullptr;
}

__attribute__((noinline)) void caller_test_alloc(size_t size) {
  caller_test_sink = __scopealloc_alloc(size, 16);
}

__attribute__((noinline)) void caller_test_release(void *mark) {
  __scopealloc_release(mark);
  caller_test_sink = nullptr;
}

#if SCOPEALLOC_RT_HAS_FRAME_SLOW
__attribute__((noinline)) void caller_test_frame_slow(size_t size) {
  scopealloc_frame f = __scopealloc_frame_slow(size, 16);
  caller_test_sink = f.frame;
}
#endif
}

namespace {

// The exported function that contains `addr`, by dladdr (as the default
// handler looks it up: the byte before the return address).
std::string FunctionAt(const void *addr) {
  Dl_info info;
  if (!addr || !dladdr(static_cast<const char *>(addr) - 1, &info) ||
      !info.dli_sname)
    return "";
  return info.dli_sname;
}

void ExpectCaller(const std::function<void()> &fn, const char *name,
                  const void *entry) {
  scopealloc_failure f;
  ASSERT_TRUE(CatchFailure(fn, &f)) << name;
  EXPECT_EQ(FunctionAt(f.caller), name);
  // Inside the function's code: after its entry, within a few hundred bytes.
  uintptr_t at = reinterpret_cast<uintptr_t>(f.caller);
  uintptr_t start = reinterpret_cast<uintptr_t>(entry);
  EXPECT_GT(at, start) << name;
  EXPECT_LT(at, start + 512) << name;
}

TEST(FailureCaller, NamedPoolAllocReportsItsCaller) {
  ExpectCaller([] { caller_test_pool_alloc(1 << 20); },
               "caller_test_pool_alloc",
               reinterpret_cast<const void *>(&caller_test_pool_alloc));
}

TEST(FailureCaller, NamedPoolBadReleaseReportsItsCaller) {
  // Own the pool first, so that the bad mark is this thread's mistake.
  void *m = __scopealloc_pool_mark(&__scopealloc_pool_caller_test_pool);
  caller_test_pool_alloc(64);
  ExpectCaller([] { caller_test_pool_release(reinterpret_cast<void *>(8)); },
               "caller_test_pool_release",
               reinterpret_cast<const void *>(&caller_test_pool_release));
  __scopealloc_pool_release(&__scopealloc_pool_caller_test_pool, m);
}

TEST(FailureCaller, DefaultPoolAllocReportsItsCaller) {
  ExpectCaller([] { caller_test_alloc(SIZE_MAX / 2); }, "caller_test_alloc",
               reinterpret_cast<const void *>(&caller_test_alloc));
}

TEST(FailureCaller, DefaultPoolBadReleaseReportsItsCaller) {
  __scopealloc_mark(); // the arena exists, so the mark is outside it
  ExpectCaller([] { caller_test_release(reinterpret_cast<void *>(8)); },
               "caller_test_release",
               reinterpret_cast<const void *>(&caller_test_release));
}

#if SCOPEALLOC_RT_HAS_FRAME_SLOW
TEST(FailureCaller, InlineFastPathSlowPathReportsItsCaller) {
  void *m = __scopealloc_mark();
  ExpectCaller([] { caller_test_frame_slow(SIZE_MAX / 2); },
               "caller_test_frame_slow",
               reinterpret_cast<const void *>(&caller_test_frame_slow));
  __scopealloc_release(m);
}
#endif

TEST(FailureCallerDeathTest, DefaultHandlerPrintsTheCallersName) {
  EXPECT_DEATH(caller_test_pool_alloc(1 << 20),
               "scopealloc: pool 'caller_test_pool' exhausted: requested "
               "1048576 bytes \\(align 8\\), available 4096, peak 0, "
               "capacity 4096\nscopealloc:   called from "
               "caller_test_pool_alloc\\+0x[0-9a-f]+ \\(.*\\)");
}

} // namespace
