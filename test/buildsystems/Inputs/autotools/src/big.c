#include "big.h"
/* An 8 KiB buffer: at limit 0 the workspace pool serves it. */
long big_checksum(int n) {
  volatile long buf[1024];
  for (int i = 0; i < n; ++i)
    buf[i] = i * 3 + 1;
  long total = 0;
  for (int i = 0; i < n; ++i)
    total += buf[i];
  return total;
}
