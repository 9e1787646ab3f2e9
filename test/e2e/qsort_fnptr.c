// Function pointers: qsort and bsearch with comparators that format their
// keys into 2 KiB local buffers, a table of transforms (each with a large
// local buffer) called through pointers, and arrays of structs passed by
// pointer to functions that modify them.
//
// RUN: bash %S/Inputs/compare.sh %s %t %clang %scc
#include "Inputs/e2e.h"
#include <string.h>

struct rec {
  char name[24];
  int key;
  int weight;
  unsigned char payload[40];
};

#define NREC 1500
static long comparisons;

/* Sorts by a formatted key: weight descending, then name, then key. */
static int cmp_formatted(const void *pa, const void *pb) {
  const struct rec *a = pa, *b = pb;
  char ka[2048], kb[2048];
  snprintf(ka, sizeof ka, "%08d|%s|%06d", 99999999 - a->weight, a->name, a->key);
  snprintf(kb, sizeof kb, "%08d|%s|%06d", 99999999 - b->weight, b->name, b->key);
  ++comparisons;
  return strcmp(ka, kb);
}

/* Sorts by key, comparing through a 1.2 KiB table of digit weights. */
static int cmp_key(const void *pa, const void *pb) {
  int order[300];
  for (int i = 0; i < 300; ++i)
    order[i] = i;
  e2e_escape(order);
  const struct rec *a = pa, *b = pb;
  return order[a->key % 300] != order[b->key % 300]
             ? order[a->key % 300] - order[b->key % 300]
             : (a->key > b->key) - (a->key < b->key);
}

E2E_NOINLINE static void fill(struct rec *r, int n, uint64_t seed) {
  uint64_t st = seed;
  for (int i = 0; i < n; ++i) {
    snprintf(r[i].name, sizeof r[i].name, "item-%c%c%llu",
             'a' + (int)(e2e_rand(&st) % 26), 'a' + (int)(e2e_rand(&st) % 26),
             (unsigned long long)(e2e_rand(&st) % 1000));
    r[i].key = i * 7 + 3; /* unique */
    r[i].weight = (int)(e2e_rand(&st) % 50);
    for (int k = 0; k < 40; ++k)
      r[i].payload[k] = (unsigned char)(r[i].key + k);
  }
}

/* Transforms applied through a table of function pointers. */
typedef void (*transform_fn)(struct rec *, int);

static void t_reverse_names(struct rec *r, int n) {
  char scratch[4096];
  for (int i = 0; i < n; ++i) {
    size_t len = strlen(r[i].name);
    memcpy(scratch, r[i].name, len);
    for (size_t k = 0; k < len; ++k)
      r[i].name[k] = scratch[len - 1 - k];
  }
}

static void t_prefix_sums(struct rec *r, int n) {
  int sums[NREC]; /* 6 KiB */
  int s = 0;
  for (int i = 0; i < n; ++i)
    sums[i] = s += r[i].weight;
  e2e_escape(sums);
  for (int i = 0; i < n; ++i)
    r[i].weight = sums[i] % 1000;
}

static void t_rotate_payload(struct rec *r, int n) {
  struct rec copy[64]; /* 4.5 KiB */
  for (int i = 0; i + 64 <= n; i += 64) {
    memcpy(copy, r + i, sizeof copy);
    for (int k = 0; k < 64; ++k)
      memcpy(r[i + k].payload, copy[(k + 1) % 64].payload, 40);
  }
}

static transform_fn transforms[] = {t_reverse_names, t_prefix_sums,
                                    t_rotate_payload};

E2E_NOINLINE static uint64_t digest(const struct rec *r, int n) {
  uint64_t h = E2E_HASH_INIT;
  for (int i = 0; i < n; ++i) {
    h = e2e_hash(h, r[i].name, strlen(r[i].name));
    h = e2e_mix(h, (uint64_t)r[i].key * 1000 + (uint64_t)r[i].weight);
    h = e2e_hash(h, r[i].payload, sizeof r[i].payload);
  }
  return h;
}

int main(void) {
  struct rec recs[NREC]; /* ~105 KiB */
  fill(recs, NREC, 42);
  printf("initial: %016llx\n", (unsigned long long)digest(recs, NREC));

  qsort(recs, NREC, sizeof recs[0], cmp_formatted);
  for (int i = 1; i < NREC; ++i)
    CHECK(cmp_formatted(&recs[i - 1], &recs[i]) < 0);
  printf("by weight/name: first=%s/%d last=%s/%d %016llx\n", recs[0].name,
         recs[0].weight, recs[NREC - 1].name, recs[NREC - 1].weight,
         (unsigned long long)digest(recs, NREC));
  printf("comparisons>0: %d\n", comparisons > 0);

  for (int t = 0; t < 3; ++t) {
    transforms[t](recs, NREC);
    printf("transform %d: %016llx\n", t, (unsigned long long)digest(recs, NREC));
  }

  int (*cmp)(const void *, const void *) = cmp_key;
  qsort(recs, NREC, sizeof recs[0], cmp);
  for (int i = 1; i < NREC; ++i)
    CHECK(cmp(&recs[i - 1], &recs[i]) < 0);
  int found = 0;
  for (int key = 0; key < NREC * 7 + 10; key += 5) {
    struct rec probe;
    memset(&probe, 0, sizeof probe);
    probe.key = key;
    struct rec *hit = bsearch(&probe, recs, NREC, sizeof recs[0], cmp);
    if (hit) {
      CHECK(hit->key == key && (key - 3) % 7 == 0);
      ++found;
    } else {
      CHECK(key < 3 || (key - 3) % 7 != 0 || key > (NREC - 1) * 7 + 3);
    }
  }
  printf("by key: %016llx, bsearch found %d\n",
         (unsigned long long)digest(recs, NREC), found);
  return 0;
}
