// A VLA in a loop at -O0 (saved stack pointer in memory) moves to the pool
// and is released every iteration through the redirected stackrestore.
// RUN: %clang %clangplugin -O0 -S -emit-llvm %s -o - | FileCheck %s

void consume(void *p);

void f(int n) {
  for (int i = 0; i < n; ++i) {
    char vla[n + i];
    consume(vla);
  }
}

// CHECK-LABEL: define {{.*}}void @f(
// CHECK-NOT: llvm.stacksave
// CHECK: zext i32
// CHECK-NEXT: [[SP:%.*]] = call ptr @__scopealloc_mark()
// CHECK: store ptr [[SP]], ptr [[SLOT:%.*]], align 8
// CHECK: call nonnull align 16 ptr @__scopealloc_alloc(i64
// CHECK: [[R:%.*]] = load ptr, ptr [[SLOT]]
// CHECK-NEXT: call void @__scopealloc_release(ptr [[R]])
// CHECK-NOT: call void @llvm.stackrestore
