/* Calibration of test/realworld/bounds.sh's measurement: a program whose
 * worst case is its only path and that writes every byte it reserves, so
 * that the painted-stack peak and the pool peak must come close to
 * scopealloc-bound's figures (a measurement that saw nothing, or counted
 * from the wrong place, fails here before it is trusted on real programs).
 * At the default policy `big` (over the 1024-byte limit) goes to the
 * workspace and `small` stays on the machine stack. No libc call: the
 * bound holds no assumption. */
__attribute__((noinline)) static int fill(volatile char *p, int n, int seed) {
  for (int i = 0; i < n; i++)
    p[i] = (char)(i + seed);
  return p[n - 1];
}

/* Twelve nested frames of 1000-byte buffers (kept on the stack): about
 * 12 KB, deeper than any assumed size on the way (the runtime's slow path,
 * 8 KiB), so that the critical chain is the program's own. */
#define LEVEL(n, next)                                                         \
  __attribute__((noinline)) static int level##n(int seed) {                    \
    volatile char small[1000];                                                 \
    return fill(small, (int)sizeof small, seed) + next(seed + 1);              \
  }
__attribute__((noinline)) static int level0(int seed) { return seed; }
LEVEL(1, level0)
LEVEL(2, level1)
LEVEL(3, level2)
LEVEL(4, level3)
LEVEL(5, level4)
LEVEL(6, level5)
LEVEL(7, level6)
LEVEL(8, level7)
LEVEL(9, level8)
LEVEL(10, level9)
LEVEL(11, level10)
LEVEL(12, level11)

__attribute__((noinline)) static int in_pool(int seed) {
  volatile char big[6000];
  return fill(big, (int)sizeof big, seed) + level12(seed + 1);
}

int main(int argc, char **argv) {
  (void)argv;
  return in_pool(argc) == 12345;
}
