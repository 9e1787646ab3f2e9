#include <csetjmp>
#include <functional>

#include <gtest/gtest.h>

#include "scopealloc/scopealloc.h"

namespace {
thread_local std::jmp_buf *t_jump;
thread_local scopealloc_failure t_failure;

void jump_handler(const scopealloc_failure *f) {
  t_failure = *f;
  std::longjmp(*t_jump, 1);
}
} // namespace

// Declared in each test file: runs `fn` with a handler that longjmps back
// here; returns whether the runtime reported a failure (copied to *out). The
// handler is process-wide, so only the calling thread may fail meanwhile.
bool CatchFailure(const std::function<void()> &fn, scopealloc_failure *out) {
  std::jmp_buf env;
  std::jmp_buf *volatile saved = t_jump;
  t_jump = &env;
  scopealloc_exhaustion_handler prev =
      scopealloc_set_exhaustion_handler(jump_handler);
  bool failed = false;
  if (setjmp(env) != 0)
    failed = true;
  else
    fn();
  scopealloc_set_exhaustion_handler(prev);
  t_jump = saved;
  if (failed && out)
    *out = t_failure;
  return failed;
}

int main(int argc, char **argv) {
  // Death tests re-execute the binary: the tests start threads, and forking
  // a multi-threaded process is what the "fast" style warns about.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Byte-exact figures and exact counts, as SCOPEALLOC_STATS=1 gives them:
  // what the tests assert. Tests of the default mode (the granule, the inline
  // fast path's bound) turn this off themselves (fast_path_test.cpp).
  scopealloc_set_exact_stats(1);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
