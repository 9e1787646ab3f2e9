// Through clang, -mllvm -scope-alloc-warn-pool-frame-larger-than=<bytes>
// reads like -Wframe-larger-than: a warning at the function's declaration,
// in -Wbackend-plugin (the group of every resource-limit diagnostic from a
// plugin), so -Werror or -Werror=backend-plugin make it an error and
// -Wno-backend-plugin silences it. The function's name is demangled.
// RUN: %clang %clangplugin -O2 -c %s -o /dev/null -mllvm -scope-alloc-warn-pool-frame-larger-than=4096 2>&1 | FileCheck %s --implicit-check-not=warning:
// RUN: not %clang %clangplugin -O2 -c %s -o /dev/null -mllvm -scope-alloc-warn-pool-frame-larger-than=4096 -Werror 2>&1 | FileCheck %s --check-prefix=ERROR --implicit-check-not=warning:
// RUN: not %clang %clangplugin -O2 -c %s -o /dev/null -mllvm -scope-alloc-warn-pool-frame-larger-than=4096 -Werror=backend-plugin 2>&1 | FileCheck %s --check-prefix=ERROR --implicit-check-not=warning:
// RUN: %clang %clangplugin -O2 -c %s -o /dev/null -mllvm -scope-alloc-warn-pool-frame-larger-than=4096 -Wno-backend-plugin 2>&1 | count 0
// RUN: %clangxx %clangplugin -x c++ -Wno-vla-cxx-extension -O2 -c %s -o /dev/null -mllvm -scope-alloc-warn-pool-frame-larger-than=4096 2>&1 | FileCheck %s --check-prefix=CXX --implicit-check-not=warning:

#ifdef __cplusplus
extern "C"
#endif
    void use(char *);

// 4096 bytes: at the limit.
void at_limit(void) {
  char page[4096];
  use(page);
}

// CHECK: pool-frame-warning.c:[[#@LINE+3]]:6: warning: pool frame size in 'workspace' (8192) exceeds limit (4096) in 'over' [-Wbackend-plugin]
// ERROR: pool-frame-warning.c:[[#@LINE+2]]:6: error: pool frame size in 'workspace' (8192) exceeds limit (4096) in 'over' [-Werror,-Wbackend-plugin]
// CXX: pool-frame-warning.c:[[#@LINE+1]]:6: warning: pool frame size in 'workspace' (8192) exceeds limit (4096) in 'over()' [-Wbackend-plugin]
void over(void) {
  char pages[2][4096];
  use(pages[0]);
}

// CHECK: pool-frame-warning.c:[[#@LINE+3]]:5: warning: pool frame size in 'workspace' (not counting 1 dynamically sized allocation) (5000) exceeds limit (4096) in 'with_vla' [-Wbackend-plugin]
// ERROR: pool-frame-warning.c:[[#@LINE+2]]:5: error: pool frame size in 'workspace' (not counting 1 dynamically sized allocation) (5000) exceeds limit (4096) in 'with_vla' [-Werror,-Wbackend-plugin]
// CXX: pool-frame-warning.c:[[#@LINE+1]]:5: warning: {{.*}} (5000) exceeds limit (4096) in 'with_vla(int)' [-Wbackend-plugin]
int with_vla(int n) {
  char big[5000];
  char line[n];
  use(big);
  use(line);
  return line[0];
}

#ifdef __cplusplus
namespace image {
// CXX: pool-frame-warning.c:[[#@LINE+1]]:6: warning: pool frame size in 'workspace' (24576) exceeds limit (4096) in 'image::blur(int)' [-Wbackend-plugin]
void blur(int radius) {
  float rows[3][2048];
  use(reinterpret_cast<char *>(rows[radius]));
}
} // namespace image
#endif

// clang 16 reports the plugin diagnostic differently under -Werror.
// UNSUPPORTED: llvm-15, llvm-16
