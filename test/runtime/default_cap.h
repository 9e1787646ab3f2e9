// The default per-thread cap of the workspace pool, as docs/runtime.md says:
// 8 x the soft RLIMIT_STACK, at least 64 MiB and at most 1 GiB (1 GiB when
// the stack is unlimited); 16 MiB to 256 MiB on 32-bit hosts.
#ifndef SCOPEALLOC_TEST_DEFAULT_CAP_H
#define SCOPEALLOC_TEST_DEFAULT_CAP_H

#include <sys/resource.h>

#include <cstddef>
#include <cstdint>

inline size_t ExpectedDefaultCap(rlim_t soft_stack) {
  const bool wide = sizeof(void *) == 8;
  const uint64_t lo = wide ? uint64_t(64) << 20 : uint64_t(16) << 20;
  const uint64_t hi = wide ? uint64_t(1) << 30 : uint64_t(256) << 20;
  if (soft_stack == RLIM_INFINITY || soft_stack >= hi / 8)
    return size_t(hi);
  uint64_t cap = uint64_t(soft_stack) * 8;
  return size_t(cap < lo ? lo : cap);
}

// The default cap under this process's current RLIMIT_STACK.
inline size_t ExpectedDefaultCap() {
  struct rlimit rl;
  getrlimit(RLIMIT_STACK, &rl);
  return ExpectedDefaultCap(rl.rlim_cur);
}

#endif
