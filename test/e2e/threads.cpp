// std::thread: workers with large local std::array / C arrays, VLAs (a
// clang extension in C++) and recursion, plus a lambda thread capturing
// the launching frame's local array by reference, and exceptions thrown
// and caught inside each thread. Results are collected in order.
//
// RUN: bash %S/Inputs/compare.sh %s %t %clangxx %scxx -pthread
#include "Inputs/e2e.h"
#include <array>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<int> arrived{0};

void wait_all(int n) {
  arrived.fetch_add(1);
  while (arrived.load() < n)
    std::this_thread::yield();
}

E2E_NOINLINE uint64_t rec(int depth, int id) {
  std::array<uint32_t, 600> frame; // 2.4 KiB
  for (size_t i = 0; i < frame.size(); ++i)
    frame[i] = static_cast<uint32_t>(i * id + depth);
  e2e_escape(frame.data());
  uint64_t below = depth ? rec(depth - 1, id) : id;
  CHECK(frame[599] == static_cast<uint32_t>(599 * id + depth));
  return e2e_mix(below, frame[depth % 600]);
}

#pragma clang diagnostic ignored "-Wvla-cxx-extension"
E2E_NOINLINE uint64_t dyn(int id, int iters) {
  uint64_t h = E2E_HASH_INIT;
  for (int i = 0; i < iters; ++i) {
    int n = 32 + (i * 53 + id) % 1500;
    int16_t v[n];
    for (int k = 0; k < n; ++k)
      v[k] = static_cast<int16_t>(k ^ i ^ id);
    e2e_escape(v);
    h = e2e_mix(h, static_cast<uint64_t>(v[n - 1] + v[0]));
  }
  return h;
}

E2E_NOINLINE int may_throw(int i) {
  char msg[2048];
  snprintf(msg, sizeof msg, "thread failure %d", i);
  if (i % 5 == 0)
    throw std::runtime_error(msg);
  return static_cast<int>(strlen(msg));
}

void worker(int id, uint64_t *out, int nthreads) {
  std::array<double, 4096> big; // 32 KiB
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<double>(i) * id;
  e2e_escape(big.data());
  wait_all(nthreads);
  uint64_t h = dyn(id, 3000);
  h = e2e_mix(h, rec(200, id));
  int errors = 0;
  for (int i = 0; i < 50; ++i) {
    try {
      h = e2e_mix(h, static_cast<uint64_t>(may_throw(i + id)));
    } catch (const std::exception &e) {
      ++errors;
      h = e2e_mix(h, strlen(e.what()));
    }
  }
  for (size_t i = 0; i < big.size(); i += 31)
    CHECK(big[i] == static_cast<double>(i) * id);
  *out = e2e_mix(h, static_cast<uint64_t>(errors));
}

} // namespace

int main() {
  const int n = 4;
  std::vector<uint64_t> results(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back(worker, i + 1, &results[i], n);
  for (auto &t : threads)
    t.join();
  for (int i = 0; i < n; ++i)
    printf("worker %d: %016llx\n", i + 1, (unsigned long long)results[i]);

  // A lambda thread working on the launching frame's local array.
  unsigned shared[4096]; // 16 KiB, owned by main's frame
  for (unsigned i = 0; i < 4096; ++i)
    shared[i] = i;
  std::thread t1([&shared] {
    unsigned tmp[4096];
    memcpy(tmp, shared, sizeof tmp);
    for (unsigned i = 0; i < 4096; ++i)
      shared[i] = tmp[4095 - i] * 3;
  });
  t1.join();
  printf("shared: %u %u %016llx\n", shared[0], shared[4095],
         (unsigned long long)e2e_hash(E2E_HASH_INIT, shared, sizeof shared));

  // Short-lived threads in sequence: every one starts with a fresh arena.
  uint64_t h = E2E_HASH_INIT;
  for (int i = 0; i < 20; ++i) {
    uint64_t r = 0;
    std::thread t([&r, i] { r = rec(50 + i, i); });
    t.join();
    h = e2e_mix(h, r);
  }
  printf("sequential threads: %016llx\n", (unsigned long long)h);
  return 0;
}
