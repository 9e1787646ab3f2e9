; Without a free on every path to a return (the buffer may outlive the
; call), in a loop without a free in the same iteration, or freed twice on a
; path, a workspace stays where it is. A path on which the pointer was found
; to be NULL needs no free.
; RUN: %opt %loadplugin -passes=scope-alloc-promote -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc-promote -disable-output \
; RUN:   -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @TVMBackendAllocWorkspace(i32, i32, i64, i32, i32)
declare i32 @TVMBackendFreeWorkspace(i32, i32, ptr)
declare void @use(ptr)

; CHECK-LABEL: define ptr @one_path(
; CHECK-NOT:     alloca
; CHECK:         call ptr @TVMBackendAllocWorkspace(
define ptr @one_path(i1 %c) {
entry:
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 16, i32 2, i32 32)
  br i1 %c, label %keep, label %free
keep:
  ret ptr %ws
free:
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  ret ptr null
}

; CHECK-LABEL: define void @never(
; CHECK-NOT:     alloca
; CHECK:         call ptr @TVMBackendAllocWorkspace(
define void @never() {
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 16, i32 2, i32 32)
  call void @use(ptr %ws)
  ret void
}

; Allocated in a loop, freed after it.
; CHECK-LABEL: define void @loop(
; CHECK-NOT:     alloca
; CHECK:         call ptr @TVMBackendAllocWorkspace(
define void @loop(i32 %n) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %head ]
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 16, i32 2, i32 32)
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %head, label %exit
exit:
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  ret void
}

; CHECK-LABEL: define void @twice(
; CHECK-NOT:     alloca
; CHECK:         call ptr @TVMBackendAllocWorkspace(
define void @twice() {
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 16, i32 2, i32 32)
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  %r2 = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  ret void
}

; A GPU workspace is not host memory.
; CHECK-LABEL: define void @gpu(
; CHECK-NOT:     alloca
; CHECK:         call ptr @TVMBackendAllocWorkspace(
define void @gpu() {
  %ws = call ptr @TVMBackendAllocWorkspace(i32 2, i32 0, i64 16, i32 2, i32 32)
  call void @use(ptr %ws)
  %r = call i32 @TVMBackendFreeWorkspace(i32 2, i32 0, ptr %ws)
  ret void
}

; REMARK: remark: <unknown>:0:0: workspace call '%ws' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) not promoted: it is not released on every path to a return
; REMARK: remark: <unknown>:0:0: workspace call '%ws' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) not promoted: it is never released in this function
; REMARK: remark: <unknown>:0:0: workspace call '%ws' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) not promoted: it is in a loop and not released in the same iteration
; REMARK: remark: <unknown>:0:0: workspace call '%ws' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) not promoted: it is released more than once on a path
; REMARK: remark: <unknown>:0:0: workspace call '%ws' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) not promoted: its device type is not the CPU (kDLCPU = 1)
