// C++ objects in demoted frames: classes with large std::array members as
// locals (constructors, copies, moves), destructors that write into a
// caller's log buffer (so destruction order and timing are visible),
// templates instantiated for several buffer sizes, lambdas capturing local
// arrays by reference, and std::vector / std::string mixed with big arrays.
//
// RUN: bash %S/Inputs/compare.sh %s %t %clangxx %scxx
#include "Inputs/e2e.h"
#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace {

struct Log {
  char text[8192];
  size_t used = 0;
  Log() { text[0] = 0; }
  void add(const char *fmt, long a, long b) {
    int n = snprintf(text + used, sizeof text - used, fmt, a, b);
    CHECK(n > 0 && used + (size_t)n < sizeof text);
    used += (size_t)n;
  }
};

class Block {
public:
  Block(Log &log, int id) : log_(log), id_(id) {
    for (size_t i = 0; i < data_.size(); ++i)
      data_[i] = static_cast<int>(i) * id;
    log_.add("+B%ld(%ld) ", id_, (long)data_.size());
  }
  Block(const Block &o) : log_(o.log_), id_(o.id_ + 100), data_(o.data_) {
    log_.add("cB%ld<-%ld ", id_, o.id_);
  }
  ~Block() {
    // The destructor reads its own (large) state and writes into the log
    // that lives in the caller's frame.
    long s = std::accumulate(data_.begin(), data_.end(), 0L);
    log_.add("-B%ld:%ld ", id_, s % 100000);
  }
  int &operator[](size_t i) { return data_[i]; }
  long sum() const { return std::accumulate(data_.begin(), data_.end(), 0L); }

private:
  Log &log_;
  long id_;
  std::array<int, 1024> data_; // 4 KiB
};

E2E_NOINLINE long scopes(Log &log, int n) {
  Block outer(log, 1);
  long total = 0;
  for (int i = 0; i < n; ++i) {
    Block inner(log, 10 + i);
    inner[5] = i;
    if (i % 2) {
      Block copy(inner);
      total += copy.sum() % 1000;
      continue;
    }
    total += inner.sum() % 777;
  }
  outer[0] = static_cast<int>(total);
  return total + outer.sum();
}

template <typename T, size_t N> struct Matrix {
  std::array<T, N * N> m{};
  T &at(size_t r, size_t c) { return m[r * N + c]; }
  Matrix operator*(const Matrix &o) const {
    Matrix r; // a large temporary in the operator's frame
    for (size_t i = 0; i < N; ++i)
      for (size_t k = 0; k < N; ++k)
        for (size_t j = 0; j < N; ++j)
          r.m[i * N + j] += m[i * N + k] * o.m[k * N + j];
    return r;
  }
};

template <typename T, size_t N> E2E_NOINLINE uint64_t matrix_power(int seed) {
  Matrix<T, N> a, acc;
  for (size_t i = 0; i < N; ++i)
    for (size_t j = 0; j < N; ++j) {
      a.at(i, j) = static_cast<T>((i * 3 + j * 5 + seed) % 7);
      acc.at(i, j) = i == j;
    }
  for (int p = 0; p < 5; ++p)
    acc = acc * a;
  return e2e_hash(E2E_HASH_INIT, acc.m.data(), sizeof acc.m);
}

E2E_NOINLINE uint64_t lambdas() {
  int hist[1024] = {}; // 4 KiB, captured by reference
  char names[64][40] = {}; // 2.5 KiB
  auto bump = [&hist](int v) { hist[(v * 7) & 1023] += v; };
  auto name = [&](int i) {
    snprintf(names[i], sizeof names[i], "lambda-%d-%d", i, hist[i * 16]);
  };
  for (int i = 0; i < 5000; ++i)
    bump(i);
  for (int i = 0; i < 64; ++i)
    name(i);
  std::function<uint64_t(int)> fold = [&](int depth) -> uint64_t {
    long local[256]; // 2 KiB per level of the recursive lambda
    for (int i = 0; i < 256; ++i)
      local[i] = hist[(i + depth) & 1023];
    e2e_escape(local);
    uint64_t below = depth ? fold(depth - 1) : 0;
    return e2e_mix(below, e2e_hash(E2E_HASH_INIT, local, sizeof local));
  };
  uint64_t h = fold(100);
  return e2e_hash(h, names, sizeof names);
}

E2E_NOINLINE std::string mixed(int n) {
  std::vector<std::string> parts;
  std::array<char, 2048> buf;
  std::array<double, 512> weights; // 4 KiB
  for (int i = 0; i < n; ++i) {
    weights[i % 512] = i * 0.25;
    int len = snprintf(buf.data(), buf.size(), "[%d:%.2f]", i, weights[i % 512]);
    parts.emplace_back(buf.data(), len);
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto &p : parts)
    if (p.size() % 3 == 0)
      out += p;
  std::vector<int> big(5000);
  std::iota(big.begin(), big.end(), 1);
  long s = std::accumulate(big.begin(), big.end(), 0L);
  out += "|" + std::to_string(s) + "|" + std::to_string(parts.size());
  return out;
}

} // namespace

int main() {
  Log log;
  long r = scopes(log, 4);
  printf("scopes: %ld\nlog: %s\n", r, log.text);
  printf("matrix<int,16>: %016llx\n", (unsigned long long)matrix_power<int, 16>(1));
  printf("matrix<long,24>: %016llx\n", (unsigned long long)matrix_power<long, 24>(2));
  printf("matrix<double,12>: %016llx\n",
         (unsigned long long)matrix_power<double, 12>(3));
  printf("lambdas: %016llx\n", (unsigned long long)lambdas());
  std::string m = mixed(3000);
  printf("mixed: len=%zu hash=%016llx tail=%s\n", m.size(),
         (unsigned long long)e2e_hash(E2E_HASH_INIT, m.data(), m.size()),
         m.substr(m.size() - 20).c_str());
  return 0;
}
