// Dynamic allocations: VLAs whose size changes every iteration of a 10k
// iteration loop (llvm.stacksave/stackrestore), 2-D VLAs, VLAs left through
// break/continue/goto, alloca(n) in a helper called 10k times (out of line,
// and always inlined into the loop, where the inliner wraps it in
// stacksave/stackrestore), alloca(n) inside a loop whose blocks must all
// survive until the function returns, and VLAs in recursion.
//
// Legitimately the arena peaks at about 2 MiB (the alloca blocks that live
// until their function returns, and the recursion); a VLA loop that grew it
// every iteration would need tens of MiB.
// COMPARE: max-peak=4194304
//
// RUN: bash %S/Inputs/compare.sh %s %t %clang %scc
#include "Inputs/e2e.h"
#include <alloca.h>
#include <string.h>

E2E_NOINLINE static uint64_t vla_loop(int iters) {
  uint64_t h = E2E_HASH_INIT;
  int keep[64]; /* state carried between iterations, outside the VLAs */
  memset(keep, 0, sizeof keep);
  for (int i = 0; i < iters; ++i) {
    int n = 100 + (i * 37) % 3000; /* 400 B .. 12 KiB */
    int v[n];
    for (int k = 0; k < n; ++k)
      v[k] = i ^ (k * 3);
    e2e_escape(v);
    long s = 0;
    for (int k = 0; k < n; ++k)
      s += v[k];
    keep[i % 64] += (int)(s & 0xffff);
    CHECK(v[n - 1] == (i ^ ((n - 1) * 3)));
    CHECK(sizeof v == (size_t)n * sizeof(int));
    h = e2e_mix(h, (uint64_t)s);
  }
  return e2e_mix(h, e2e_hash(E2E_HASH_INIT, keep, sizeof keep));
}

/* Two VLAs per iteration, one 2-D, the second depending on the first. */
E2E_NOINLINE static uint64_t vla_2d(int iters) {
  uint64_t h = E2E_HASH_INIT;
  for (int i = 0; i < iters; ++i) {
    int rows = 1 + i % 23, cols = 1 + (i * 7) % 41;
    double m[rows][cols];
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        m[r][c] = r * 100 + c + i;
    int tn = rows * cols;
    long t[tn];
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        t[c * rows + r] = (long)m[r][c];
    e2e_escape(m);
    e2e_escape(t);
    CHECK(m[rows - 1][cols - 1] == (rows - 1) * 100 + cols - 1 + i);
    CHECK(t[tn - 1] == (long)m[rows - 1][cols - 1]);
    h = e2e_hash(h, t, sizeof(long) * (size_t)(tn < 8 ? tn : 8));
  }
  return h;
}

/* VLAs left early: continue, break out of an inner loop, goto backwards. */
E2E_NOINLINE static uint64_t vla_exits(int iters) {
  uint64_t h = E2E_HASH_INIT;
  int restarts = 0;
again:
  for (int i = 0; i < iters; ++i) {
    int n = 1 + (i * 13) % 4000;
    char buf[n];
    memset(buf, 'a' + i % 26, (size_t)n);
    e2e_escape(buf);
    if (i % 3 == 0)
      continue;
    for (int j = 0; j < 5; ++j) {
      int inner[n / 4 + 1];
      inner[n / 4] = j;
      e2e_escape(inner);
      if (j == i % 5)
        break;
      h = e2e_mix(h, (uint64_t)inner[n / 4]);
    }
    if (i == iters / 2 && restarts < 3) {
      ++restarts;
      goto again; /* leaves the VLA's scope backwards */
    }
    CHECK(buf[n - 1] == 'a' + i % 26);
    h = e2e_hash(h, buf, 4 < n ? 4 : (size_t)n);
  }
  return e2e_mix(h, (uint64_t)restarts);
}

/* alloca in a helper called per iteration: freed when the helper returns. */
E2E_NOINLINE static uint64_t alloca_helper(size_t n, int salt) {
  unsigned char *p = alloca(n);
  for (size_t k = 0; k < n; ++k)
    p[k] = (unsigned char)(k * 5 + salt);
  e2e_escape(p);
  return e2e_hash(E2E_HASH_INIT, p + n / 2, n - n / 2);
}

/* The same, always inlined into the loop that calls it: the inliner wraps
 * the inlined alloca in llvm.stacksave/llvm.stackrestore, so each
 * iteration frees its block. */
__attribute__((always_inline)) static inline uint64_t alloca_inlined(size_t n,
                                                                     int salt) {
  unsigned char *p = alloca(n);
  for (size_t k = 0; k < n; ++k)
    p[k] = (unsigned char)(k * 3 + salt);
  e2e_escape(p);
  return e2e_hash(E2E_HASH_INIT, p + n / 3, n - n / 3);
}

E2E_NOINLINE static uint64_t alloca_inlined_loop(int iters) {
  uint64_t h = E2E_HASH_INIT;
  unsigned char keep[2048]; /* a static buffer next to the dynamic ones */
  memset(keep, 0x77, sizeof keep);
  e2e_escape(keep);
  for (int i = 0; i < iters; ++i)
    h = e2e_mix(h, alloca_inlined(1 + (size_t)(i * 7331) % 6000, i));
  for (size_t k = 0; k < sizeof keep; ++k)
    CHECK(keep[k] == 0x77);
  return h;
}

/* alloca inside a loop: every block lives until the function returns, so
 * all of them must still hold their contents at the end. */
E2E_NOINLINE static uint64_t alloca_accumulate(int count) {
  unsigned char *blocks[1000];
  size_t sizes[1000];
  CHECK(count <= 1000);
  for (int i = 0; i < count; ++i) {
    size_t n = 16 + (size_t)(i * 101) % 1500;
    unsigned char *p = alloca(n);
    memset(p, i & 0xff, n);
    blocks[i] = p;
    sizes[i] = n;
    {
      /* A VLA scope nested inside the loop body, after the alloca: its
       * stackrestore must not free the alloca'd block. */
      int tmp[1 + i % 300];
      tmp[i % 300] = i;
      e2e_escape(tmp);
      CHECK(tmp[i % 300] == i);
    }
  }
  uint64_t h = E2E_HASH_INIT;
  for (int i = 0; i < count; ++i) {
    for (size_t k = 0; k < sizes[i]; ++k)
      CHECK(blocks[i][k] == (unsigned char)(i & 0xff));
    h = e2e_mix(h, sizes[i]);
  }
  return h;
}

/* Recursion whose frames hold a VLA sized by the depth. */
E2E_NOINLINE static uint64_t vla_recurse(int depth) {
  int n = 64 + depth * 8;
  short v[n];
  for (int k = 0; k < n; ++k)
    v[k] = (short)(depth + k);
  e2e_escape(v);
  uint64_t below = depth ? vla_recurse(depth - 1) : 77;
  for (int k = 0; k < n; ++k)
    CHECK(v[k] == (short)(depth + k));
  return e2e_mix(below, (uint64_t)v[n - 1]);
}

int main(void) {
  printf("vla_loop: %016llx\n", (unsigned long long)vla_loop(10000));
  printf("vla_2d: %016llx\n", (unsigned long long)vla_2d(3000));
  printf("vla_exits: %016llx\n", (unsigned long long)vla_exits(2000));
  uint64_t h = E2E_HASH_INIT;
  for (int i = 0; i < 10000; ++i)
    h = e2e_mix(h, alloca_helper(1 + (size_t)(i * 7919) % 6000, i));
  printf("alloca_helper: %016llx\n", (unsigned long long)h);
  printf("alloca_inlined: %016llx\n",
         (unsigned long long)alloca_inlined_loop(10000));
  printf("alloca_accumulate: %016llx\n",
         (unsigned long long)alloca_accumulate(1000));
  printf("vla_recurse: %016llx\n", (unsigned long long)vla_recurse(500));
  return 0;
}
