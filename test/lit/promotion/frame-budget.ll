; Promotion respects the frame budget: a workspace buffer becomes an alloca
; only when it fits the budget together with what stays on the stack (the
; allocas scope-alloc keeps, and buffers whose scope requires the stack),
; the others in scope-alloc's order (benefit, size, program order). So
; scope-alloc never moves a promoted buffer back ([rule over-budget]).
; RUN: %opt %loadplugin -passes='function(scope-alloc-promote)' -scope-alloc-frame-budget=600 -S %s | FileCheck %s
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes='function(scope-alloc-promote),scope-alloc' -scope-alloc-frame-budget=600 \
; RUN:   -disable-output -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARK --implicit-check-not='rule over-budget'
; The budget as a pass parameter does the same.
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes='function(scope-alloc-promote<frame-budget=600>),scope-alloc<frame-budget=600>' \
; RUN:   -disable-output -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=PARAM --implicit-check-not='rule over-budget'

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @TVMBackendAllocWorkspace(i32, i32, i64, i32, i32)
declare i32 @TVMBackendFreeWorkspace(i32, i32, ptr)
declare void @use(ptr)

; Two 512-byte buffers under a 600-byte budget: exactly one is promoted.
; CHECK-LABEL: define void @two(
; CHECK-NEXT:    %a = alloca [512 x i8], align 64
; CHECK-NOT:     alloca
; CHECK:         %b = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 512,
; CHECK-NOT:     alloca
; CHECK:         ret void
define void @two() {
  %a = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 512, i32 2, i32 8)
  %b = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 512, i32 2, i32 8)
  call void @use(ptr %a)
  call void @use(ptr %b)
  %r1 = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %b)
  %r2 = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %a)
  ret void
}

; A 200-byte array already on the stack leaves 400 bytes: 512 do not fit.
; CHECK-LABEL: define void @beside_alloca(
; CHECK-NEXT:    %arr = alloca [200 x i8]
; CHECK-NOT:     alloca
; CHECK:         %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 512,
define void @beside_alloca() {
  %arr = alloca [200 x i8]
  call void @use(ptr %arr)
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 512, i32 2, i32 8)
  call void @use(ptr %ws)
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  ret void
}

; A stack-scoped buffer is promoted first and counts: 400 + 256 > 600.
; CHECK-LABEL: define void @stack_scope_first(
; CHECK-NEXT:    %loc = alloca [400 x i8], align 64, !scope
; CHECK-NOT:     alloca
; CHECK:         %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 256,
define void @stack_scope_first() {
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 256, i32 2, i32 8)
  %loc = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 400, i32 2, i32 8), !scope !0
  call void @use(ptr %ws)
  call void @use(ptr %loc)
  %r1 = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %loc)
  %r2 = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  ret void
}

; What fits is promoted: 256 + 256 <= 600.
; CHECK-LABEL: define void @both_fit(
; CHECK-NEXT:    %d = alloca [256 x i8], align 64
; CHECK-NEXT:    %c = alloca [256 x i8], align 64
; CHECK-NOT:     @TVMBackend
; CHECK:         ret void
define void @both_fit() {
  %c = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 256, i32 2, i32 8)
  %d = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 256, i32 2, i32 8)
  call void @use(ptr %c)
  call void @use(ptr %d)
  %r1 = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %d)
  %r2 = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %c)
  ret void
}

!0 = !{!"local"}

; REMARK: workspace call '%a' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) promoted: 512 bytes within the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU)); fits the frame budget 600 bytes (command line)
; REMARK: workspace call '%b' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) not promoted: 512 bytes within the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU)), but the frame budget 600 bytes (command line) is spent on allocations that stay on the stack or gain more from it (512 bytes kept)
; REMARK: workspace call '%ws' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) not promoted: 512 bytes within the limit 1024 bytes ({{.*}}), but the frame budget 600 bytes (command line) is spent on allocations that stay on the stack or gain more from it (200 bytes kept)
; REMARK: workspace call '%ws' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) not promoted: 256 bytes within the limit 1024 bytes ({{.*}}), but the frame budget 600 bytes (command line) is spent on allocations that stay on the stack or gain more from it (400 bytes kept)
; REMARK: workspace call '%loc' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope 'local') promoted: scope 'local' requires the stack (400 bytes, the limit 1024 bytes
; REMARK: workspace call '%c' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) promoted: 256 bytes within the limit 1024 bytes ({{.*}}); fits the frame budget 600 bytes (command line)
; REMARK: workspace call '%d' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) promoted: 256 bytes within the limit 1024 bytes ({{.*}}); fits the frame budget 600 bytes (command line)
; REMARK: '%a' in 'two' (512 bytes, align 64, scope none) stays on the stack: {{.*}}; fits the frame budget 600 bytes (command line) [rule within-limit]

; PARAM: workspace call '%a' {{.*}} promoted: {{.*}}; fits the frame budget 600 bytes (pass parameters)
; PARAM: workspace call '%b' {{.*}} not promoted: {{.*}}, but the frame budget 600 bytes (pass parameters) is spent on
; PARAM: '%a' in 'two' (512 bytes, align 64, scope none) stays on the stack: {{.*}}; fits the frame budget 600 bytes (pass parameters) [rule within-limit]
