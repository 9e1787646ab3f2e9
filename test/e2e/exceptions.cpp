// C++ exceptions through demoted frames: thrown from a function with a 4 KiB
// local buffer and caught two frames up, rethrown, thrown through
// destructors that use large buffers, caught by base class, and exceptions
// whose what() string was formatted in a big local buffer, a C-style
// cleanup attribute on a big buffer, and VLAs around and inside try blocks
// in a loop. Besides the output, compare.sh checks that nothing is left in
// the arena at exit: the catching frames restore it at their landing pads.
//
// RUN: bash %S/Inputs/compare.sh %s %t %clangxx %scxx
#include "Inputs/e2e.h"
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct ParseError : std::runtime_error {
  int code;
  ParseError(const std::string &m, int c) : std::runtime_error(m), code(c) {}
};

int unwound; // destructors run during unwinding

struct Guard {
  std::array<unsigned char, 3000> scratch;
  int id;
  explicit Guard(int i) : id(i) { scratch.fill(static_cast<unsigned char>(i)); }
  ~Guard() {
    char note[1500]; // the destructor's own big buffer
    snprintf(note, sizeof note, "guard %d %d", id, scratch[2999]);
    e2e_escape(note);
    CHECK(scratch[1234] == static_cast<unsigned char>(id));
    ++unwound;
  }
};

// Level 0: the thrower, with a 4 KiB local buffer.
E2E_NOINLINE int thrower(int i) {
  char buf[4096];
  int n = snprintf(buf, sizeof buf, "item %d is bad", i);
  for (int k = n; k < 4095; ++k)
    buf[k] = static_cast<char>('a' + k % 26);
  buf[4095] = 0;
  e2e_escape(buf);
  if (i % 3 == 0) {
    buf[n] = 0;
    throw ParseError(buf, i);
  }
  if (i % 7 == 0)
    throw std::out_of_range(std::string("range ") + std::to_string(i));
  return buf[100 + i % 3000] + i;
}

// Level 1: an intermediate frame with its own buffer and a guard object.
E2E_NOINLINE int middle(int i) {
  Guard g(i & 0xff);
  long local[512]; // 4 KiB
  for (int k = 0; k < 512; ++k)
    local[k] = k * i;
  e2e_escape(local);
  int r = thrower(i);
  CHECK(local[511] == 511L * i);
  return r + static_cast<int>(local[i % 512] % 1000);
}

// Level 2: catches.
E2E_NOINLINE long catcher(int n, std::string &log) {
  long sum = 0;
  for (int i = 0; i < n; ++i) {
    unsigned char mine[2048];
    memset(mine, i & 0xff, sizeof mine);
    e2e_escape(mine);
    try {
      sum += middle(i);
    } catch (const ParseError &e) {
      sum += e.code * 3;
      if (i < 12)
        log += std::string(e.what()) + ";";
    } catch (const std::exception &e) {
      sum += 1000;
      if (i < 30)
        log += std::string("[") + e.what() + "]";
    }
    CHECK(mine[0] == (i & 0xff) && mine[2047] == (i & 0xff));
  }
  return sum;
}

// Rethrow through a frame that adds context from a large buffer.
E2E_NOINLINE void rethrower(int i) {
  char context[5000];
  snprintf(context, sizeof context, "while handling %d", i);
  try {
    middle(i);
  } catch (ParseError &e) {
    e.code += 1000;
    throw;
  } catch (...) {
    throw std::runtime_error(std::string(context) + " (converted)");
  }
}

E2E_NOINLINE int recursive_throw(int depth, int at) {
  std::array<int, 700> frame; // 2.8 KiB per level
  frame.fill(depth);
  e2e_escape(frame.data());
  if (depth == at)
    throw depth * 10;
  int r = recursive_throw(depth + 1, at);
  return r + frame[depth % 700];
}

// A C-style cleanup on a big buffer runs while the exception passes.
int cleaned;
void cleanup_buf(char (*p)[3000]) { cleaned += (*p)[2999] == 'c'; }

E2E_NOINLINE int with_cleanup(int i) {
  __attribute__((cleanup(cleanup_buf))) char buf[3000];
  memset(buf, 'c', sizeof buf);
  e2e_escape(buf);
  return thrower(i) + buf[i % 3000];
}

#pragma clang diagnostic ignored "-Wvla-cxx-extension"
// VLAs (a clang extension in C++) around and inside try blocks in a loop.
E2E_NOINLINE long vla_catch(int n) {
  long s = 0;
  for (int i = 0; i < n; ++i) {
    int len = 100 + i % 900;
    int v[len];
    for (int k = 0; k < len; ++k)
      v[k] = k + i;
    e2e_escape(v);
    try {
      s += with_cleanup(i) + v[len - 1];
    } catch (const std::exception &e) {
      s += static_cast<long>(strlen(e.what())) + v[0];
    }
    try {
      short w[len];
      w[len - 1] = static_cast<short>(i);
      e2e_escape(w);
      s += thrower(i + 1) + w[len - 1]; // leaves w's scope by exception
    } catch (...) {
      s += 1;
    }
    CHECK(v[len / 2] == len / 2 + i);
  }
  return s;
}

} // namespace

int main() {
  std::string log;
  long s = catcher(600, log);
  printf("catcher sum=%ld unwound=%d\n", s, unwound);
  printf("log: %s\n", log.c_str());

  int caught = 0;
  long codes = 0;
  std::vector<std::string> converted;
  for (int i = 0; i < 200; ++i) {
    try {
      rethrower(i);
    } catch (const ParseError &e) {
      ++caught;
      codes += e.code;
    } catch (const std::runtime_error &e) {
      ++caught;
      if (converted.size() < 3)
        converted.push_back(e.what());
    }
  }
  printf("rethrow caught=%d codes=%ld\n", caught, codes);
  for (const auto &c : converted)
    printf("  %s\n", c.c_str());

  long deep = 0;
  for (int at = 0; at < 300; at += 7) {
    try {
      deep += recursive_throw(0, at);
    } catch (int v) {
      deep += v;
    }
  }
  printf("recursive throws: %ld\n", deep);
  printf("vla_catch: %ld cleaned=%d\n", vla_catch(300), cleaned);
  printf("unwound total=%d\n", unwound);
  return 0;
}
