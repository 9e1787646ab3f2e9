; `global.workspace` forces the default pool whatever the size; `global`
; behaves like no scope (the policy decides).
; RUN: %opt %loadplugin -scope-alloc-inline-fast-path=false -passes=scope-alloc -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc -disable-output \
; RUN:   -pass-remarks=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; CHECK-LABEL: define void @f(
; CHECK:         %glob_small = alloca i32, align 4, !scope
; CHECK:         %scopealloc.frame = call nonnull align 4 ptr @__scopealloc_alloc(i64 4100, i64 4)
; CHECK-NEXT:    %glob_big = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
; CHECK-NEXT:    %ws = getelementptr inbounds i8, ptr %scopealloc.frame, i64 4096
define void @f() {
  %ws = alloca i32, align 4, !scope !0
  %glob_small = alloca i32, align 4, !scope !1
  %glob_big = alloca [4096 x i8], align 4, !scope !1
  call void @use(ptr %ws)
  call void @use(ptr %glob_small)
  call void @use(ptr %glob_big)
  ret void
}

!0 = !{!"global.workspace"}
!1 = !{!"global"}

; REMARK: '%ws' in 'f' (4 bytes, align 4, scope 'global.workspace') moved to pool 'workspace': scope 'global.workspace' requires pool 'workspace' [rule scope-pool]
; REMARK: '%glob_small' in 'f' (4 bytes, align 4, scope 'global') stays on the stack: 4 bytes are within the limit
; REMARK: '%glob_big' in 'f' (4096 bytes, align 4, scope 'global') moved to pool 'workspace': 4096 bytes exceed the limit
