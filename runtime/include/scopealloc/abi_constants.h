/* The runtime ABI in one place: the constants that the C runtime
 * (<scopealloc/abi.h>) and the compiler plugin
 * (plugin/transform/RuntimeABI.cpp, WorkspacePromotion.cpp) must agree on.
 * Plain #defines, so that C and C++ include it alike; abi.h ties the field
 * indices to the struct with static assertions. */
#ifndef SCOPEALLOC_ABI_CONSTANTS_H
#define SCOPEALLOC_ABI_CONSTANTS_H

/* Bumped whenever struct scopealloc_pool or an entry point changes; it is
 * the shared runtime's SOVERSION (runtime/CMakeLists.txt reads it here). */
#define SCOPEALLOC_ABI_VERSION 4

#define SCOPEALLOC_ABI_CAT_(A, B) A##B
#define SCOPEALLOC_ABI_CAT(A, B) SCOPEALLOC_ABI_CAT_(A, B)
#define SCOPEALLOC_ABI_STR_(X) #X
#define SCOPEALLOC_ABI_STR(X) SCOPEALLOC_ABI_STR_(X)

/* Defined by every runtime (a const char); every module the pass rewrites
 * references it, so linking against a runtime of another ABI version fails
 * with "undefined symbol: __scopealloc_abi_v<N>". */
#define SCOPEALLOC_ABI_VERSION_SYMBOL                                          \
  SCOPEALLOC_ABI_CAT(__scopealloc_abi_v, SCOPEALLOC_ABI_VERSION)
#define SCOPEALLOC_ABI_VERSION_SYMBOL_NAME                                     \
  SCOPEALLOC_ABI_STR(SCOPEALLOC_ABI_VERSION_SYMBOL)

/* The guarded fast path (hosted Linux): a default-pool frame of at most
 * this many bytes skips the comparison with the pool's bound and relies on
 * the guard region the runtime maps above every arena (at least this much
 * plus a page), by storing SCOPEALLOC_GUARD_MARKER (nonzero) at the byte
 * just above the frame before it moves `cur`. The runtime commits the
 * arena, or reports its exhaustion, from the fault that store takes, and
 * reads the peak as the highest nonzero byte above `high`. */
#define SCOPEALLOC_GUARDED_FRAME_MAX 16384
#define SCOPEALLOC_GUARD_MARKER 0xa5

/* Every allocation starts at least this aligned (the inline fast path
 * rounds up to it, as the runtime does). */
#define SCOPEALLOC_MIN_ALIGN 8
/* The alignment of the buffers SCOPEALLOC_DEFINE_POOL and its siblings
 * define: a pool's first frame needs no padding up to it. */
#define SCOPEALLOC_POOL_ALIGN 64

/* The default pool's `cur` is always a multiple of this: the runtime rounds
 * the end of every allocation from it up to one, and the inline fast path
 * rounds its frames' sizes likewise, so a frame aligned to at most this
 * starts at `cur` itself, without an alignment step. */
#define SCOPEALLOC_DEFAULT_POOL_GRANULE 16

/* Symbol names the pass emits. */
#define SCOPEALLOC_SYMBOL_PREFIX "__scopealloc_"
/* The public API's functions (scopealloc.h): scopealloc_<name>. */
#define SCOPEALLOC_API_PREFIX "scopealloc_"
#define SCOPEALLOC_SYM_MARK "__scopealloc_mark"
#define SCOPEALLOC_SYM_ALLOC "__scopealloc_alloc"
#define SCOPEALLOC_SYM_RELEASE "__scopealloc_release"
#define SCOPEALLOC_SYM_FRAME_SLOW "__scopealloc_frame_slow"
#define SCOPEALLOC_SYM_FRAME_THUNK "__scopealloc_frame_thunk"
#define SCOPEALLOC_SYM_FRAME_THUNK_REGS "__scopealloc_frame_thunk_regs"
#define SCOPEALLOC_SYM_POOL_MARK "__scopealloc_pool_mark"
#define SCOPEALLOC_SYM_POOL_ALLOC "__scopealloc_pool_alloc"
#define SCOPEALLOC_SYM_POOL_RELEASE "__scopealloc_pool_release"
#define SCOPEALLOC_SYM_NOTE_FRAME "__scopealloc_note_frame"
#define SCOPEALLOC_SYM_TLS_POOL "__scopealloc_tls_pool"
/* The application's hook a freestanding runtime calls on a failure
 * (scopealloc.h): the one way the runtime calls into the program but for
 * function pointers it was given. */
#define SCOPEALLOC_SYM_FREESTANDING_FAILURE "scopealloc_freestanding_failure"
/* plan: static: the region of an entry point's planned frames, an internal
 * array scopealloc.plan.<entry> (.bss, or .tbss when per thread). */
#define SCOPEALLOC_PLAN_REGION_PREFIX "scopealloc.plan."
/* A named pool <name> is the global __scopealloc_pool_<name>. */
#define SCOPEALLOC_POOL_SYMBOL_PREFIX "__scopealloc_pool_"
/* The buffer SCOPEALLOC_DEFINE_POOL(<name>, N) defines (scopealloc.h pastes
 * the same prefix), which scopealloc-bound sizes the pool by. */
#define SCOPEALLOC_POOL_BUFFER_PREFIX "scopealloc_buffer_"
/* Referenced by a module compiled for an LTO link: defined by the pass at
 * the link, undefined (a link error naming it) when the link loads no
 * plugin. */
#define SCOPEALLOC_SYM_LTO_LINK_MARKER                                         \
  "__scopealloc_lto_link_without_pass_plugin"

/* struct scopealloc_pool: its field count and the indices of the fields the
 * inline fast path touches (cur, bound; allocs with
 * -scope-alloc-count-inline-frames) and that tools read from an image's
 * pools (limit, base). Fields 0-7 are pointers, 8-9 uint64_t, 10-11 pointers
 * (abi.h checks the offsets); cur, limit, high and base kept their places of
 * ABI version 2. */
#define SCOPEALLOC_POOL_FIELD_COUNT 12
#define SCOPEALLOC_POOL_FIELD_CUR 0
#define SCOPEALLOC_POOL_FIELD_LIMIT 1
#define SCOPEALLOC_POOL_FIELD_HIGH 2
#define SCOPEALLOC_POOL_FIELD_BASE 3
#define SCOPEALLOC_POOL_FIELD_BOUND 4
#define SCOPEALLOC_POOL_FIELD_ALLOCS 8

#endif /* SCOPEALLOC_ABI_CONSTANTS_H */
