/* ucontext fibers without the program's help (shared runtime only).
 *
 * Like AddressSanitizer, the shared runtime defines makecontext, getcontext,
 * swapcontext and setcontext, which the program's (and its libraries')
 * calls reach before libc's, tells fiber.c about each context switch, and
 * forwards to libc's own, found with dlsym(RTLD_NEXT). So every context
 * made with makecontext runs on an arena of its own, and a context resumed
 * finds the arena it was saved on, the way scopealloc_arena_switch around
 * each swapcontext would have it. glibc has one version of each function on
 * x86-64 (GLIBC_2.2.5) and AArch64 (GLIBC_2.17), the one dlsym returns.
 *
 * A made context starts in sa_context_start, which calls the program's
 * function with its arguments and, when it returns, switches to uc_link's
 * arena: glibc resumes uc_link with an internal call that no interposition
 * sees. The static runtime has none of this (a static program cannot
 * interpose libc): programs linking it call scopealloc_arena_switch. */
#define _GNU_SOURCE 1
#include "internal.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

/* ASan's interceptor forwards 64; POSIX programs pass a few ints. */
#define SA_CONTEXT_MAX_ARGS 16

typedef int (*sa_getcontext_fn)(ucontext_t *);
typedef int (*sa_setcontext_fn)(const ucontext_t *);
typedef int (*sa_swapcontext_fn)(ucontext_t *, const ucontext_t *);
typedef void (*sa_makecontext_fn)(ucontext_t *, void (*)(void), int, ...);
typedef uintptr_t sa_word;
typedef void (*sa_entry_fn)(sa_word, sa_word, sa_word, sa_word, sa_word,
                            sa_word, sa_word, sa_word, sa_word, sa_word,
                            sa_word, sa_word, sa_word, sa_word, sa_word,
                            sa_word);

/* What a made context starts with (malloc'ed; freed when it starts). */
typedef struct sa_start {
  void (*fn)(void);
  const ucontext_t *ucp;
  const ucontext_t *link; /* uc_link when it was made, as glibc keeps it */
  sa_word args[SA_CONTEXT_MAX_ARGS];
} sa_start;

/* libc's function `name`, resolved once (dlsym is thread-safe; a race
 * stores the same value twice). */
static void *sa_real(void **slot, const char *name) {
  void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (SA_LIKELY(fn != NULL))
    return fn;
  fn = dlsym(RTLD_NEXT, name);
  if (!fn) {
    fprintf(stderr,
            "scopealloc: %s: no definition after the runtime's "
            "(dlsym(RTLD_NEXT)): %s\n",
            name, dlerror());
    abort();
  }
  __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
  return fn;
}
static void *sa_real_get, *sa_real_set, *sa_real_swap, *sa_real_make;

/* Runs a made context's function on the context's own stack and arena. */
static void sa_context_start(unsigned hi, unsigned lo) {
  sa_start *s = (sa_start *)(uintptr_t)(((uint64_t)hi << 32) | lo);
  sa_start run = *s;
  sa_context_started(run.ucp, s);
  ((sa_entry_fn)run.fn)(run.args[0], run.args[1], run.args[2], run.args[3],
                        run.args[4], run.args[5], run.args[6], run.args[7],
                        run.args[8], run.args[9], run.args[10], run.args[11],
                        run.args[12], run.args[13], run.args[14],
                        run.args[15]);
  sa_context_finish(run.ucp, run.link, (const void *)run.fn);
}

void makecontext(ucontext_t *ucp, void (*fn)(void), int argc, ...) {
  sa_makecontext_fn real =
      (sa_makecontext_fn)sa_real(&sa_real_make, "makecontext");
  if (argc < 0 || argc > SA_CONTEXT_MAX_ARGS) {
    fprintf(stderr,
            "scopealloc: makecontext with %d arguments: the runtime's "
            "interposition forwards at most %d\n",
            argc, SA_CONTEXT_MAX_ARGS);
    abort();
  }
  sa_start *s = (sa_start *)calloc(1, sizeof *s);
  if (!s) {
    fprintf(stderr, "scopealloc: makecontext: out of memory\n");
    abort();
  }
  s->fn = fn;
  s->ucp = ucp;
  s->link = ucp->uc_link;
  /* glibc reads each argument as a whole register (greg_t) too. */
  va_list ap;
  va_start(ap, argc);
  for (int i = 0; i < argc; i++)
    s->args[i] = va_arg(ap, sa_word);
  va_end(ap);
  sa_context_make(ucp, s);
  /* Two ints, as POSIX has it, carry the pointer. */
  uint64_t at = (uint64_t)(uintptr_t)s;
  real(ucp, (void (*)(void))sa_context_start, 2, (unsigned)(at >> 32),
       (unsigned)at);
}

/* getcontext returns twice: the tail call leaves no frame of ours for the
 * second return to land in. */
#if defined(__has_attribute) && __has_attribute(musttail)
int getcontext(ucontext_t *ucp) {
  sa_context_saved(ucp);
  sa_getcontext_fn real = (sa_getcontext_fn)sa_real(&sa_real_get, "getcontext");
  __attribute__((musttail)) return real(ucp);
}
#else
/* No musttail (GCC 12): getcontext is written in assembly, a call of this
 * and a jump to what it returns, with ucp restored. */
SA_HIDDEN sa_getcontext_fn sa_getcontext_prepare(ucontext_t *ucp);
sa_getcontext_fn sa_getcontext_prepare(ucontext_t *ucp) {
  sa_context_saved(ucp);
  return (sa_getcontext_fn)sa_real(&sa_real_get, "getcontext");
}
#if defined(__x86_64__)
#if defined(__CET__)
#define SA_ENTRY_LANDING "endbr64\n"
#else
#define SA_ENTRY_LANDING ""
#endif
__asm__(".text\n"
        ".globl getcontext\n"
        ".type getcontext, @function\n"
        "getcontext:\n"
        ".cfi_startproc\n" SA_ENTRY_LANDING
        "pushq %rdi\n" /* keeps ucp and aligns the stack for the call */
        ".cfi_adjust_cfa_offset 8\n"
        "call sa_getcontext_prepare\n"
        "popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "jmp *%rax\n"
        ".cfi_endproc\n"
        ".size getcontext, .-getcontext\n");
#elif defined(__aarch64__)
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define SA_ENTRY_LANDING "hint 34\n" /* bti c */
#else
#define SA_ENTRY_LANDING ""
#endif
__asm__(".text\n"
        ".globl getcontext\n"
        ".type getcontext, %function\n"
        ".p2align 2\n"
        "getcontext:\n"
        ".cfi_startproc\n" SA_ENTRY_LANDING "stp x29, x30, [sp, #-32]!\n"
        ".cfi_def_cfa_offset 32\n"
        ".cfi_offset 29, -32\n"
        ".cfi_offset 30, -24\n"
        "mov x29, sp\n"
        "str x0, [sp, #16]\n"
        "bl sa_getcontext_prepare\n"
        "mov x16, x0\n"
        "ldr x0, [sp, #16]\n"
        "ldp x29, x30, [sp], #32\n"
        ".cfi_def_cfa_offset 0\n"
        ".cfi_restore 29\n"
        ".cfi_restore 30\n"
        "br x16\n"
        ".cfi_endproc\n"
        ".size getcontext, .-getcontext\n");
#else
#error "getcontext's interposer: no musttail and no jump in assembly here"
#endif
#endif

int swapcontext(ucontext_t *oucp, const ucontext_t *ucp) {
  const void *caller = __builtin_return_address(0);
  sa_swapcontext_fn real =
      (sa_swapcontext_fn)sa_real(&sa_real_swap, "swapcontext");
  /* Switched before the jump: the target's code finds its arena in place;
   * whoever resumes oucp later switches back to the arena saved here. */
  scopealloc_arena *left = sa_context_switch(oucp, ucp, caller);
  int rc = real(oucp, ucp);
  if (rc != 0) /* no switch happened */
    sa_context_restore(left, caller);
  return rc;
}

int setcontext(const ucontext_t *ucp) {
  const void *caller = __builtin_return_address(0);
  sa_setcontext_fn real = (sa_setcontext_fn)sa_real(&sa_real_set, "setcontext");
  scopealloc_arena *left = sa_context_switch(NULL, ucp, caller);
  int rc = real(ucp); /* returns only on failure */
  sa_context_restore(left, caller);
  return rc;
}
