// Demoted frames outside the plain call tree of main, and ABI corners:
// constructors and destructors (before main / after exit), atexit handlers,
// a signal handler raised synchronously from deep inside a demoted frame,
// pthread key destructors that run after the runtime has torn down the
// exiting thread's arena (they must get a fresh one), fork() from inside a
// demoted frame, variadic functions (va_list, va_copy), large structs passed
// and returned by value.
//
// RUN: bash %S/Inputs/compare.sh %s %t %clang %scc -pthread
#include "Inputs/e2e.h"
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t ctor_hash;

E2E_NOINLINE static uint64_t big_frame(int salt) {
  unsigned char buf[3000];
  memset(buf, salt & 0xff, sizeof buf);
  buf[salt % 3000] ^= 0x5a;
  e2e_escape(buf);
  return e2e_hash(E2E_HASH_INIT, buf, sizeof buf);
}

__attribute__((constructor)) static void before_main(void) {
  char note[2048];
  snprintf(note, sizeof note, "constructor %d", 42);
  e2e_escape(note);
  ctor_hash = e2e_mix(big_frame(7), note[0]);
}

/* Output after main returns still goes to stdout and is compared. */
__attribute__((destructor)) static void after_exit(void) {
  char line[4096];
  snprintf(line, sizeof line, "destructor: %016llx",
           (unsigned long long)big_frame(99));
  puts(line);
}

static void at_exit_handler(void) {
  long table[512];
  for (int i = 0; i < 512; ++i)
    table[i] = i * 3;
  e2e_escape(table);
  printf("atexit: %ld %016llx\n", table[511], (unsigned long long)big_frame(5));
  fflush(stdout);
}

/* ---- a signal handler with its own large buffer ---- */
static volatile sig_atomic_t handled;
static uint64_t handler_hash;

static void on_signal(int sig) {
  unsigned char buf[5000];
  memset(buf, sig, sizeof buf);
  e2e_escape(buf);
  handler_hash = e2e_hash(handler_hash, buf, sizeof buf);
  ++handled;
}

E2E_NOINLINE static uint64_t raise_deep(int depth) {
  unsigned char mine[1500];
  memset(mine, depth, sizeof mine);
  e2e_escape(mine);
  if (depth == 0)
    raise(SIGUSR1);
  uint64_t h = depth ? raise_deep(depth - 1) : 1;
  for (size_t i = 0; i < sizeof mine; ++i)
    CHECK(mine[i] == (unsigned char)depth);
  return e2e_mix(h, mine[depth]);
}

/* ---- pthread key destructors using demoted frames ---- */
static pthread_key_t early_key, late_key;
static uint64_t key_results[8];

static void key_dtor(void *p) {
  int slot = (int)(intptr_t)p - 1;
  key_results[slot] = e2e_mix(key_results[slot], big_frame(slot + 100));
}

static void *thread_body(void *arg) {
  int id = (int)(intptr_t)arg;
  /* Use the arena first, so that the runtime's own key exists before ... */
  uint64_t h = big_frame(id);
  pthread_setspecific(early_key, (void *)(intptr_t)(id + 1));
  pthread_setspecific(late_key, (void *)(intptr_t)(id + 5));
  key_results[id] = h;
  return NULL;
}

/* ---- fork from inside a demoted frame ---- */
E2E_NOINLINE static uint64_t child_work(int depth) {
  unsigned char buf[2500];
  memset(buf, depth + 1, sizeof buf);
  e2e_escape(buf);
  uint64_t below = depth ? child_work(depth - 1) : 3;
  CHECK(buf[2499] == (unsigned char)(depth + 1));
  return e2e_mix(below, buf[depth]);
}

E2E_NOINLINE static void fork_in_frame(void) {
  unsigned char parent_buf[6000];
  memset(parent_buf, 0xab, sizeof parent_buf);
  e2e_escape(parent_buf);
  int fds[2];
  CHECK(pipe(fds) == 0);
  fflush(stdout);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    /* The child's copy of the frame is intact and its arena keeps working
     * on top of it. */
    uint64_t h = child_work(100);
    for (size_t i = 0; i < sizeof parent_buf; ++i)
      if (parent_buf[i] != 0xab)
        _exit(3);
    h = e2e_hash(h, parent_buf, sizeof parent_buf);
    if (write(fds[1], &h, sizeof h) != (ssize_t)sizeof h)
      _exit(4);
    _exit(0); /* no atexit handlers, no second statistics table */
  }
  close(fds[1]);
  uint64_t h = 0;
  CHECK(read(fds[0], &h, sizeof h) == (ssize_t)sizeof h);
  close(fds[0]);
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (size_t i = 0; i < sizeof parent_buf; ++i)
    CHECK(parent_buf[i] == 0xab);
  printf("fork: child %016llx parent %016llx\n", (unsigned long long)h,
         (unsigned long long)child_work(100));
}

/* ---- varargs ---- */
E2E_NOINLINE static int format_all(char *out, size_t cap, const char *fmt, ...) {
  char first[2048], second[2048];
  va_list ap, copy;
  va_start(ap, fmt);
  va_copy(copy, ap);
  int n1 = vsnprintf(first, sizeof first, fmt, ap);
  int n2 = vsnprintf(second, sizeof second, fmt, copy);
  va_end(copy);
  va_end(ap);
  CHECK(n1 == n2 && strcmp(first, second) == 0);
  return snprintf(out, cap, "%s|%d", first, n1);
}

E2E_NOINLINE static long sum_ints(int count, ...) {
  long vals[300];
  va_list ap;
  va_start(ap, count);
  for (int i = 0; i < count; ++i)
    vals[i] = va_arg(ap, int);
  va_end(ap);
  e2e_escape(vals);
  long s = 0;
  for (int i = 0; i < count; ++i)
    s += vals[i] * (i + 1);
  return s;
}

/* ---- large structs by value ---- */
struct big {
  int id;
  double w[300]; /* 2.4 KiB */
  char tag[40];
};

E2E_NOINLINE static struct big make_big(int id) {
  struct big b;
  b.id = id;
  for (int i = 0; i < 300; ++i)
    b.w[i] = id + i * 0.5;
  snprintf(b.tag, sizeof b.tag, "big-%d", id);
  return b;
}

E2E_NOINLINE static struct big combine(struct big a, struct big b) {
  struct big r = a;
  for (int i = 0; i < 300; ++i)
    r.w[i] = a.w[i] * 2 - b.w[i];
  a.id = -1; /* modifies the callee's copy only */
  r.id = a.id + b.id;
  char tag[sizeof r.tag];
  snprintf(tag, sizeof tag, "%s+%s", b.tag, a.tag);
  memcpy(r.tag, tag, sizeof tag);
  return r;
}

int main(void) {
  printf("constructor: %016llx\n", (unsigned long long)ctor_hash);
  atexit(at_exit_handler);

  signal(SIGUSR1, on_signal);
  uint64_t h = raise_deep(40);
  printf("signal: handled=%d %016llx %016llx\n", (int)handled,
         (unsigned long long)h, (unsigned long long)handler_hash);

  big_frame(1); /* the main thread's arena exists before the keys */
  pthread_key_create(&early_key, key_dtor);
  pthread_key_create(&late_key, key_dtor);
  for (int round = 0; round < 3; ++round) {
    pthread_t th[4];
    for (int i = 0; i < 4; ++i)
      CHECK(pthread_create(&th[i], NULL, thread_body, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < 4; ++i)
      CHECK(pthread_join(th[i], NULL) == 0);
  }
  for (int i = 0; i < 8; ++i)
    printf("key slot %d: %016llx\n", i, (unsigned long long)key_results[i]);

  fork_in_frame();

  char out[4096];
  format_all(out, sizeof out, "%s-%d-%.2f-%c-%lld", "va", 17, 2.5, 'z', 1LL << 40);
  printf("varargs: %s\n", out);
  printf("sum_ints: %ld\n", sum_ints(12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));

  struct big a = make_big(3), b = make_big(10);
  struct big c = combine(a, b);
  CHECK(a.id == 3 && b.id == 10 && c.id == 9);
  printf("structs: %s %.1f %.1f %016llx\n", c.tag, c.w[0], c.w[299],
         (unsigned long long)e2e_hash(E2E_HASH_INIT, c.w, sizeof c.w));
  fflush(stdout);
  return 0;
}
