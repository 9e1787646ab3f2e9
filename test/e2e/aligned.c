// Over-aligned locals: _Alignas(64), _Alignas(4096) and _Alignas(65536)
// arrays and scalars, structs with over-aligned members, VLAs of an
// over-aligned type and __builtin_alloca_with_align, at varying arena
// offsets (recursion and odd sized neighbours). The program checks every address at run time.
// The arena peaks at about 270 KiB; VLAs and aligned allocas in the loop
// that were never released would need more than 1 MiB.
// COMPARE: max-peak=786432
//
// RUN: bash %S/Inputs/compare.sh %s %t %clang %scc
#include "Inputs/e2e.h"
#include <string.h>

static int misaligned;
#define CHECK_ALIGN(p, a)                                                      \
  do {                                                                         \
    if (e2e_launder(p) & ((uintptr_t)(a)-1)) {                                 \
      printf("misaligned: %s (alignment %d) line %d\n", #p, (int)(a),          \
             __LINE__);                                                        \
      ++misaligned;                                                            \
    }                                                                          \
  } while (0)

struct line {
  _Alignas(128) unsigned char bytes[200];
  int tag;
};

struct page_holder {
  char head[3];
  _Alignas(4096) unsigned char page[4096];
};

/* A frame of odd-sized neighbours around over-aligned buffers. */
E2E_NOINLINE static uint64_t frame(int depth, int salt) {
  char odd1[1 + 37 * (1 + 0)];
  _Alignas(64) unsigned char cache[1500];
  char odd2[3];
  _Alignas(4096) unsigned char page[4096];
  _Alignas(4096) int lone; /* small but page aligned */
  struct line lines[3];
  struct page_holder ph;
  _Alignas(256) double d[5];

  CHECK_ALIGN(cache, 64);
  CHECK_ALIGN(page, 4096);
  CHECK_ALIGN(&lone, 4096);
  CHECK_ALIGN(&lines[0], 128);
  CHECK_ALIGN(&lines[1].bytes, 128);
  CHECK_ALIGN(&lines[2], 128);
  CHECK_ALIGN(ph.page, 4096);
  CHECK_ALIGN(d, 256);

  memset(odd1, salt, sizeof odd1);
  memset(odd2, salt + 1, sizeof odd2);
  for (int i = 0; i < (int)sizeof cache; ++i)
    cache[i] = (unsigned char)(i + salt);
  for (int i = 0; i < (int)sizeof page; ++i)
    page[i] = (unsigned char)(i * 3 + salt);
  lone = salt * 1000 + depth;
  for (int l = 0; l < 3; ++l) {
    memset(lines[l].bytes, l + salt, sizeof lines[l].bytes);
    lines[l].tag = l * salt;
  }
  memset(ph.head, 9, sizeof ph.head);
  memset(ph.page, salt ^ 0x5a, sizeof ph.page);
  for (int i = 0; i < 5; ++i)
    d[i] = depth * 0.5 + i;
  e2e_escape(odd1);
  e2e_escape(odd2);
  e2e_escape(&lone);
  e2e_escape(&ph);

  uint64_t below = depth > 0 ? frame(depth - 1, salt + 1) : 1;

  /* Nothing deeper clobbered this frame. */
  CHECK(odd1[0] == (char)salt && odd2[2] == (char)(salt + 1));
  CHECK(cache[1499] == (unsigned char)(1499 + salt));
  CHECK(page[4095] == (unsigned char)(4095 * 3 + salt));
  CHECK(lone == salt * 1000 + depth);
  CHECK(lines[2].tag == 2 * salt && lines[1].bytes[199] == (unsigned char)(1 + salt));
  CHECK(ph.head[0] == 9 && ph.page[4095] == (unsigned char)(salt ^ 0x5a));
  CHECK(d[4] == depth * 0.5 + 4);

  uint64_t h = e2e_hash(E2E_HASH_INIT, cache, sizeof cache);
  h = e2e_hash(h, page, 64);
  h = e2e_hash(h, &lone, sizeof lone);
  return e2e_mix(below, h);
}

typedef struct {
  _Alignas(64) float v[16];
} vec64;

/* VLA of an over-aligned element type; __builtin_alloca_with_align. */
E2E_NOINLINE static uint64_t dynamic(int iters) {
  uint64_t h = E2E_HASH_INIT;
  for (int i = 0; i < iters; ++i) {
    char pad[1 + i % 61]; /* shifts the arena/stack top by odd amounts */
    memset(pad, 1, sizeof pad);
    e2e_escape(pad);
    int n = 1 + i % 9;
    vec64 vs[n];
    CHECK_ALIGN(vs, 64);
    CHECK_ALIGN(&vs[n - 1], 64);
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < 16; ++j)
        vs[k].v[j] = (float)(k * 16 + j + i);
    e2e_escape(vs);
    unsigned char *big = __builtin_alloca_with_align(100 + (size_t)i % 900, 1024 * 8);
    CHECK_ALIGN(big, 1024);
    memset(big, i & 0xff, 100);
    e2e_escape(big);
    h = e2e_mix(h, (uint64_t)vs[n - 1].v[15] + big[99]);
  }
  return h;
}

/* Alignment larger than a page. */
E2E_NOINLINE static uint64_t huge_align(int salt) {
  char before[77];
  _Alignas(65536) unsigned char block[300];
  _Alignas(8192) long words[9];
  CHECK_ALIGN(block, 65536);
  CHECK_ALIGN(words, 8192);
  memset(before, salt, sizeof before);
  memset(block, salt + 1, sizeof block);
  for (int i = 0; i < 9; ++i)
    words[i] = salt * i;
  e2e_escape(before);
  e2e_escape(block);
  e2e_escape(words);
  return e2e_mix(e2e_hash(E2E_HASH_INIT, block, sizeof block),
                 (uint64_t)words[8] + (uint64_t)before[76]);
}

int main(void) {
  uint64_t h = E2E_HASH_INIT;
  for (int i = 0; i < 40; ++i)
    h = e2e_mix(h, frame(i % 13, i));
  printf("frames: %016llx\n", (unsigned long long)h);
  printf("dynamic: %016llx\n", (unsigned long long)dynamic(500));
  uint64_t ha = E2E_HASH_INIT;
  for (int i = 0; i < 5; ++i)
    ha = e2e_mix(ha, i % 2 ? huge_align(i) : frame(i, i) ^ huge_align(i));
  printf("huge alignment: %016llx\n", (unsigned long long)ha);
  if (misaligned) {
    printf("%d misaligned objects\n", misaligned);
    return 2;
  }
  printf("aligned ok\n");
  return 0;
}
