; The point of promotion: a 4-float TVM workspace buffer, promoted at the
; start of the pipeline, is split into registers by SROA at -O2: no alloca,
; no memory operation and no workspace call is left.
; RUN: %opt %loadplugin -passes='default<O2>' -S %s | FileCheck %s
; Without the plugin the buffer stays in memory.
; RUN: %opt -passes='default<O2>' -S %s | FileCheck %s --check-prefix=NOPLUGIN

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @TVMBackendAllocWorkspace(i32, i32, i64, i32, i32)
declare i32 @TVMBackendFreeWorkspace(i32, i32, ptr)

; CHECK-LABEL: define {{.*}}i32 @dot4(
; CHECK-NOT:     alloca
; CHECK-NOT:     load
; CHECK-NOT:     store
; CHECK-NOT:     @TVMBackend
; CHECK:         fmul
; CHECK-NOT:     load
; CHECK-NOT:     store
; CHECK-NOT:     @TVMBackend
; CHECK:         ret i32
; CHECK-NOT:     alloca
; NOPLUGIN:      @TVMBackendAllocWorkspace
define i32 @dot4(float %a, float %b, float %c, float %d, ptr %out) {
entry:
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 16, i32 2, i32 32)
  %isnull = icmp eq ptr %ws, null
  br i1 %isnull, label %fail, label %body
body:
  %p1 = getelementptr inbounds float, ptr %ws, i64 1
  %p2 = getelementptr inbounds float, ptr %ws, i64 2
  %p3 = getelementptr inbounds float, ptr %ws, i64 3
  store float %a, ptr %ws
  store float %b, ptr %p1
  store float %c, ptr %p2
  store float %d, ptr %p3
  %x0 = load float, ptr %ws
  %x1 = load float, ptr %p1
  %x2 = load float, ptr %p2
  %x3 = load float, ptr %p3
  %m0 = fmul float %x0, %x1
  %m1 = fmul float %x2, %x3
  %s = fadd float %m0, %m1
  %sum = fptosi float %s to i32
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  %bad = icmp ne i32 %r, 0
  br i1 %bad, label %fail, label %ok
ok:
  ret i32 %sum
fail:
  ret i32 -1
}
