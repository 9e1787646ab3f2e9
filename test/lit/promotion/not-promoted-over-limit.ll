; A workspace larger than the target's limit stays a workspace call; the
; limit follows the policy (function attribute here).
; RUN: %opt %loadplugin -passes=scope-alloc-promote -S %s | FileCheck %s
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc-promote -disable-output \
; RUN:   -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @TVMBackendAllocWorkspace(i32, i32, i64, i32, i32)
declare i32 @TVMBackendFreeWorkspace(i32, i32, ptr)
declare void @use(ptr)

; CHECK-LABEL: define void @f(
; CHECK-NOT:     alloca
; CHECK:         call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 1025,
; CHECK:         call i32 @TVMBackendFreeWorkspace(
define void @f() {
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 1025, i32 2, i32 32)
  call void @use(ptr %ws)
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  ret void
}

; CHECK-LABEL: define void @small_limit(
; CHECK-NOT:     alloca
; CHECK:         call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 64,
define void @small_limit() "scope-alloc-max-stack-alloca"="32" {
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 64, i32 2, i32 32)
  call void @use(ptr %ws)
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  ret void
}

; REMARK: remark: <unknown>:0:0: workspace call '%ws' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) not promoted: 1025 bytes exceed the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU))
; REMARK: remark: <unknown>:0:0: workspace call '%ws' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) not promoted: 64 bytes exceed the limit 32 bytes (function attribute "scope-alloc-max-stack-alloca")
