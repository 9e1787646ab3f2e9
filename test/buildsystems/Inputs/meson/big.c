/* An 8 KiB buffer: over any limit, so at limit 0 (and at the default
   1024-byte limit) the workspace pool serves it. volatile keeps it in
   memory through -O2 and LTO. */
long checksum(int n) {
  volatile long buf[1024];
  for (int i = 0; i < n; ++i)
    buf[i] = i * 3 + 1;
  long total = 0;
  for (int i = 0; i < n; ++i)
    total += buf[i];
  return total;
}
