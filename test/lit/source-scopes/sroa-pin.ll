; The source-scopes pass turns a "scope:" annotation into !scope; for a
; pool scope it keeps the annotation call, and SROA then leaves the alloca
; whole with its scope. For a stack scope the call goes away and SROA may
; split the buffer (the pieces lose the scope, harmlessly).
; RUN: %opt %loadplugin -passes=scope-alloc-source-scopes,sroa -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc-source-scopes,scope-alloc-source-scopes -S %s | FileCheck %s --check-prefix=TWICE

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

@.ws = private unnamed_addr constant [23 x i8] c"scope:global.workspace\00", section "llvm.metadata"
@.loc = private unnamed_addr constant [12 x i8] c"scope:local\00", section "llvm.metadata"
@.file = private unnamed_addr constant [4 x i8] c"x.c\00", section "llvm.metadata"

declare void @llvm.var.annotation(ptr, ptr, ptr, i32, ptr)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define void @pool(ptr %src, ptr %dst) {
  %buf = alloca [4096 x i8], align 16
  call void @llvm.var.annotation(ptr %buf, ptr @.ws, ptr @.file, i32 3, ptr null)
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %src, i64 200, i1 false)
  %hi = getelementptr inbounds i8, ptr %buf, i64 1024
  call void @llvm.memcpy.p0.p0.i64(ptr %hi, ptr %src, i64 700, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %buf, i64 200, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %hi, i64 700, i1 false)
  ret void
}

define void @stack(ptr %src, ptr %dst) {
  %buf = alloca [4096 x i8], align 16
  call void @llvm.var.annotation(ptr %buf, ptr @.loc, ptr @.file, i32 9, ptr null)
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %src, i64 200, i1 false)
  %hi = getelementptr inbounds i8, ptr %buf, i64 1024
  call void @llvm.memcpy.p0.p0.i64(ptr %hi, ptr %src, i64 700, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %buf, i64 200, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %hi, i64 700, i1 false)
  ret void
}

; CHECK-LABEL: define void @pool(
; CHECK-NEXT: %buf = alloca [4096 x i8], align 16, !scope ![[WS:[0-9]+]]
; CHECK-NEXT: call void @llvm.var.annotation{{(.p0.p0)?}}(ptr %buf, ptr @.ws,
; CHECK-LABEL: define void @stack(
; CHECK-NOT: llvm.var.annotation
; CHECK-NOT: alloca [4096 x i8]
; CHECK: ret void
; CHECK: ![[WS]] = !{!"global.workspace"}

; Running twice is harmless (the pin is seen again, with the same scope).
; TWICE: %buf = alloca [4096 x i8], align 16, !scope ![[WS:[0-9]+]]
; TWICE: %buf = alloca [4096 x i8], align 16, !scope ![[LOC:[0-9]+]]
; TWICE-DAG: ![[WS]] = !{!"global.workspace"}
; TWICE-DAG: ![[LOC]] = !{!"local"}
