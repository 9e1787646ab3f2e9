; `local` and `global.stack` keep an allocation on the stack even above the
; limit; that conflict is a warning (and a missed remark), never a silent move.
; RUN: %opt %loadplugin -passes=scope-alloc -S %s 2>%t.err | FileCheck %s
; RUN: FileCheck %s --check-prefix=WARN < %t.err
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc -disable-output \
; RUN:   -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=MISSED

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; CHECK-LABEL: define void @f(
; CHECK-NEXT:    %loc = alloca [4096 x i8], align 16, !scope
; CHECK-NEXT:    %stk = alloca [2048 x i8], align 16, !scope
; CHECK-NEXT:    %small = alloca [16 x i8], align 16, !scope
; CHECK-NOT:     __scopealloc
define void @f() {
  %loc = alloca [4096 x i8], align 16, !scope !0
  %stk = alloca [2048 x i8], align 16, !scope !1
  %small = alloca [16 x i8], align 16, !scope !0
  call void @use(ptr %loc)
  call void @use(ptr %stk)
  call void @use(ptr %small)
  ret void
}

!0 = !{!"local"}
!1 = !{!"global.stack"}

; WARN: warning: scope-alloc: in function 'f': '%loc' (4096 bytes) stays on the stack because of scope 'local', but exceeds the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU))
; WARN: warning: scope-alloc: in function 'f': '%stk' (2048 bytes) stays on the stack because of scope 'global.stack', but exceeds the limit 1024 bytes
; WARN-NOT: small

; MISSED: '%loc' in 'f' (4096 bytes, align 16, scope 'local') stays on the stack: scope 'local' requires the stack, although its 4096 bytes exceed the limit 1024 bytes
; MISSED: '%stk' in 'f' (2048 bytes, align 16, scope 'global.stack') stays on the stack
; MISSED-NOT: small
