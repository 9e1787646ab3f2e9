// The start-up check for two runtimes in one process (runtime_identity.c):
// its policy, case by case, and its report when a shared object with its own
// hidden copy of the static runtime is loaded.
extern "C" {
#include "internal.h"
}

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <string>

namespace {

constexpr int Static = 0, Shared = 1;
constexpr int Main = 1, Library = 0;
constexpr int Live = 1, Interposed = 0;

TEST(RuntimeIdentity, ProgramWithTheStaticRuntimeIsFineAlone) {
  EXPECT_EQ(sa_identity_judge(Static, Main, Live, SA_GLOBAL_OWN),
            SA_IDENTITY_OK);
  // Not exported (no shared object referenced it at link time): still alone.
  EXPECT_EQ(sa_identity_judge(Static, Main, Live, SA_GLOBAL_NONE),
            SA_IDENTITY_OK);
}

TEST(RuntimeIdentity, ProgramCopyBesideAnotherGlobalRuntimeIsReported) {
  EXPECT_EQ(sa_identity_judge(Static, Main, Live, SA_GLOBAL_OTHER),
            SA_IDENTITY_TWO_RUNTIMES);
}

TEST(RuntimeIdentity, SharedRuntimeIsFineGlobalOrLocal) {
  EXPECT_EQ(sa_identity_judge(Shared, Library, Live, SA_GLOBAL_OWN),
            SA_IDENTITY_OK);
  // dlopen'ed RTLD_LOCAL with the library that needs it: the only runtime.
  EXPECT_EQ(sa_identity_judge(Shared, Library, Live, SA_GLOBAL_NONE),
            SA_IDENTITY_OK);
  EXPECT_EQ(sa_identity_judge(Shared, Library, Live, SA_GLOBAL_OTHER),
            SA_IDENTITY_TWO_RUNTIMES);
}

TEST(RuntimeIdentity, HiddenStaticCopyInSharedObjectIsReported) {
  // A version script or -fvisibility=hidden: the library's calls stay in
  // its own copy, whether or not the process has a global runtime.
  EXPECT_EQ(sa_identity_judge(Static, Library, Live, SA_GLOBAL_OTHER),
            SA_IDENTITY_PRIVATE_STATIC);
  EXPECT_EQ(sa_identity_judge(Static, Library, Live, SA_GLOBAL_NONE),
            SA_IDENTITY_PRIVATE_STATIC);
  // Exported and first in the global scope: it serves the whole process.
  EXPECT_EQ(sa_identity_judge(Static, Library, Live, SA_GLOBAL_OWN),
            SA_IDENTITY_OK);
}

TEST(RuntimeIdentity, InterposedCopyIsDormant) {
  for (int shared : {Static, Shared})
    for (int main : {Main, Library})
      for (sa_identity_global g :
           {SA_GLOBAL_NONE, SA_GLOBAL_OWN, SA_GLOBAL_OTHER})
        EXPECT_EQ(sa_identity_judge(shared, main, Interposed, g),
                  SA_IDENTITY_OK)
            << "shared " << shared << " main " << main << " global " << g;
}

// scopealloc_dlclose_lib carries its own copy of the static runtime with
// its symbols hidden (--exclude-libs), while this program exports its own
// (-rdynamic): loading it reports the library by path, once.
std::string loadPrivateCopy(const char *allow) {
  if (allow)
    setenv("SCOPEALLOC_ALLOW_PRIVATE_RUNTIME", allow, 1);
  else
    unsetenv("SCOPEALLOC_ALLOW_PRIVATE_RUNTIME");
  testing::internal::CaptureStderr();
  void *lib = dlopen(SCOPEALLOC_DLCLOSE_LIB, RTLD_NOW | RTLD_LOCAL);
  std::string err = testing::internal::GetCapturedStderr();
  unsetenv("SCOPEALLOC_ALLOW_PRIVATE_RUNTIME");
  EXPECT_NE(lib, nullptr) << dlerror();
  if (lib)
    dlclose(lib);
  return err;
}

TEST(RuntimeIdentity, LoadingAHiddenStaticCopyIsReported) {
  if (dlopen(SCOPEALLOC_DLCLOSE_LIB, RTLD_NOW | RTLD_NOLOAD))
    GTEST_SKIP() << "the library is still loaded by an earlier test";
  std::string err = loadPrivateCopy(nullptr);
  EXPECT_EQ(err,
            std::string("scopealloc: two runtimes in one process: ") +
                SCOPEALLOC_DLCLOSE_LIB +
                " carries its own copy of the static runtime "
                "(libscopealloc_rt.a linked into a shared object), so each "
                "thread gets one arena per copy; link it with "
                "libscopealloc_rt.so (scopealloc-clang -shared does); "
                "SCOPEALLOC_ALLOW_PRIVATE_RUNTIME=1 silences this\n");
  EXPECT_EQ(loadPrivateCopy("1"), "");
}

} // namespace
