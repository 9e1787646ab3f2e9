; A TVM workspace pair with a constant size within the limit becomes an
; entry-block alloca (align 64, TVM's workspace alignment); the NULL check
; and the check of the free's result stay for later passes to fold, with the
; free's result replaced by 0. `tail` is dropped from calls (the buffer may
; be passed on; tail-call elimination re-adds it where still true).
; RUN: %opt %loadplugin -passes=scope-alloc-promote -S %s | FileCheck %s
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc-promote -disable-output \
; RUN:   -pass-remarks=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @TVMBackendAllocWorkspace(i32, i32, i64, i32, i32)
declare i32 @TVMBackendFreeWorkspace(i32, i32, ptr)
declare void @use(ptr)

; CHECK-LABEL: define i32 @f(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %ws = alloca [256 x i8], align 64
; CHECK-NEXT:    call void @llvm.lifetime.start.p0({{(i64 256, )?}}ptr %ws)
; CHECK-NEXT:    %isnull = icmp eq ptr %ws, null
; CHECK:         {{^  }}call void @use(ptr %ws)
; CHECK-NEXT:    call void @llvm.lifetime.end.p0({{(i64 256, )?}}ptr %ws)
; CHECK-NEXT:    %bad = icmp ne i32 0, 0
; CHECK-NOT:     @TVMBackend
; CHECK:         ret i32
define i32 @f() {
entry:
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 256, i32 2, i32 32)
  %isnull = icmp eq ptr %ws, null
  br i1 %isnull, label %fail, label %body
body:
  tail call void @use(ptr %ws)
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  %bad = icmp ne i32 %r, 0
  br i1 %bad, label %fail, label %ok
ok:
  ret i32 0
fail:
  ret i32 -1
}

; Scope 'global' is as good as none; the alloca keeps the scope.
; CHECK-LABEL: define void @g(
; CHECK-NEXT:    %buf = alloca [16 x i8], align 64, !scope ![[G:[0-9]+]]
; CHECK-NOT:     @TVMBackend
; CHECK:         ret void
define void @g() {
  %buf = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 16, i32 2, i32 32), !scope !0
  call void @use(ptr %buf)
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %buf)
  ret void
}

; Freed in the same iteration of a loop: one entry-block buffer serves all.
; CHECK-LABEL: define void @loop(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %buf = alloca [64 x i8], align 64
; CHECK-NOT:     @TVMBackend
; CHECK:         ret void
define void @loop(i32 %n) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %head ]
  %buf = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 64, i32 2, i32 32)
  call void @use(ptr %buf)
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %buf)
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %head, label %exit
exit:
  ret void
}

; CHECK: ![[G]] = !{!"global"}
!0 = !{!"global"}

; REMARK: remark: <unknown>:0:0: workspace call '%ws' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) promoted: 256 bytes within the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU))
; REMARK: remark: <unknown>:0:0: workspace call '%buf' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope 'global') promoted: 16 bytes within the limit 1024 bytes
; REMARK: remark: <unknown>:0:0: workspace call '%buf' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) promoted: 64 bytes within the limit 1024 bytes
