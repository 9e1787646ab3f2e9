// Statistics: per thread, per process, per named pool, and at exit.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "default_cap.h"
#include "scopealloc/scopealloc.h"

extern "C" char **environ;

bool CatchFailure(const std::function<void()> &fn, scopealloc_failure *out);

SCOPEALLOC_DEFINE_POOL(t_stats, 2048);

namespace {

TEST(Stats, ThreadStatsCountCurrentPeakAllocsFailures) {
  std::thread([] {
    scopealloc_stats s;
    void *m = __scopealloc_mark();
    __scopealloc_alloc(100, 8); // [0, 100)
    __scopealloc_alloc(200, 8); // [104, 304): 4 bytes of padding
    void *inner = __scopealloc_mark();
    __scopealloc_alloc(300, 16); // [304, 604)
    scopealloc_thread_stats(&s);
    EXPECT_STREQ(s.name, "workspace");
    EXPECT_EQ(s.current, 604u);
    EXPECT_EQ(s.peak, 604u);
    EXPECT_EQ(s.allocs, 3u);
    EXPECT_EQ(s.failures, 0u);
    __scopealloc_release(inner);
    __scopealloc_alloc(10, 8); // [304, 314), the top at 320
    scopealloc_thread_stats(&s);
    EXPECT_EQ(s.current, 320u); // below the peak: to the top (a multiple of 8)
    EXPECT_EQ(s.peak, 604u);
    EXPECT_EQ(s.allocs, 4u);
    EXPECT_TRUE(CatchFailure([] { __scopealloc_alloc(SIZE_MAX, 8); }, nullptr));
    __scopealloc_release(m);
    scopealloc_thread_stats(&s);
    EXPECT_EQ(s.current, 0u);
    EXPECT_EQ(s.peak, 604u);
    EXPECT_EQ(s.failures, 1u);
    EXPECT_EQ(s.capacity, size_t(__scopealloc_tls_pool.reserve_end -
                                 __scopealloc_tls_pool.base));
  }).join();
}

TEST(Stats, ProcessStatsFoldInExitedThreads) {
  scopealloc_stats before, after;
  scopealloc_process_stats(&before);
  EXPECT_STREQ(before.name, "workspace");
  std::vector<std::thread> threads;
  // CatchFailure swaps the process-wide handler: one thread at a time, or
  // one thread's restore could leave another's failure to the default
  // handler, which aborts.
  std::mutex one_failure_at_a_time;
  for (int t = 1; t <= 4; ++t)
    threads.emplace_back([t, &one_failure_at_a_time] {
      for (int i = 0; i < 10 * t; ++i) {
        void *m = __scopealloc_mark();
        __scopealloc_alloc(1024 * t, 8);
        __scopealloc_release(m);
      }
      std::lock_guard<std::mutex> lock(one_failure_at_a_time);
      CatchFailure([] { __scopealloc_alloc(SIZE_MAX, 8); }, nullptr);
    });
  for (auto &t : threads)
    t.join();
  scopealloc_process_stats(&after);
  EXPECT_EQ(after.allocs - before.allocs, 10u + 20 + 30 + 40);
  EXPECT_EQ(after.failures - before.failures, 4u);
  EXPECT_EQ(after.current, before.current);
  EXPECT_GE(after.peak, 4096u); // the largest thread peak
  EXPECT_GE(after.peak, before.peak);
}

TEST(Stats, ProcessStatsSeeLiveThreads) {
  scopealloc_stats before, during, after;
  std::mutex mu;
  std::condition_variable cv;
  int stage = 0;
  scopealloc_process_stats(&before);
  std::thread holder([&] {
    void *m = __scopealloc_mark();
    __scopealloc_alloc(1 << 20, 8);
    {
      std::unique_lock<std::mutex> lock(mu);
      stage = 1;
      cv.notify_all();
      cv.wait(lock, [&] { return stage == 2; });
    }
    __scopealloc_release(m);
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return stage == 1; });
    scopealloc_process_stats(&during);
    stage = 2;
    cv.notify_all();
  }
  holder.join();
  scopealloc_process_stats(&after);
  EXPECT_EQ(during.current - before.current, size_t(1) << 20);
  EXPECT_EQ(during.allocs - before.allocs, 1u);
  EXPECT_GE(during.peak, size_t(1) << 20);
  EXPECT_EQ(after.current, before.current);
}

TEST(Stats, ForkedChildCountsOnlyItsOwnThread) {
  std::mutex mu;
  std::condition_variable cv;
  int stage = 0;
  std::thread holder([&] {
    void *m = __scopealloc_mark();
    __scopealloc_alloc(3 << 20, 8);
    std::unique_lock<std::mutex> lock(mu);
    stage = 1;
    cv.notify_all();
    cv.wait(lock, [&] { return stage == 2; });
    __scopealloc_release(m);
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return stage == 1; });
  }
  __scopealloc_mark();
  pid_t pid = fork();
  if (pid == 0) {
    // The holder thread does not exist here: its 3 MiB are not "current".
    scopealloc_stats process, thread;
    scopealloc_process_stats(&process);
    scopealloc_thread_stats(&thread);
    _exit(process.current == thread.current ? 0 : 1);
  }
  int status = -1;
  waitpid(pid, &status, 0);
  {
    std::lock_guard<std::mutex> lock(mu);
    stage = 2;
    cv.notify_all();
  }
  holder.join();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(Stats, NamedPoolStats) {
  scopealloc_pool *pool = &__scopealloc_pool_t_stats;
  void *m = __scopealloc_pool_mark(pool);
  __scopealloc_pool_alloc(pool, 1000, 8);
  __scopealloc_pool_alloc(pool, 24, 64);
  CatchFailure([&] { __scopealloc_pool_alloc(pool, 4096, 8); }, nullptr);
  scopealloc_stats s;
  scopealloc_pool_stats(pool, &s);
  EXPECT_STREQ(s.name, "t_stats");
  EXPECT_EQ(s.current, 1048u);
  EXPECT_EQ(s.peak, 1048u);
  EXPECT_EQ(s.capacity, 2048u);
  EXPECT_EQ(s.allocs, 2u);
  EXPECT_EQ(s.failures, 1u);
  __scopealloc_pool_release(pool, m);
  scopealloc_pool_stats(pool, &s);
  EXPECT_EQ(s.current, 0u);
  EXPECT_EQ(s.peak, 1048u);
}

TEST(Stats, ForEachPoolFindsEveryNamedPool) {
  std::set<std::string> names;
  int n = scopealloc_for_each_pool(
      [](const scopealloc_pool *pool, void *ctx) {
        static_cast<std::set<std::string> *>(ctx)->insert(pool->name);
      },
      &names);
  EXPECT_EQ(n, static_cast<int>(names.size()));
  // This file's pool and the ones of named_pool_test.cpp.
  for (const char *name : {"t_stats", "t_lifo", "t_align", "t_small",
                           "t_exact", "t_shared", "t_sectioned", "t_over"})
    EXPECT_EQ(names.count(name), 1u) << name;
  EXPECT_EQ(scopealloc_for_each_pool(nullptr, nullptr), n);
}

TEST(Stats, PrintStatsTable) {
  testing::internal::CaptureStderr();
  scopealloc_print_stats();
  std::string out = testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find("scopealloc statistics (bytes):"), std::string::npos)
      << out;
  EXPECT_TRUE(std::regex_search(
      out, std::regex("\n  pool +current +peak +capacity +allocs +failures\n")))
      << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("\n  workspace +[0-9]+ ")))
      << out;
  EXPECT_TRUE(std::regex_search(
      out, std::regex("\n  t_stats +0 +[0-9]+ +2048 +[0-9]+ +[0-9]+\n")))
      << out;
}

// Runs the stats helper with `env` added; returns its exit status and stderr.
int RunHelper(const std::vector<std::string> &env, std::string *err) {
  std::vector<std::string> strings;
  for (char **e = environ; *e; ++e)
    if (std::strncmp(*e, "SCOPEALLOC_", 11) != 0)
      strings.push_back(*e);
  strings.insert(strings.end(), env.begin(), env.end());
  std::vector<char *> envp;
  for (auto &s : strings)
    envp.push_back(s.data());
  envp.push_back(nullptr);

  int fds[2];
  if (pipe(fds) != 0)
    return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  char path[] = SCOPEALLOC_STATS_HELPER;
  char *argv[] = {path, nullptr};
  pid_t pid;
  int rc = posix_spawn(&pid, path, &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return -1;
  }
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0)
    err->append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  return status;
}

TEST(Stats, PrintedAtExitWithScopeallocStats) {
  std::string err;
  int status = RunHelper({"SCOPEALLOC_STATS=1"}, &err);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // See stats_helper.cpp for where these numbers come from.
  EXPECT_TRUE(std::regex_search(
      err, std::regex("\n  workspace +0 +200000 +" +
                      std::to_string(ExpectedDefaultCap()) + " +6 +0\n")))
      << err;
  EXPECT_TRUE(std::regex_search(
      err, std::regex("\n  helper_pool +0 +4096 +65536 +2 +1\n")))
      << err;
  EXPECT_NE(err.find("default pool of 3 thread(s), 1 running"), std::string::npos)
      << err;
}

TEST(Stats, SilentWithoutScopeallocStats) {
  for (auto env : {std::vector<std::string>{},
                   std::vector<std::string>{"SCOPEALLOC_STATS=0"},
                   std::vector<std::string>{"SCOPEALLOC_STATS="}}) {
    std::string err;
    int status = RunHelper(env, &err);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_EQ(err, "");
  }
}

// SCOPEALLOC_STATS is a boolean: 1/true/yes turn the table on, 0/false/no
// (any case) keep it off, anything else is said once and means off.
TEST(Stats, ScopeallocStatsSpellings) {
  for (const char *on : {"1", "true", "TRUE", "yes", "Yes"}) {
    std::string err;
    int status = RunHelper({std::string("SCOPEALLOC_STATS=") + on}, &err);
    ASSERT_TRUE(WIFEXITED(status)) << on;
    EXPECT_EQ(WEXITSTATUS(status), 0) << on;
    EXPECT_NE(err.find("scopealloc statistics (bytes):"), std::string::npos)
        << on << ": " << err;
  }
  for (const char *off : {"0", "false", "False", "no", "NO"}) {
    std::string err;
    int status = RunHelper({std::string("SCOPEALLOC_STATS=") + off}, &err);
    ASSERT_TRUE(WIFEXITED(status)) << off;
    EXPECT_EQ(WEXITSTATUS(status), 0) << off;
    EXPECT_EQ(err, "") << off;
  }
  for (const char *bad : {"2", "on", "truex", " 1"}) {
    std::string err;
    int status = RunHelper({std::string("SCOPEALLOC_STATS=") + bad}, &err);
    ASSERT_TRUE(WIFEXITED(status)) << bad;
    EXPECT_EQ(WEXITSTATUS(status), 0) << bad;
    std::string warning =
        std::string("scopealloc: ignoring SCOPEALLOC_STATS='") + bad + "'";
    EXPECT_EQ(err.find("scopealloc statistics"), std::string::npos) << err;
    size_t at = err.find(warning);
    EXPECT_NE(at, std::string::npos) << bad << ": " << err;
    EXPECT_EQ(err.find(warning, at + 1), std::string::npos)
        << "warned twice: " << err;
  }
}

} // namespace
