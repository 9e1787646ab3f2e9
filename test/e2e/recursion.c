// Deep recursion with a 2 KiB buffer in every frame: depth 1000 linear
// recursion whose frames check that their buffer survived the callee, a
// tree recursion (~30k calls) whose children write into the parent's
// buffer through a pointer, and recursion through a function pointer.
//
// RUN: bash %S/Inputs/compare.sh %s %t %clang %scc
#include "Inputs/e2e.h"
#include <string.h>

static unsigned char pattern(int depth, int i) {
  return (unsigned char)(depth * 31 + i * 7 + (i >> 5));
}

/* Each frame fills its buffer, recurses, then checks that no deeper frame
 * touched it (a demoted frame released too early, or overlapping frames,
 * would show up here). */
E2E_NOINLINE static uint64_t descend(int depth, int max) {
  unsigned char buf[2048];
  for (int i = 0; i < (int)sizeof buf; ++i)
    buf[i] = pattern(depth, i);
  e2e_escape(buf);
  uint64_t below = depth < max ? descend(depth + 1, max) : 0x1234;
  for (int i = 0; i < (int)sizeof buf; ++i)
    CHECK(buf[i] == pattern(depth, i));
  return e2e_mix(below, e2e_hash(E2E_HASH_INIT, buf + depth % 1024, 64));
}

/* Tree recursion: every node owns a 1.5 KiB buffer; children fill a slice of
 * their parent's buffer through `out`, then the parent hashes it. */
E2E_NOINLINE static void tree(int n, unsigned char *out, size_t outlen) {
  unsigned char mine[1536];
  memset(mine, n & 0xff, sizeof mine);
  if (n >= 2) {
    tree(n - 1, mine, 700);
    tree(n - 2, mine + 700, 700);
  }
  uint64_t h = e2e_hash(E2E_HASH_INIT + (uint64_t)n, mine, sizeof mine);
  for (size_t i = 0; i < outlen; ++i)
    out[i] = (unsigned char)(h >> ((i % 8) * 8)) ^ (unsigned char)i;
}

/* Recursion through a function pointer, alternating between two functions
 * with buffers of different sizes. */
typedef long (*step_fn)(int, long);
static long step_a(int n, long acc);
static long step_b(int n, long acc);
static step_fn volatile table[2] = {step_a, step_b};

E2E_NOINLINE static long step_a(int n, long acc) {
  long vals[300]; /* 2400 bytes */
  for (int i = 0; i < 300; ++i)
    vals[i] = acc + i * n;
  e2e_escape(vals);
  long r = n ? table[n & 1](n - 1, vals[n % 300] % 1000003) : acc;
  CHECK(vals[7] == acc + 7 * n);
  return r + vals[299] % 7;
}

E2E_NOINLINE static long step_b(int n, long acc) {
  char text[4096];
  int len = snprintf(text, sizeof text, "%d:%ld;", n, acc);
  for (int i = len; i < (int)sizeof text; ++i)
    text[i] = text[i % len];
  e2e_escape(text);
  long r = n ? table[n & 1](n - 1, (acc * 31 + text[4000]) % 1000003) : acc;
  CHECK(text[len] == text[0]);
  return r ^ (long)len;
}

int main(void) {
  uint64_t h1 = descend(0, 1000);
  printf("descend 1000: %016llx\n", (unsigned long long)h1);
  uint64_t h1b = descend(0, 1000);
  CHECK(h1 == h1b);

  unsigned char root[2048];
  memset(root, 0, sizeof root);
  tree(20, root, sizeof root);
  printf("tree 20: %016llx\n",
         (unsigned long long)e2e_hash(E2E_HASH_INIT, root, sizeof root));

  long r = table[0](800, 1);
  printf("alternating 800: %ld\n", r);

  /* Many shallow recursions in a row: frames come and go. */
  uint64_t acc = E2E_HASH_INIT;
  for (int i = 0; i < 200; ++i)
    acc = e2e_mix(acc, descend(0, i % 50));
  printf("repeated: %016llx\n", (unsigned long long)acc);
  return 0;
}
