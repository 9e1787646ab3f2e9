// SCOPEALLOC_RECURSION_BOUND(n) on a function becomes the attribute
// "scope-alloc-recursion-bound"="n", which the facts record carries; n is a
// decimal number of frames, at least 1.
// RUN: %clang %clangplugin -I%rtinc -O1 -S -emit-llvm %s -o - | FileCheck %s
// RUN: not %clang %clangplugin -I%rtinc -O1 -S -emit-llvm -DBAD %s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
#include <scopealloc/scope.h>

// CHECK: define {{.*}} @walk({{.*}} #[[ATTR:[0-9]+]]
// CHECK: attributes #[[ATTR]] = {{.*}}"scope-alloc-recursion-bound"="8"
SCOPEALLOC_RECURSION_BOUND(8) int walk(const int *tree, int at) {
  if (at < 0)
    return 0;
  return tree[at] + walk(tree, tree[at] - 1) + walk(tree, at - 2);
}

#ifdef BAD
// BAD-DAG: error: scope-alloc: in function 'zero': annotation "scope-alloc-recursion-bound=0" at {{.*}}recursion-bound-annotation.c:[[#@LINE+1]]: the value must be a number of frames of at least 1 (a decimal number), found "0"
SCOPEALLOC_RECURSION_BOUND(0) int zero(int n) { return n ? zero(n - 1) : 0; }
// BAD-DAG: error: scope-alloc: in function 'deep': annotation "scope-alloc-recursion-bound=deep" at {{.*}}recursion-bound-annotation.c:[[#@LINE+1]]: the value must be a number of frames of at least 1 (a decimal number), found "deep"
SCOPEALLOC_RECURSION_BOUND(deep) int deep(int n) { return n ? deep(n - 1) : 0; }
#endif
