; Alignment is honoured exactly: the frame asks for the largest alignment of
; its members (up to 4096 here), members are placed most aligned first, each
; at an aligned offset (small ones fill padding gaps), and dynamic allocas
; pass their own alignment.
; RUN: %opt %loadplugin -scope-alloc-inline-fast-path=false -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -S %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; CHECK-LABEL: define void @f(
; CHECK:         %scopealloc.frame = call nonnull align 4096 ptr @__scopealloc_alloc(i64 4096, i64 4096)
; CHECK-NEXT:    %page = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
; CHECK-NEXT:    %line = getelementptr inbounds i8, ptr %scopealloc.frame, i64 4032
; CHECK-NEXT:    %word = getelementptr inbounds i8, ptr %scopealloc.frame, i64 4000
; CHECK-NEXT:    %byte = getelementptr inbounds i8, ptr %scopealloc.frame, i64 4004
; CHECK:         %dyn = call nonnull align 256 ptr @__scopealloc_alloc(i64 %n, i64 256)
define void @f(i64 %n) {
  %byte = alloca i8, align 1
  %page = alloca [4000 x i8], align 4096
  %line = alloca [64 x i8], align 64
  %word = alloca i32, align 4
  call void @use(ptr %byte)
  call void @use(ptr %page)
  call void @use(ptr %line)
  call void @use(ptr %word)
  %dyn = alloca i8, i64 %n, align 256
  call void @use(ptr %dyn)
  ret void
}
