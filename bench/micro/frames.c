/* The function under test of the frame benchmark: one call with a 2 KiB
 * buffer that does a little real work on it. bench/CMakeLists.txt compiles
 * this one file seven times with clang -O2 (and again -fPIC for shared
 * libraries), each time under its own name (FRAME_FN), so that every variant
 * runs exactly the same code:
 *   frame_stack           plain clang: the buffer is in the stack frame;
 *   frame_safestack       clang -fsanitize=safe-stack (LLVM SafeStack, the
 *                         peer): the buffer is on the thread's unsafe stack;
 *   frame_demoted_inline  the ScopeAlloc plugin at the default policy (a
 *                         2 KiB buffer exceeds the hosted 1024-byte limit):
 *                         the buffer comes from the workspace through the
 *                         pass's inline fast path;
 *   frame_demoted_standard  the same with -scope-alloc-slow-path=standard:
 *                         the slow call is __scopealloc_mark and
 *                         __scopealloc_alloc, not preserve_most;
 *   frame_demoted_call    demoted_inline with
 *                         -scope-alloc-inline-fast-path=false:
 *                         __scopealloc_mark/alloc/release calls;
 *   frame_malloc          plain clang with FRAME_USE_MALLOC: malloc/free;
 *   frame_planned         the plugin with plan: static over the module as
 *                         the whole program (-scope-alloc-whole-program),
 *                         the function an entry point (FRAME_ENTRY): its
 *                         frame at a fixed offset of its thread-local region
 *                         (docs/static-planning.md), no runtime use. */
#include <stdint.h>
#include <stdlib.h>

#ifndef FRAME_FN
#error "define FRAME_FN, the name this variant is compiled under"
#endif

#ifndef FRAME_BUFFER_BYTES
#define FRAME_BUFFER_BYTES 2048
#endif
#define FRAME_WORDS (FRAME_BUFFER_BYTES / sizeof(uint32_t))

/* The compiler must assume the asm reads and writes the buffer, so it can
 * neither delete the buffer nor keep its elements in registers. */
static inline void escape(void *p) { __asm__ volatile("" : : "r"(p) : "memory"); }

#ifdef FRAME_ENTRY
__attribute__((annotate("scope-alloc-entry=1")))
#endif
__attribute__((noinline)) uint32_t FRAME_FN(uint32_t seed) {
#ifdef FRAME_USE_MALLOC
  uint32_t *buf = malloc(FRAME_BUFFER_BYTES);
  if (!buf)
    abort();
#else
  uint32_t buf[FRAME_WORDS];
#endif
  /* A header, a trailer and two records somewhere in between, as a function
   * that assembles a message in a scratch buffer would write. */
  uint32_t a = seed % FRAME_WORDS, b = (seed * 7 + 3) % FRAME_WORDS;
  buf[0] = seed;
  buf[FRAME_WORDS - 1] = ~seed;
  buf[a] = seed * 3;
  buf[b] = seed + 11;
  escape(buf);
  uint32_t result = buf[0] ^ buf[FRAME_WORDS - 1] ^ (buf[a] + buf[b]);
#ifdef FRAME_USE_MALLOC
  free(buf);
#endif
  return result;
}

/* The timing loop, FRAME_FN_loop: compiled with the frame, so that the call
 * it times never crosses from the executable into a shared library (on the
 * CI machines such a call alone makes even the stack frame 1.4x slower)
 * and every variant's call site is laid out alike. */
#define FRAME_CAT2(a, b) a##b
#define FRAME_CAT(a, b) FRAME_CAT2(a, b)
__attribute__((noinline, aligned(64))) uint32_t
FRAME_CAT(FRAME_FN, _loop)(uint64_t calls) {
  uint32_t sum = 0;
  for (uint64_t i = 0; i < calls; ++i)
    sum += FRAME_FN((uint32_t)i);
  return sum;
}
