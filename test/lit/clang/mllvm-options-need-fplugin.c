// Before clang 22, clang parses -mllvm before it loads -fpass-plugin=, so
// the plugin's options are unknown unless -fplugin= loads it first.
// UNSUPPORTED: pass-plugin-parses-options
// RUN: not %clang -fpass-plugin=%plugin -O0 -mllvm -scope-alloc-max-stack-alloca=0 -c %s -o /dev/null 2>&1 | FileCheck %s

void f(void) {}

// CHECK: Unknown command line argument '-scope-alloc-max-stack-alloca=0'
