// The runtime's declarations as programs see them: what the attributes of
// <scopealloc/abi.h> and <scopealloc/scopealloc.h> promise reaches the
// compiler. (The other runtime tests build with
// SCOPEALLOC_NO_RESULT_ATTRIBUTES, so that their own checks of alignment and
// NULL test the runtime instead of being folded away.)
#undef SCOPEALLOC_NO_RESULT_ATTRIBUTES
#include "scopealloc/scopealloc.h"

#include <gtest/gtest.h>

#include <utility>

SCOPEALLOC_DEFINE_POOL(attributes_pool, 4096);

namespace {

// Nothing the runtime does throws, and handlers must not: noexcept in C++.
static_assert(noexcept(__scopealloc_mark()), "__scopealloc_mark");
static_assert(noexcept(__scopealloc_alloc(1, 8)), "__scopealloc_alloc");
static_assert(noexcept(__scopealloc_release(nullptr)), "__scopealloc_release");
static_assert(noexcept(__scopealloc_frame_slow(1, 8)),
              "__scopealloc_frame_slow");
static_assert(noexcept(__scopealloc_pool_mark(nullptr)), "pool_mark");
static_assert(noexcept(__scopealloc_pool_alloc(nullptr, 1, 8)), "pool_alloc");
static_assert(noexcept(__scopealloc_pool_release(nullptr, nullptr)),
              "pool_release");
static_assert(noexcept(__scopealloc_note_frame(nullptr, nullptr)),
              "note_frame");
static_assert(noexcept(scopealloc_set_exhaustion_handler(nullptr)),
              "set_exhaustion_handler");
static_assert(noexcept(scopealloc_default_exhaustion_handler(nullptr)),
              "default_exhaustion_handler");
static_assert(noexcept(scopealloc_thread_stats(nullptr)), "thread_stats");
static_assert(noexcept(scopealloc_process_stats(nullptr)), "process_stats");
static_assert(noexcept(scopealloc_pool_stats(nullptr, nullptr)), "pool_stats");
static_assert(noexcept(scopealloc_print_stats()), "print_stats");
static_assert(noexcept(scopealloc_arena_create(0)), "arena_create");
static_assert(noexcept(scopealloc_arena_switch(nullptr)), "arena_switch");
static_assert(noexcept(scopealloc_arena_current()), "arena_current");
static_assert(noexcept(scopealloc_arena_destroy(nullptr)), "arena_destroy");
static_assert(noexcept(scopealloc_arena_stats(nullptr, nullptr)),
              "arena_stats");
// The callback may throw, and its exception passes through.
static_assert(!noexcept(scopealloc_for_each_pool(nullptr, nullptr)),
              "for_each_pool");

// Handlers are plain function pointers: a lambda that is not noexcept (a
// handler that longjmps, say) still converts.
static_assert(!noexcept(std::declval<scopealloc_exhaustion_handler>()(nullptr)),
              "handler type");

// alloc_size: the object size of an allocation is its size argument.
TEST(Attributes, AllocationSizeIsKnown) {
  void *m = __scopealloc_mark();
  char *p = static_cast<char *>(__scopealloc_alloc(100, 64));
  EXPECT_EQ(__builtin_dynamic_object_size(p, 0), 100u);
  __scopealloc_release(m);

  scopealloc_pool *pool = &__scopealloc_pool_attributes_pool;
  void *pm = __scopealloc_pool_mark(pool);
  char *q = static_cast<char *>(__scopealloc_pool_alloc(pool, 48, 16));
  EXPECT_EQ(__builtin_dynamic_object_size(q, 0), 48u);
  __scopealloc_pool_release(pool, pm);
}

} // namespace
