// scope-alloc placed before coro-split in an explicit pipeline: a buffer
// that lives across co_await stays in the coroutine frame, so the caller's
// demoted frames, which reuse the arena between resumptions, cannot
// overwrite it; and an exception caught inside the coroutine frees what the
// frames it skipped took, and only that: the resumption's caller keeps its
// own demoted buffer even when it is deeper than the coroutine's creator,
// and the arena's top after 1000 resumptions, half of them with a caught
// throw from a demoted frame, is where it started.
//
// RUN: %clangxx -std=c++20 -O1 -Xclang -disable-llvm-passes -emit-llvm -c \
// RUN:   -I%rtinc %s -o %t.bc
// RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 \
// RUN:   -passes='coro-early,scope-alloc,cgscc(coro-split),coro-cleanup,verify' \
// RUN:   %t.bc -o %t.split.bc
// RUN: %clangxx -O1 %t.split.bc %rtlib -lpthread -o %t.exe
// RUN: %t.exe | FileCheck %s
// The usual order (coro-split, then scope-alloc) gives the same results.
// RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 \
// RUN:   -passes='coro-early,cgscc(coro-split),scope-alloc,coro-cleanup,verify' \
// RUN:   %t.bc -o %t.after.bc
// RUN: %clangxx -O1 %t.after.bc %rtlib -lpthread -o %t.after.exe
// RUN: %t.after.exe | FileCheck %s
// CHECK: rounds 1000 caught 500
// CHECK-NEXT: buffer intact across co_await: yes
// CHECK-NEXT: resumer's buffer intact: yes
// CHECK-NEXT: arena top back where it started: yes
#include "Inputs/e2e.h"
#include <coroutine>
#include <exception>
#include <cstring>
#include <scopealloc/scopealloc.h>

namespace {

struct Task {
  struct promise_type {
    Task get_return_object() {
      return Task{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() { std::terminate(); }
  };
  std::coroutine_handle<promise_type> h;
};

int Caught = 0;
bool Intact = true;
bool ResumerIntact = true;

// Demoted frames of the caller between resumptions: they take the arena
// memory right above the caller's top.
E2E_NOINLINE void clobber() {
  unsigned char big[65536];
  memset(big, 0xAA, sizeof big);
  e2e_escape(big);
}

E2E_NOINLINE void thrower(int round) {
  unsigned char big[8192];
  memset(big, round & 0xff, sizeof big);
  e2e_escape(big);
  if (round % 2)
    throw round;
}

Task worker(int rounds) {
  unsigned char buf[4096]; // lives across every co_await
  for (size_t i = 0; i < sizeof buf; ++i)
    buf[i] = static_cast<unsigned char>(i * 7);
  e2e_escape(buf);
  for (int round = 0; round < rounds; ++round) {
    co_await std::suspend_always{};
    for (size_t i = 0; i < sizeof buf; ++i)
      if (buf[i] != static_cast<unsigned char>(i * 7))
        Intact = false;
    try {
      thrower(round);
    } catch (int) {
      ++Caught;
    }
  }
}

// Resumes from deeper in the arena than the coroutine was created.
E2E_NOINLINE void resumeFromDeeper(Task &T) {
  unsigned char mine[2048];
  memset(mine, 0x5C, sizeof mine);
  e2e_escape(mine);
  T.h.resume();
  clobber();
  for (unsigned char C : mine)
    if (C != 0x5C)
      ResumerIntact = false;
}

} // namespace

int main() {
  const int Rounds = 1000;
  void *Before = __scopealloc_mark();
  Task T = worker(Rounds);
  for (int I = 0; I < Rounds; ++I) {
    clobber();
    if (I % 4 < 2)
      T.h.resume();
    else
      resumeFromDeeper(T);
  }
  void *After = __scopealloc_mark();
  CHECK(T.h.done());
  T.h.destroy();
  printf("rounds %d caught %d\n", Rounds, Caught);
  printf("buffer intact across co_await: %s\n", Intact ? "yes" : "no");
  printf("resumer's buffer intact: %s\n", ResumerIntact ? "yes" : "no");
  printf("arena top back where it started: %s\n",
         Before == After ? "yes" : "no");
  return 0;
}
