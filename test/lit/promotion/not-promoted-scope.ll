; Scope 'global.workspace' forbids promotion; 'local' requires it, even
; over the limit. A named pool's scope makes the workspace a buffer of that
; pool: an alloca with the scope, which scope-alloc then moves into the pool
; (a code generator's allocator is not the application's pool).
; RUN: %opt %loadplugin -passes=scope-alloc-promote -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc-promote -disable-output \
; RUN:   -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: %opt %loadplugin -passes='function(scope-alloc-promote),scope-alloc' -S %s \
; RUN:   | FileCheck %s --check-prefix=POOL

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @TVMBackendAllocWorkspace(i32, i32, i64, i32, i32)
declare i32 @TVMBackendFreeWorkspace(i32, i32, ptr)
declare void @use(ptr)

; CHECK-LABEL: define void @workspace(
; CHECK-NOT:     alloca
; CHECK:         call ptr @TVMBackendAllocWorkspace(
define void @workspace() {
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 16, i32 2, i32 32), !scope !0
  call void @use(ptr %ws)
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  ret void
}

; CHECK-LABEL: define void @pool(
; CHECK-NEXT:    %ws = alloca [16 x i8], align 64, !scope !{{[0-9]+}}
; CHECK-NOT:     @TVMBackend
; POOL-LABEL:  define void @pool(
; POOL:          @__scopealloc_pool_npu_sram
; POOL-NOT:      @TVMBackend
; POOL:          ret void
define void @pool() {
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 16, i32 2, i32 32), !scope !1
  call void @use(ptr %ws)
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  ret void
}

; CHECK-LABEL: define void @local(
; CHECK-NEXT:    %ws = alloca [2048 x i8], align 64, !scope
; CHECK-NOT:     @TVMBackend
define void @local() {
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 2048, i32 2, i32 32), !scope !2
  call void @use(ptr %ws)
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  ret void
}

!0 = !{!"global.workspace"}
!1 = !{!"global.npu_sram"}
!2 = !{!"local"}

; REMARK: remark: <unknown>:0:0: workspace call '%ws' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope 'global.workspace') not promoted: scope 'global.workspace' requires pool 'workspace'
; REMARK: remark: <unknown>:0:0: workspace call '%ws' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope 'global.npu_sram') moved to pool 'npu_sram': scope 'global.npu_sram' requires pool 'npu_sram': 16 bytes become a buffer of that pool
; REMARK: remark: <unknown>:0:0: workspace call '%ws' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope 'local') promoted: scope 'local' requires the stack (2048 bytes, the limit 1024 bytes
