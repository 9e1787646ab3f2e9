; A size only known at run time cannot become a static alloca.
; RUN: %opt %loadplugin -passes=scope-alloc-promote -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc-promote -disable-output \
; RUN:   -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @TVMBackendAllocWorkspace(i32, i32, i64, i32, i32)
declare i32 @TVMBackendFreeWorkspace(i32, i32, ptr)
declare void @use(ptr)
declare ptr @__scopealloc_mark()
declare ptr @__scopealloc_alloc(i64, i64)
declare void @__scopealloc_release(ptr)

; CHECK-LABEL: define void @tvm(
; CHECK-NOT:     alloca
; CHECK:         call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 %n,
define void @tvm(i64 %n) {
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 %n, i32 2, i32 32)
  call void @use(ptr %ws)
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  ret void
}

; CHECK-LABEL: define void @abi(
; CHECK-NOT:     alloca
; CHECK:         call ptr @__scopealloc_alloc(i64 %n, i64 16)
define void @abi(i64 %n) {
  %m = call ptr @__scopealloc_mark()
  %p = call ptr @__scopealloc_alloc(i64 %n, i64 16)
  call void @use(ptr %p)
  call void @__scopealloc_release(ptr %m)
  ret void
}

; REMARK: remark: <unknown>:0:0: workspace call '%ws' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) not promoted: its size is not a compile-time constant
; REMARK: remark: <unknown>:0:0: workspace call '%p' in '{{[^']*}}' (__scopealloc_alloc, scope none) not promoted: its size is not a compile-time constant
