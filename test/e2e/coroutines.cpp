// C++20 coroutines: generators and lazily started tasks whose bodies use
// large local buffers, both across suspension points (those live in the
// coroutine frame) and between them (those stay allocas of the resume
// function and may be demoted); a buffer filled before co_yield must be
// intact after resumption, and awaiting tasks nest (symmetric transfer).
//
// RUN: bash %S/Inputs/compare.sh %s %t %clangxx %scxx -std=c++20
#include "Inputs/e2e.h"
#include <array>
#include <coroutine>
#include <cstring>
#include <exception>
#include <utility>

namespace {

template <typename T> struct Generator {
  struct promise_type {
    T value{};
    Generator get_return_object() {
      return Generator{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    std::suspend_always yield_value(T v) {
      value = v;
      return {};
    }
    void return_void() {}
    void unhandled_exception() { std::terminate(); }
  };
  explicit Generator(std::coroutine_handle<promise_type> h) : h(h) {}
  Generator(Generator &&o) noexcept : h(std::exchange(o.h, {})) {}
  ~Generator() {
    if (h)
      h.destroy();
  }
  bool next() {
    h.resume();
    return !h.done();
  }
  T value() const { return h.promise().value; }
  std::coroutine_handle<promise_type> h;
};

E2E_NOINLINE uint64_t scratch_hash(int i) {
  unsigned char tmp[2500]; // an ordinary demoted frame called from the coroutine
  memset(tmp, i & 0xff, sizeof tmp);
  e2e_escape(tmp);
  return e2e_hash(E2E_HASH_INIT, tmp, 64 + i % 100);
}

Generator<uint64_t> produce(int n, int salt) {
  std::array<uint32_t, 1024> kept; // 4 KiB, lives across every co_yield
  for (size_t i = 0; i < kept.size(); ++i)
    kept[i] = static_cast<uint32_t>(i * salt);
  for (int i = 0; i < n; ++i) {
    uint64_t h;
    {
      char between[3000]; // used only between two suspension points
      int len = snprintf(between, sizeof between, "step %d salt %d", i, salt);
      memset(between + len, 'x', sizeof between - len);
      e2e_escape(between);
      h = e2e_hash(E2E_HASH_INIT, between, sizeof between);
    }
    co_yield e2e_mix(h, scratch_hash(i));
    for (size_t k = 0; k < kept.size(); k += 97)
      CHECK(kept[k] == static_cast<uint32_t>(k * salt));
    kept[i % kept.size()] += 0; // still in use after resumption
  }
}

struct Task {
  struct promise_type {
    uint64_t result = 0;
    std::coroutine_handle<> continuation = std::noop_coroutine();
    Task get_return_object() {
      return Task{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    struct Final {
      bool await_ready() noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept {
        return h.promise().continuation;
      }
      void await_resume() noexcept {}
    };
    Final final_suspend() noexcept { return {}; }
    void return_value(uint64_t v) { result = v; }
    void unhandled_exception() { std::terminate(); }
  };
  explicit Task(std::coroutine_handle<promise_type> h) : h(h) {}
  Task(Task &&o) noexcept : h(std::exchange(o.h, {})) {}
  ~Task() {
    if (h)
      h.destroy();
  }
  bool await_ready() { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) {
    h.promise().continuation = caller;
    return h;
  }
  uint64_t await_resume() { return h.promise().result; }
  uint64_t run() {
    h.resume();
    CHECK(h.done());
    return h.promise().result;
  }
  std::coroutine_handle<promise_type> h;
};

Task leaf(int depth) {
  long local[400]; // 3.2 KiB
  for (int i = 0; i < 400; ++i)
    local[i] = depth * 1000 + i;
  e2e_escape(local);
  co_return static_cast<uint64_t>(local[depth % 400]);
}

Task tree(int depth) {
  unsigned char buf[2048];
  memset(buf, depth, sizeof buf);
  e2e_escape(buf);
  if (depth == 0)
    co_return co_await leaf(0);
  uint64_t a = co_await tree(depth - 1);
  uint64_t b = co_await leaf(depth);
  for (size_t i = 0; i < sizeof buf; i += 101)
    CHECK(buf[i] == static_cast<unsigned char>(depth));
  co_return e2e_mix(a, b) ^ buf[depth];
}

} // namespace

int main() {
  uint64_t total = E2E_HASH_INIT;
  int count = 0;
  {
    // Two generators interleaved: their frames' buffers must not mix.
    Generator<uint64_t> g1 = produce(300, 3), g2 = produce(200, 7);
    bool more1 = true, more2 = true;
    while (more1 || more2) {
      if (more1 && (more1 = g1.next())) {
        total = e2e_mix(total, g1.value());
        ++count;
      }
      if (more2 && (more2 = g2.next())) {
        total = e2e_mix(total, g2.value() * 3);
        ++count;
      }
    }
  }
  printf("generators: %d values %016llx\n", count, (unsigned long long)total);
  uint64_t t = 0;
  for (int d = 0; d < 30; ++d)
    t = e2e_mix(t, tree(d).run());
  printf("tasks: %016llx\n", (unsigned long long)t);
  return 0;
}
