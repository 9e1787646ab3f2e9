/* A 2 KiB buffer that must live in memory: moved at limit 0. */
#include <string.h>

__attribute__((noinline)) int sum(const char *p, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i)
    s += p[i];
  return s;
}

int main(int argc, char **argv) {
  char buf[2048];
  memset(buf, argc, sizeof buf);
  (void)argv;
  return sum(buf, sizeof buf) == 2048 ? 0 : 1;
}
