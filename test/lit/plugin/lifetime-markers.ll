; Lifetime markers of a demoted alloca are dropped (they describe stack
; slots), including one that is the first instruction after the allocas.
; RUN: %opt %loadplugin -scope-alloc-inline-fast-path=false -passes='scope-alloc,verify' -S %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)
; CHECK-LABEL: define void @with_lifetimes(
; CHECK-NEXT:    %scopealloc.mark = call ptr @__scopealloc_mark()
; CHECK-NEXT:    %scopealloc.frame = call nonnull align 1 ptr @__scopealloc_alloc(i64 4096, i64 1)
; CHECK-NOT:     llvm.lifetime
; CHECK:         ret void
define void @with_lifetimes() {
  %buf = alloca [4096 x i8]
  call void @llvm.lifetime.start.p0(i64 4096, ptr %buf)
  call void @use(ptr %buf)
  call void @llvm.lifetime.end.p0(i64 4096, ptr %buf)
  ret void
}

declare void @llvm.lifetime.start.p0(i64 immarg, ptr)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr)
