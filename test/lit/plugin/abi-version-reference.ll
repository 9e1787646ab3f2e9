; Every module the pass rewrites references the runtime's ABI version stamp
; __scopealloc_abi_v<N> (SCOPEALLOC_ABI_VERSION), once, kept alive through
; llvm.used, so that linking against a runtime of another ABI version fails
; with the versioned name undefined. A module with nothing demoted does not.
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes=scope-alloc -S %s | FileCheck %s
; RUN: sed -e 's/, !scope !0//' %s | %opt %loadplugin -passes=scope-alloc -S | FileCheck %s --check-prefix=NONE
; Named pools and the call path (no inline fast path) reference it too.
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes=scope-alloc -scope-alloc-inline-fast-path=false \
; RUN:   -S %s | FileCheck %s --check-prefix=CALLS
; Running the pass again adds no second reference.
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes=scope-alloc %s \
; RUN:   | %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes=scope-alloc -S | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; CHECK: @__scopealloc_abi_v4 = external constant i8
; CHECK: @scopealloc.abi.check = private constant ptr @__scopealloc_abi_v4
; CHECK: @llvm.used = appending global [1 x ptr] [ptr @scopealloc.abi.check]
; CHECK-NOT: abi.check
; CHECK-NOT: __scopealloc_abi_v
; CHECK: define void @f(

; CALLS: @__scopealloc_abi_v4 = external constant i8
; CALLS: @llvm.used = appending global [1 x ptr] [ptr @scopealloc.abi.check]
; CALLS: call {{.*}}ptr @__scopealloc_alloc(
; CALLS: call {{.*}}ptr @__scopealloc_pool_alloc(

; NONE-NOT: __scopealloc_abi_v
; NONE-NOT: llvm.used

declare void @use(ptr)

define void @f() {
  %a = alloca [64 x i8], align 16
  call void @use(ptr %a)
  ret void
}

define void @g() {
  %a = alloca [64 x i8], align 16, !scope !0
  call void @use(ptr %a)
  ret void
}

!0 = !{!"global.npu_sram"}
