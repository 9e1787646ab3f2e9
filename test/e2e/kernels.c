// Numeric kernels whose working sets are large local arrays (8 KiB .. 64 KiB):
// dense and blocked matrix multiply, a number-theoretic FFT (NTT) convolution,
// merge sort with a 64 KiB local scratch array, an iterative quicksort with
// an explicit local stack, and a prime sieve in one 4 MiB local array.
//
// RUN: bash %S/Inputs/compare.sh %s %t %clang %scc -lm
#include "Inputs/e2e.h"
#include <math.h>
#include <string.h>

#define N 64 /* 64x64 doubles = 32 KiB per matrix */

E2E_NOINLINE static void matmul_naive(const double *a, const double *b,
                                      double *c) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < N; ++k)
        s += a[i * N + k] * b[k * N + j];
      c[i * N + j] = s;
    }
}

/* Blocked multiply that copies tiles into 8 KiB local buffers. */
E2E_NOINLINE static void matmul_blocked(const double *a, const double *b,
                                        double *c) {
  enum { T = 32 };
  double ta[T * T]; /* 8 KiB */
  double tb[T * T]; /* 8 KiB */
  memset(c, 0, sizeof(double) * N * N);
  for (int i0 = 0; i0 < N; i0 += T)
    for (int j0 = 0; j0 < N; j0 += T)
      for (int k0 = 0; k0 < N; k0 += T) {
        for (int i = 0; i < T; ++i)
          for (int k = 0; k < T; ++k)
            ta[i * T + k] = a[(i0 + i) * N + k0 + k];
        for (int k = 0; k < T; ++k)
          for (int j = 0; j < T; ++j)
            tb[k * T + j] = b[(k0 + k) * N + j0 + j];
        for (int i = 0; i < T; ++i)
          for (int j = 0; j < T; ++j) {
            double s = 0;
            for (int k = 0; k < T; ++k)
              s += ta[i * T + k] * tb[k * T + j];
            c[(i0 + i) * N + j0 + j] += s;
          }
      }
}

E2E_NOINLINE static uint64_t run_matrix(uint64_t seed) {
  double a[N * N], b[N * N], c1[N * N], c2[N * N]; /* 4 x 32 KiB */
  uint64_t st = seed;
  for (int i = 0; i < N * N; ++i) {
    /* Small integers: every product and sum is exact in a double. */
    a[i] = (double)(int)(e2e_rand(&st) % 17) - 8;
    b[i] = (double)(int)(e2e_rand(&st) % 13) - 6;
  }
  matmul_naive(a, b, c1);
  matmul_blocked(a, b, c2);
  uint64_t h = E2E_HASH_INIT;
  double trace = 0;
  for (int i = 0; i < N * N; ++i) {
    CHECK(c1[i] == c2[i]);
    CHECK(c1[i] == floor(c1[i]));
    long long v = (long long)c1[i];
    h = e2e_hash(h, &v, sizeof v);
  }
  for (int i = 0; i < N; ++i)
    trace += c1[i * N + i];
  printf("matrix seed=%llu trace=%.1f hash=%016llx\n", (unsigned long long)seed,
         trace, (unsigned long long)h);
  return h;
}

/* ---- NTT modulo 998244353 (primitive root 3) ---- */
#define MOD 998244353u

static uint32_t mulmod(uint32_t a, uint32_t b) {
  return (uint32_t)((uint64_t)a * b % MOD);
}
static uint32_t powmod(uint32_t b, uint64_t e) {
  uint32_t r = 1;
  while (e) {
    if (e & 1)
      r = mulmod(r, b);
    b = mulmod(b, b);
    e >>= 1;
  }
  return r;
}

E2E_NOINLINE static void ntt(uint32_t *a, int n, int invert) {
  for (int i = 1, j = 0; i < n; ++i) {
    int bit = n >> 1;
    for (; j & bit; bit >>= 1)
      j ^= bit;
    j ^= bit;
    if (i < j) {
      uint32_t t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
  for (int len = 2; len <= n; len <<= 1) {
    uint32_t w = powmod(3, (MOD - 1) / len);
    if (invert)
      w = powmod(w, MOD - 2);
    /* Twiddle table in a local buffer (up to 8 KiB). */
    uint32_t tw[2048];
    tw[0] = 1;
    for (int k = 1; k < len / 2; ++k)
      tw[k] = mulmod(tw[k - 1], w);
    for (int i = 0; i < n; i += len)
      for (int k = 0; k < len / 2; ++k) {
        uint32_t u = a[i + k], v = mulmod(a[i + k + len / 2], tw[k]);
        a[i + k] = u + v < MOD ? u + v : u + v - MOD;
        a[i + k + len / 2] = u >= v ? u - v : u + MOD - v;
      }
  }
  if (invert) {
    uint32_t inv = powmod((uint32_t)n, MOD - 2);
    for (int i = 0; i < n; ++i)
      a[i] = mulmod(a[i], inv);
  }
}

E2E_NOINLINE static uint64_t run_ntt(uint64_t seed) {
  enum { LEN = 2048, SZ = 4096 };
  uint32_t p[SZ], q[SZ]; /* 16 KiB each */
  uint32_t naive[256];
  uint64_t st = seed;
  memset(p, 0, sizeof p);
  memset(q, 0, sizeof q);
  for (int i = 0; i < LEN; ++i) {
    p[i] = (uint32_t)(e2e_rand(&st) % 1000);
    q[i] = (uint32_t)(e2e_rand(&st) % 1000);
  }
  /* The first 256 coefficients of the product, computed directly. */
  for (int k = 0; k < 256; ++k) {
    uint64_t s = 0;
    for (int i = 0; i <= k; ++i)
      s += (uint64_t)p[i] * q[k - i];
    naive[k] = (uint32_t)(s % MOD);
  }
  ntt(p, SZ, 0);
  ntt(q, SZ, 0);
  for (int i = 0; i < SZ; ++i)
    p[i] = mulmod(p[i], q[i]);
  ntt(p, SZ, 1);
  for (int k = 0; k < 256; ++k)
    CHECK(p[k] == naive[k]);
  CHECK(p[SZ - 1] == 0); /* degree 2*(LEN-1) < SZ-1 */
  uint64_t h = e2e_hash(E2E_HASH_INIT, p, sizeof p);
  printf("ntt seed=%llu c0=%u c100=%u c4094=%u hash=%016llx\n",
         (unsigned long long)seed, p[0], p[100], p[4094],
         (unsigned long long)h);
  return h;
}

/* ---- sorting ---- */
#define SORT_N 16384

E2E_NOINLINE static void merge_sort(int *v, int n) {
  int tmp[SORT_N]; /* 64 KiB scratch */
  CHECK(n <= SORT_N);
  for (int width = 1; width < n; width *= 2) {
    for (int lo = 0; lo < n; lo += 2 * width) {
      int mid = lo + width < n ? lo + width : n;
      int hi = lo + 2 * width < n ? lo + 2 * width : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        tmp[k++] = v[i] <= v[j] ? v[i++] : v[j++];
      while (i < mid)
        tmp[k++] = v[i++];
      while (j < hi)
        tmp[k++] = v[j++];
    }
    memcpy(v, tmp, sizeof(int) * n);
  }
}

E2E_NOINLINE static void quick_sort(int *v, int n) {
  int stack[512]; /* 2 KiB explicit stack of ranges */
  int sp = 0;
  stack[sp++] = 0;
  stack[sp++] = n - 1;
  while (sp) {
    int hi = stack[--sp], lo = stack[--sp];
    while (lo < hi) {
      int pivot = v[lo + (hi - lo) / 2], i = lo, j = hi;
      while (i <= j) {
        while (v[i] < pivot)
          ++i;
        while (v[j] > pivot)
          --j;
        if (i <= j) {
          int t = v[i];
          v[i++] = v[j];
          v[j--] = t;
        }
      }
      /* Recurse (push) on the larger part, loop on the smaller. */
      if (j - lo < hi - i) {
        if (i < hi) {
          CHECK(sp + 2 <= 512);
          stack[sp++] = i;
          stack[sp++] = hi;
        }
        hi = j;
      } else {
        if (lo < j) {
          CHECK(sp + 2 <= 512);
          stack[sp++] = lo;
          stack[sp++] = j;
        }
        lo = i;
      }
    }
  }
}

E2E_NOINLINE static uint64_t run_sort(uint64_t seed) {
  int a[SORT_N], b[SORT_N]; /* 64 KiB each */
  uint64_t st = seed, sum = 0, xr = 0;
  for (int i = 0; i < SORT_N; ++i) {
    a[i] = b[i] = (int)(e2e_rand(&st) % 100000) - 50000;
    sum += (uint64_t)(int64_t)a[i];
    xr ^= (uint64_t)(uint32_t)a[i] * 2654435761u;
  }
  merge_sort(a, SORT_N);
  quick_sort(b, SORT_N);
  uint64_t sum2 = 0, xr2 = 0;
  for (int i = 0; i < SORT_N; ++i) {
    CHECK(a[i] == b[i]);
    if (i)
      CHECK(a[i - 1] <= a[i]);
    sum2 += (uint64_t)(int64_t)a[i];
    xr2 ^= (uint64_t)(uint32_t)a[i] * 2654435761u;
  }
  CHECK(sum == sum2 && xr == xr2);
  uint64_t h = e2e_hash(E2E_HASH_INIT, a, sizeof a);
  printf("sort seed=%llu min=%d median=%d max=%d hash=%016llx\n",
         (unsigned long long)seed, a[0], a[SORT_N / 2], a[SORT_N - 1],
         (unsigned long long)h);
  return h;
}

/* One 4 MiB local (fits the reference's 8 MiB main stack): more than the
 * arena commits at a time, so the first request has to grow it at once. */
E2E_NOINLINE static uint64_t run_sieve(void) {
  enum { LIMIT = 4 << 20 };
  unsigned char composite[LIMIT];
  memset(composite, 0, sizeof composite);
  int count = 0;
  uint64_t h = E2E_HASH_INIT;
  for (int i = 2; i < LIMIT; ++i) {
    if (composite[i])
      continue;
    ++count;
    if (count % 10000 == 0)
      h = e2e_mix(h, (uint64_t)i);
    for (long j = (long)i * i; j < LIMIT; j += i)
      composite[j] = 1;
  }
  CHECK(count == 295947); /* pi(2^22) */
  printf("sieve 2^22: %d primes, hash=%016llx\n", count, (unsigned long long)h);
  return h;
}

int main(void) {
  uint64_t total = run_sieve();
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    total = e2e_mix(total, run_matrix(seed * 7919));
    total = e2e_mix(total, run_ntt(seed * 104729));
    total = e2e_mix(total, run_sort(seed * 1299709));
  }
  printf("kernels total=%016llx\n", (unsigned long long)total);
  return 0;
}
