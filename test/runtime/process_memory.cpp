#include "process_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

ProcessMemory ReadProcessMemory() {
  ProcessMemory m;
  if (FILE *f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      size_t kib;
      if (std::sscanf(line, "VmSize: %zu kB", &kib) == 1)
        m.vm_size = kib << 10;
      else if (std::sscanf(line, "VmRSS: %zu kB", &kib) == 1)
        m.vm_rss = kib << 10;
    }
    std::fclose(f);
  }
  if (FILE *f = std::fopen("/proc/self/maps", "r")) {
    char line[4096];
    while (std::fgets(line, sizeof line, f)) {
      uintptr_t lo, hi;
      if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &lo, &hi) != 2)
        continue;
      m.mappings++;
    }
    std::fclose(f);
  }
  return m;
}

sa_process_totals ProcessTotals() {
  sa_process_totals t;
  sa_process_totals_get(&t);
  return t;
}

bool IsMapped(const void *p) {
  uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  void *start =
      reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(p) & ~(page - 1));
  unsigned char vec[1];
  return mincore(start, 1, vec) == 0;
}
