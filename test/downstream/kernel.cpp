// The C++ half of with_policy/without: scopealloc_enable() covers C++
// sources too.
#include <array>
#include <numeric>

__attribute__((noinline)) static unsigned fill(std::array<unsigned, 150> &a,
                                               unsigned seed) {
  std::iota(a.begin(), a.end(), seed);
  return std::accumulate(a.begin(), a.end(), 0u,
                         [](unsigned s, unsigned v) { return s * 31u + v; });
}

extern "C" unsigned kernel_checksum(unsigned seed) {
  std::array<unsigned, 150> values; // 600 bytes, filled by a call
  return fill(values, seed);
}
