/* LD_PRELOAD library of test/realworld/bounds.sh: the main thread's
 * machine-stack high-water mark below main, and its ScopeAlloc pool peaks,
 * per process, for comparison with scopealloc-bound's figures for the
 * entry `main` (x86-64 Linux, glibc).
 *
 * It interposes __libc_start_main so that libc calls peaks_main (below)
 * instead of the program's main. peaks_main keeps the stack pointer it
 * calls main with (`top`: the stack pointer before the call, as
 * scopealloc-bound counts, the return address being main's first 8 bytes),
 * paints PEAKS_STACK_BYTES (default 4 MiB, at most half the stack's
 * limit) below it with a pattern, and
 * calls main. When main returns, or at exit when the program calls exit()
 * (whose frames then lie below main's and belong to main's call tree, as
 * scopealloc-bound's assumed size for exit does), it finds the deepest word
 * no longer holding the pattern: the peak is top minus that word's address.
 * Being relative to `top`, it does not depend on ASLR or on what the
 * kernel and the startup code put above main. Run the program with
 * LD_BIND_NOW=1: lazily bound, the first call through each PLT slot runs
 * the dynamic linker's resolver, whose saved register state (XSAVE, about
 * 3 KiB with AVX-512) lands below the caller's frame, and which no bound
 * counts. A word the program reserves
 * but never writes is not seen (the figure is a lower bound of the real
 * use, as for every painted-stack measurement); a peak equal to the
 * painted size means the paint was too small.
 *
 * Pool peaks come from the shared runtime (libscopealloc_rt.so) when the
 * program loaded it: the main thread's default pool (scopealloc_thread_stats)
 * and every named pool (scopealloc_for_each_pool). A program with the
 * runtime linked statically reports none.
 *
 * Each process appends one line to $PEAKS_OUT (nothing when unset):
 *   <executable path> <pid> stack <bytes> [pool <name> <peak>]...
 * with one write(2) (O_APPEND), so that processes of one pipeline do not
 * interleave. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#if !defined(__x86_64__) || !defined(__linux__)
#error "peaks.c measures the x86-64 Linux stack"
#endif

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void),
                        void (*)(void), void *);

/* Read by the assembly below (hidden: referenced PC-relatively). */
#define HIDDEN __attribute__((visibility("hidden")))
HIDDEN main_fn peaks_real_main;
HIDDEN uintptr_t peaks_top;   /* stack pointer at the call of main */
HIDDEN uintptr_t peaks_words; /* 8-byte words painted below it */
HIDDEN const uint64_t peaks_pattern = 0x5ca1ab1edeadc0deULL;
static int peaks_done;
static const char *peaks_out; /* $PEAKS_OUT, read before main */

HIDDEN int peaks_main(int, char **, char **);
HIDDEN void peaks_after_main(void);

/* Paints [top - 8 * words, top) downwards without using that stack, then
 * calls main with the stack pointer 16-byte aligned, then measures. */
__asm__(".text\n"
        ".globl peaks_main\n"
        ".hidden peaks_main\n"
        ".type peaks_main,@function\n"
        "peaks_main:\n"
        /* At entry rsp = 8 mod 16 (the return address): three pushes
         * align it for the call. */
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  movl %edi, %ebx\n"
        "  movq %rsi, %r12\n"
        "  movq %rdx, %r13\n"
        "  movq %rsp, peaks_top(%rip)\n"
        "  movq peaks_pattern(%rip), %rax\n"
        "  movq peaks_words(%rip), %rcx\n"
        "  movq %rsp, %rdi\n"
        "  testq %rcx, %rcx\n"
        "  jz 2f\n"
        "1:\n"
        "  subq $8, %rdi\n"
        "  movq %rax, (%rdi)\n"
        "  decq %rcx\n"
        "  jnz 1b\n"
        "2:\n"
        "  movl %ebx, %edi\n"
        "  movq %r12, %rsi\n"
        "  movq %r13, %rdx\n"
        "  callq *peaks_real_main(%rip)\n"
        "  movl %eax, %ebx\n"
        "  callq peaks_after_main\n"
        "  movl %ebx, %eax\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  retq\n"
        ".size peaks_main, .-peaks_main\n");

typedef struct {
  const char *name;
  size_t current, peak, capacity;
  uint64_t allocs, failures;
} peaks_stats; /* = scopealloc_stats (scopealloc/scopealloc.h) */

static char line[4096];
static size_t used;

__attribute__((format(printf, 1, 2))) static void add(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (used < sizeof line)
    used += (size_t)vsnprintf(line + used, sizeof line - used, fmt, ap);
  va_end(ap);
}

static void add_pool(const void *pool, void *ctx) {
  void (*pool_stats)(const void *, peaks_stats *) =
      (void (*)(const void *, peaks_stats *))ctx;
  peaks_stats st;
  pool_stats(pool, &st);
  add(" pool %s %llu", st.name ? st.name : "?", (unsigned long long)st.peak);
}

/* The scan comes first and calls nothing: a call before it would leave its
 * own frames (and, lazily bound, the dynamic linker's resolver's) below
 * `top`. It is inlined, its frame that of its caller, next to `top`. */
static inline __attribute__((always_inline)) uintptr_t scan(void) {
  const volatile uint64_t *bottom =
      (const volatile uint64_t *)(peaks_top - 8 * peaks_words);
  uintptr_t words = 0;
  while (words < peaks_words && bottom[words] == peaks_pattern)
    words++;
  return words;
}

static void report(uintptr_t words) {
  const char *out = peaks_out;
  uintptr_t peak = 8 * (peaks_words - words);
  char exe[1024];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = 0;
  used = 0;
  add("%s %d stack%s %llu", exe, (int)getpid(), words == 0 ? "-overflow" : "",
      (unsigned long long)peak);
  void (*thread_stats)(peaks_stats *) =
      (void (*)(peaks_stats *))dlsym(RTLD_DEFAULT, "scopealloc_thread_stats");
  if (thread_stats) {
    peaks_stats st;
    thread_stats(&st);
    add(" pool workspace %llu", (unsigned long long)st.peak);
    int (*each)(void (*)(const void *, void *), void *) =
        (int (*)(void (*)(const void *, void *), void *))dlsym(
            RTLD_DEFAULT, "scopealloc_for_each_pool");
    void *pool_stats = dlsym(RTLD_DEFAULT, "scopealloc_pool_stats");
    if (each && pool_stats)
      each(add_pool, pool_stats);
  }
  add("\n");
  if (used >= sizeof line)
    used = sizeof line - 1;
  int fd = open(out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ssize_t w = write(fd, line, used);
    (void)w;
    close(fd);
  }
}

void peaks_after_main(void) {
  if (peaks_done || !peaks_words)
    return;
  uintptr_t words = scan();
  peaks_done = 1;
  if (peaks_out)
    report(words);
}

/* exit() called from main (or below): destructors run in exit's frames. */
__attribute__((destructor)) static void peaks_at_exit(void) {
  if (peaks_done || !peaks_words)
    return;
  uintptr_t words = scan();
  peaks_done = 1;
  if (peaks_out)
    report(words);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
                      void (*fini)(void), void (*rtld_fini)(void),
                      void *stack_end) {
  start_fn real = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
  const char *bytes = getenv("PEAKS_STACK_BYTES");
  uint64_t paint = bytes ? strtoull(bytes, NULL, 0) : 4u << 20;
  /* Within the stack's limit, above the environment and arguments. */
  struct rlimit limit;
  if (getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      paint > limit.rlim_cur / 2)
    paint = limit.rlim_cur / 2;
  peaks_words = paint / 8;
  peaks_out = getenv("PEAKS_OUT");
  peaks_real_main = main;
  return real(peaks_main, argc, argv, init, fini, rtld_fini, stack_end);
}
