/* ScopeAlloc: scopes and stack policies written in C/C++ source.
 *
 * Header only, no runtime needed. With clang and the ScopeAlloc plugin the
 * pass honours them; with any other compiler, or clang without the plugin,
 * they compile to nothing that changes the program (the annotations are
 * dropped by the code generator).
 *
 * On a local (automatic) variable:
 *
 *   SCOPEALLOC_WORKSPACE char tile[256];      from the workspace pool, always
 *   SCOPEALLOC_POOL(npu_sram) char in[4096];  from pool npu_sram (define it
 *                                             with SCOPEALLOC_DEFINE_POOL)
 *   SCOPEALLOC_STACK char hot[2048];          on the stack, whatever the
 *                                             policy (a warning if too big)
 *   SCOPEALLOC_SCOPE("global") int v[64];     any scope spelling
 *
 * On a function definition (override the target policy for that function):
 *
 *   SCOPEALLOC_MAX_STACK_ALLOCA(256) void f(void) { ... }
 *   SCOPEALLOC_FRAME_BUDGET(4096)    void g(void) { ... }
 *   SCOPEALLOC_DYNAMIC(demote)       void h(int n) { ... }   keep|demote|reject
 *   SCOPEALLOC_FUNCTION_POOL(dma)    void k(void) { ... }    pool of demoted
 *                                                            unscoped buffers
 *   SCOPEALLOC_ENTRY                 void task(void) { ... } an entry point
 *                                                            for scopealloc-bound
 *   SCOPEALLOC_RECURSION_BOUND(8)    int walk(node *n) { ... }
 *                                    the call cycle through walk holds at
 *                                    most 8 frames of its functions at once
 *                                    (scopealloc-bound; a policy file's
 *                                    'recursion' overrides it)
 *
 * Byte counts are decimal literals (or macros expanding to one). They are
 * the same as __attribute__((annotate("scope:global.workspace"))) and
 * __attribute__((annotate("scope-alloc-max-stack-alloca=256"))) (C++11:
 * [[clang::annotate("...")]]), which is what the pass reads.
 */
#ifndef SCOPEALLOC_SCOPE_H
#define SCOPEALLOC_SCOPE_H

#if defined(__clang__)
#define SCOPEALLOC_ANNOTATE(text) __attribute__((annotate(text)))
#else
#define SCOPEALLOC_ANNOTATE(text)
#endif

#define SCOPEALLOC_STRINGIFY_(x) #x
#define SCOPEALLOC_STRINGIFY(x) SCOPEALLOC_STRINGIFY_(x)

/* Scopes of local variables. `s` is a string literal. */
#define SCOPEALLOC_SCOPE(s) SCOPEALLOC_ANNOTATE("scope:" s)
#define SCOPEALLOC_GLOBAL SCOPEALLOC_SCOPE("global")
#define SCOPEALLOC_STACK SCOPEALLOC_SCOPE("global.stack")
#define SCOPEALLOC_LOCAL SCOPEALLOC_SCOPE("local")
#define SCOPEALLOC_WORKSPACE SCOPEALLOC_SCOPE("global.workspace")
/* `name` as in SCOPEALLOC_DEFINE_POOL(name, size): not macro-expanded. */
#define SCOPEALLOC_POOL(name) SCOPEALLOC_SCOPE("global." #name)

/* Per-function policy. */
#define SCOPEALLOC_MAX_STACK_ALLOCA(bytes)                                     \
  SCOPEALLOC_ANNOTATE("scope-alloc-max-stack-alloca=" SCOPEALLOC_STRINGIFY(bytes))
#define SCOPEALLOC_FRAME_BUDGET(bytes)                                         \
  SCOPEALLOC_ANNOTATE("scope-alloc-frame-budget=" SCOPEALLOC_STRINGIFY(bytes))
#define SCOPEALLOC_DYNAMIC(rule)                                               \
  SCOPEALLOC_ANNOTATE("scope-alloc-dynamic=" #rule)
#define SCOPEALLOC_FUNCTION_POOL(name)                                         \
  SCOPEALLOC_ANNOTATE("scope-alloc-pool=" #name)
/* runtime or static: where a whole-program link puts the function's
 * demoted frame (docs/static-planning.md). */
#define SCOPEALLOC_PLAN(plan) SCOPEALLOC_ANNOTATE("scope-alloc-plan=" #plan)
/* An entry point of the program (a task, a callback the hardware or an RTOS
 * calls): scopealloc-bound bounds its stack and pool use. */
#define SCOPEALLOC_ENTRY SCOPEALLOC_ANNOTATE("scope-alloc-entry=1")
/* The most frames of this function's call cycle (its recursion) that are
 * on the stack at once: scopealloc-bound counts the cycle that many times
 * instead of calling it unbounded. A decimal literal of at least 1. */
#define SCOPEALLOC_RECURSION_BOUND(frames)                                     \
  SCOPEALLOC_ANNOTATE("scope-alloc-recursion-bound=" SCOPEALLOC_STRINGIFY(frames))

#endif
