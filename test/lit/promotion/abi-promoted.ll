; Our own runtime ABI: __scopealloc_alloc(N, A) under a mark released on
; every path becomes an alloca of N bytes, align A; the mark and its
; releases go away once nothing allocates from the default pool (@use
; touches only its argument's memory; mark-kept-for-callee.ll has calls
; that keep them).
; RUN: %opt %loadplugin -passes=scope-alloc-promote -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc-promote -disable-output \
; RUN:   -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @__scopealloc_mark()
declare ptr @__scopealloc_alloc(i64, i64)
declare void @__scopealloc_release(ptr)
declare void @use(ptr) argmemonly

; CHECK-LABEL: define void @f(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %p = alloca [100 x i8], align 32
; CHECK-NEXT:    call void @llvm.lifetime.start.p0({{(i64 100, )?}}ptr %p)
; CHECK-NEXT:    call void @use(ptr %p)
; CHECK-NOT:     __scopealloc
; CHECK:         call void @llvm.lifetime.end.p0({{(i64 100, )?}}ptr %p)
; CHECK-NEXT:    ret void
; CHECK:         call void @llvm.lifetime.end.p0({{(i64 100, )?}}ptr %p)
; CHECK-NEXT:    ret void
define void @f(i1 %c) {
entry:
  %m = call ptr @__scopealloc_mark()
  %p = call ptr @__scopealloc_alloc(i64 100, i64 32)
  call void @use(ptr %p)
  br i1 %c, label %a, label %b
a:
  call void @__scopealloc_release(ptr %m)
  ret void
b:
  call void @__scopealloc_release(ptr %m)
  ret void
}

; One of two allocations is too big: it stays, and so do mark and release.
; CHECK-LABEL: define void @mixed(
; CHECK-NEXT:    %small = alloca [8 x i8], align 8
; CHECK-NEXT:    %m = call ptr @__scopealloc_mark()
; CHECK:         %big = call ptr @__scopealloc_alloc(i64 4096, i64 16)
; CHECK:         call void @__scopealloc_release(ptr %m)
define void @mixed() {
  %m = call ptr @__scopealloc_mark()
  %small = call ptr @__scopealloc_alloc(i64 8, i64 8)
  %big = call ptr @__scopealloc_alloc(i64 4096, i64 16)
  call void @use(ptr %small)
  call void @use(ptr %big)
  call void @__scopealloc_release(ptr %m)
  ret void
}

; REMARK: remark: <unknown>:0:0: workspace call '%p' in 'f' (__scopealloc_alloc, scope none) promoted: 100 bytes within the limit 1024 bytes
; REMARK: remark: <unknown>:0:0: workspace call '%small' in 'mixed' (__scopealloc_alloc, scope none) promoted: 8 bytes within the limit 1024 bytes
; REMARK: remark: <unknown>:0:0: workspace call '%big' in 'mixed' (__scopealloc_alloc, scope none) not promoted: 4096 bytes exceed the limit 1024 bytes
