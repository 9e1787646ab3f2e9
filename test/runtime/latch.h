// A one-shot latch for the runtime tests (std::latch is C++20): threads
// wait until one opens it.
#ifndef SCOPEALLOC_TEST_LATCH_H
#define SCOPEALLOC_TEST_LATCH_H

#include <condition_variable>
#include <mutex>

class Latch {
public:
  void open() {
    std::lock_guard<std::mutex> lock(m_);
    open_ = true;
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return open_; });
  }

private:
  std::mutex m_;
  std::condition_variable cv_;
  bool open_ = false;
};

#endif
