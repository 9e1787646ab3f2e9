; Buffers whose lifetime markers never overlap share bytes of the frame, like
; stack colouring does on the machine stack: two 4 KiB buffers used one after
; the other cost 4 KiB of pool, not 8. Overlapping ones, or ones without
; markers (alive throughout), get their own bytes.
; RUN: %opt %loadplugin -scope-alloc-inline-fast-path=false -passes='scope-alloc,verify' -S %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; CHECK-LABEL: define void @disjoint(
; CHECK:         call nonnull align 16 ptr @__scopealloc_alloc(i64 4096, i64 16)
; CHECK-NEXT:    %first = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
; CHECK-NEXT:    %second = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
define void @disjoint() {
  %first = alloca [4096 x i8], align 16
  %second = alloca [4096 x i8], align 16
  call void @llvm.lifetime.start.p0(i64 4096, ptr %first)
  call void @use(ptr %first)
  call void @llvm.lifetime.end.p0(i64 4096, ptr %first)
  call void @llvm.lifetime.start.p0(i64 4096, ptr %second)
  call void @use(ptr %second)
  call void @llvm.lifetime.end.p0(i64 4096, ptr %second)
  ret void
}

; CHECK-LABEL: define void @overlapping(
; CHECK:         call nonnull align 16 ptr @__scopealloc_alloc(i64 8192, i64 16)
; CHECK-NEXT:    %a = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
; CHECK-NEXT:    %b = getelementptr inbounds i8, ptr %scopealloc.frame, i64 4096
define void @overlapping() {
  %a = alloca [4096 x i8], align 16
  %b = alloca [4096 x i8], align 16
  call void @llvm.lifetime.start.p0(i64 4096, ptr %a)
  call void @llvm.lifetime.start.p0(i64 4096, ptr %b)
  call void @use(ptr %a)
  call void @use(ptr %b)
  call void @llvm.lifetime.end.p0(i64 4096, ptr %a)
  call void @llvm.lifetime.end.p0(i64 4096, ptr %b)
  ret void
}

; The always-alive buffer shares with neither; the two scoped ones (on
; different paths) share with each other. Largest first.
; CHECK-LABEL: define void @mixed(
; CHECK:         call nonnull align 16 ptr @__scopealloc_alloc(i64 5120, i64 16)
; CHECK-NEXT:    %x = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
; CHECK-NEXT:    %y = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
; CHECK-NEXT:    %always = getelementptr inbounds i8, ptr %scopealloc.frame, i64 3072
define void @mixed(i1 %c) {
  %x = alloca [3072 x i8], align 16
  %y = alloca [2048 x i8], align 16
  %always = alloca [2048 x i8], align 16
  call void @use(ptr %always)
  br i1 %c, label %one, label %two
one:
  call void @llvm.lifetime.start.p0(i64 3072, ptr %x)
  call void @use(ptr %x)
  call void @llvm.lifetime.end.p0(i64 3072, ptr %x)
  br label %done
two:
  call void @llvm.lifetime.start.p0(i64 2048, ptr %y)
  call void @use(ptr %y)
  call void @llvm.lifetime.end.p0(i64 2048, ptr %y)
  br label %done
done:
  ret void
}

declare void @llvm.lifetime.start.p0(i64 immarg, ptr)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr)
