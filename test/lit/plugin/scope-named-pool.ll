; `global.<pool>` takes memory from the application-defined pool, whatever
; the size, through the __scopealloc_pool_<pool> global (so a program that
; does not define the pool fails to link naming it). Each pool gets its own
; mark and frame; releases happen newest pool first.
; RUN: %opt %loadplugin -scope-alloc-inline-fast-path=false -passes=scope-alloc -S %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; CHECK: @__scopealloc_pool_npu_sram = external global %scopealloc.pool

; CHECK-LABEL: define void @f(
; CHECK:         %scopealloc.mark.npu_sram = call ptr @__scopealloc_pool_mark(ptr @__scopealloc_pool_npu_sram)
; CHECK-NEXT:    %scopealloc.frame.npu_sram = call nonnull align 16 ptr @__scopealloc_pool_alloc(ptr @__scopealloc_pool_npu_sram, i64 80, i64 16)
; CHECK-NEXT:    %tensor = getelementptr inbounds i8, ptr %scopealloc.frame.npu_sram, i64 0
; CHECK-NEXT:    %weights = getelementptr inbounds i8, ptr %scopealloc.frame.npu_sram, i64 64
; CHECK-NEXT:    %scopealloc.mark = call ptr @__scopealloc_mark()
; CHECK-NEXT:    %scopealloc.frame = call nonnull align 8 ptr @__scopealloc_alloc(i64 2000, i64 8)
; CHECK:         call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    call void @__scopealloc_pool_release(ptr @__scopealloc_pool_npu_sram, ptr %scopealloc.mark.npu_sram)
; CHECK-NEXT:    ret void
define void @f() {
  %tensor = alloca [64 x i8], align 16, !scope !0
  %big = alloca [2000 x i8], align 8
  %weights = alloca [16 x i8], align 4, !scope !0
  call void @use(ptr %tensor)
  call void @use(ptr %big)
  call void @use(ptr %weights)
  ret void
}

!0 = !{!"global.npu_sram"}
