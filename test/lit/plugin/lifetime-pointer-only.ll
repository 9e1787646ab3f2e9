; LLVM 22's lifetime markers take only the pointer, which must be an alloca
; (rustc 1.95 writes `llvm.lifetime.start.p0(ptr %buf)`). Read in that form,
; not upgraded from the sized one: disjoint buffers share pool bytes,
; overlapping ones do not, a demoted buffer's markers go (a marker on the
; pool frame would not verify), and a buffer that stays keeps its own.
; Arguments are `captures(none)` (LLVM 21's form of nocapture).
; REQUIRES: llvm-22
; RUN: %opt %loadplugin -scope-alloc-inline-fast-path=false -passes='scope-alloc,verify' -S %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr captures(none))

; CHECK-LABEL: define void @disjoint(
; CHECK:         call nonnull align 16 ptr @__scopealloc_alloc(i64 4096, i64 16)
; CHECK-NEXT:    %first = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
; CHECK-NEXT:    %second = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
; CHECK-NOT:     llvm.lifetime
; CHECK:       {{^}}}
define void @disjoint() {
  %first = alloca [4096 x i8], align 16
  %second = alloca [4096 x i8], align 16
  call void @llvm.lifetime.start.p0(ptr %first)
  call void @use(ptr %first)
  call void @llvm.lifetime.end.p0(ptr %first)
  call void @llvm.lifetime.start.p0(ptr %second)
  call void @use(ptr %second)
  call void @llvm.lifetime.end.p0(ptr %second)
  ret void
}

; CHECK-LABEL: define void @overlapping_and_small(
; CHECK:         %small = alloca [64 x i8], align 16
; CHECK:         call nonnull align 16 ptr @__scopealloc_alloc(i64 8192, i64 16)
; CHECK-NEXT:    %a = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
; CHECK-NEXT:    %b = getelementptr inbounds i8, ptr %scopealloc.frame, i64 4096
; CHECK:         call void @llvm.lifetime.start.p0(ptr %small)
; CHECK-NOT:     call void @llvm.lifetime.{{start|end}}.p0(ptr %{{a|b}})
; CHECK:         call void @llvm.lifetime.end.p0(ptr %small)
; CHECK:       {{^}}}
define void @overlapping_and_small() {
  %a = alloca [4096 x i8], align 16
  %b = alloca [4096 x i8], align 16
  %small = alloca [64 x i8], align 16
  call void @llvm.lifetime.start.p0(ptr %a)
  call void @llvm.lifetime.start.p0(ptr %b)
  call void @llvm.lifetime.start.p0(ptr %small)
  call void @use(ptr %a)
  call void @use(ptr %b)
  call void @use(ptr %small)
  call void @llvm.lifetime.end.p0(ptr %small)
  call void @llvm.lifetime.end.p0(ptr %a)
  call void @llvm.lifetime.end.p0(ptr %b)
  ret void
}

declare void @llvm.lifetime.start.p0(ptr)
declare void @llvm.lifetime.end.p0(ptr)
