/* ScopeAlloc demo: a small image pipeline whose buffers are too big for a
 * careful stack policy. Built with scopealloc-clang, the 16 KiB image and
 * the 8 KiB scratch line move to the workspace pool, the histogram VLA too;
 * the small kernel stays on the stack. The output is the same as with clang.
 */
#include <stdio.h>
#include <string.h>

#define W 64
#define H 64

static unsigned checksum(const float *p, int n) {
  unsigned h = 2166136261u;
  for (int i = 0; i < n; ++i)
    h = (h ^ (unsigned)(p[i] * 1000.0f)) * 16777619u;
  return h;
}

/* 3x3 box blur, repeated: image[] and scratch[] live for the whole call. */
__attribute__((noinline)) static unsigned blur(int rounds) {
  float image[H][W];       /* 16 KiB */
  float scratch[2][W * 16]; /* 8 KiB */
  float kernel[3] = {0.25f, 0.5f, 0.25f};
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      image[y][x] = (float)((x * 7 + y * 13) % 31);
  for (int r = 0; r < rounds; ++r) {
    for (int y = 1; y < H - 1; ++y) {
      float *line = scratch[y & 1];
      for (int x = 1; x < W - 1; ++x)
        line[x] = kernel[0] * image[y][x - 1] + kernel[1] * image[y][x] +
                  kernel[2] * image[y][x + 1];
      memcpy(&image[y][1], &line[1], (W - 2) * sizeof(float));
    }
  }
  return checksum(&image[0][0], W * H);
}

/* A histogram whose size is only known at run time: a VLA. */
__attribute__((noinline)) static int busiest_bin(int bins, unsigned seed) {
  int count[bins];
  memset(count, 0, sizeof count);
  for (int i = 0; i < 10000; ++i) {
    seed = seed * 1103515245u + 12345u;
    count[(seed >> 16) % (unsigned)bins]++;
  }
  int best = 0;
  for (int b = 1; b < bins; ++b)
    if (count[b] > count[best])
      best = b;
  return best;
}

/* Recursion with a 2 KiB buffer per frame: every frame releases its own. */
__attribute__((noinline)) static unsigned depth_sum(int depth) {
  char trail[2048];
  memset(trail, depth & 0x7f, sizeof trail);
  if (depth == 0)
    return (unsigned char)trail[100];
  return (unsigned char)trail[depth] + depth_sum(depth - 1);
}

int main(void) {
  printf("blur checksum:  %u\n", blur(8));
  for (int bins = 16; bins <= 4096; bins *= 4)
    printf("busiest of %4d bins: %d\n", bins, busiest_bin(bins, 42u + (unsigned)bins));
  printf("depth sum:      %u\n", depth_sum(200));
  return 0;
}
