// What the process holds, from /proc/self: for tests that check the runtime
// gives memory back (thread exit, fork).
#ifndef SCOPEALLOC_TEST_PROCESS_MEMORY_H
#define SCOPEALLOC_TEST_PROCESS_MEMORY_H

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" {
#include "internal.h" // sa_process_totals_get: thread counts for the checks
}

struct ProcessMemory {
  size_t vm_size = 0;       // VmSize, bytes: every mapping, reserved or not
  size_t vm_rss = 0;        // VmRSS, bytes: resident
  size_t mappings = 0;      // lines of /proc/self/maps
};

// Reads /proc/self/status and /proc/self/maps.
ProcessMemory ReadProcessMemory();

// The default pool over the process, with its thread and reservation
// counts.
sa_process_totals ProcessTotals();

// Whether [p, p + 1 page) is mapped (mincore).
bool IsMapped(const void *p);

#endif
