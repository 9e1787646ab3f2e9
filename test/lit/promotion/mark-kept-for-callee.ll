; Our ABI: a promoted __scopealloc_alloc leaves its mark and releases in
; place while anything between them may allocate from the default pool: a
; callee may take memory under the caller's mark and leave it to the
; caller's release (dropping them, every call would leave its memory in the
; pool). A call that touches only its arguments' memory, only reads memory,
; an intrinsic that only informs the optimiser, and the runtime's own mark
; and release do not allocate there: the mark goes.
; RUN: %opt %loadplugin -passes=scope-alloc-promote -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc-promote -disable-output \
; RUN:   -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @__scopealloc_mark()
declare ptr @__scopealloc_alloc(i64, i64)
declare void @__scopealloc_release(ptr)
declare i32 @scratch_sum(i32)
declare void @fill(ptr, i32) argmemonly
declare i32 @peek(ptr) readonly

; The helper may take its scratch under %m.
; CHECK-LABEL: define i32 @kernel(
; CHECK:         %tile = alloca [256 x i8], align 16
; CHECK:         %m = call ptr @__scopealloc_mark()
; CHECK-NOT:     @__scopealloc_alloc(
; CHECK:         call i32 @scratch_sum(
; CHECK:         call void @__scopealloc_release(ptr %m)
; REMARK: remark: <unknown>:0:0: workspace call '%tile' in 'kernel' (__scopealloc_alloc, scope none) promoted: 256 bytes within the limit 1024 bytes
; REMARK: remark: <unknown>:0:0: mark '%m' in 'kernel' kept with its releases: the call to 'scratch_sum' under it may allocate from the default pool
define i32 @kernel(i32 %n) {
entry:
  %m = call ptr @__scopealloc_mark()
  %tile = call ptr @__scopealloc_alloc(i64 256, i64 16)
  call void @fill(ptr %tile, i32 %n)
  %s = call i32 @scratch_sum(i32 %n)
  call void @__scopealloc_release(ptr %m)
  ret i32 %s
}

; Through a function pointer, on one of two paths, in a loop before the
; release.
; CHECK-LABEL: define i32 @indirect(
; CHECK:         %m = call ptr @__scopealloc_mark()
; CHECK:         call void @__scopealloc_release(ptr %m)
; REMARK: remark: <unknown>:0:0: workspace call '%tile' in 'indirect' (__scopealloc_alloc, scope none) promoted: 64 bytes within the limit 1024 bytes
; REMARK: remark: <unknown>:0:0: mark '%m' in 'indirect' kept with its releases: the call to a function pointer under it may allocate from the default pool
define i32 @indirect(ptr %f, i1 %c, i32 %n) {
entry:
  %m = call ptr @__scopealloc_mark()
  %tile = call ptr @__scopealloc_alloc(i64 64, i64 16)
  call void @fill(ptr %tile, i32 %n)
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %next ]
  br i1 %c, label %call, label %next

call:
  %r = call i32 %f(i32 %i)
  br label %next

next:
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %done

done:
  %v = call i32 @peek(ptr %tile)
  call void @__scopealloc_release(ptr %m)
  ret i32 %v
}

; Nothing between mark and release allocates: both go.
; CHECK-LABEL: define i32 @leaf(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %tile = alloca [128 x i8], align 16
; CHECK-NOT:     @__scopealloc_
; CHECK:         ret i32
; REMARK-NOT: mark '%m' in 'leaf'
define i32 @leaf(i32 %n) {
entry:
  %m = call ptr @__scopealloc_mark()
  %tile = call ptr @__scopealloc_alloc(i64 128, i64 16)
  call void @llvm.memset.p0.i64(ptr %tile, i8 0, i64 128, i1 false)
  call void @fill(ptr %tile, i32 %n)
  %inner = call ptr @__scopealloc_mark()
  call void @__scopealloc_release(ptr %inner)
  %v = call i32 @peek(ptr %tile)
  call void @__scopealloc_release(ptr %m)
  ret i32 %v
}

; A call after the release is not under the mark.
; CHECK-LABEL: define i32 @after(
; CHECK-NOT:     @__scopealloc_
; CHECK:         call i32 @scratch_sum(
; CHECK-NOT:     @__scopealloc_
; CHECK:         ret i32
define i32 @after(i32 %n) {
entry:
  %m = call ptr @__scopealloc_mark()
  %tile = call ptr @__scopealloc_alloc(i64 32, i64 16)
  call void @fill(ptr %tile, i32 %n)
  %v = call i32 @peek(ptr %tile)
  call void @__scopealloc_release(ptr %m)
  %s = call i32 @scratch_sum(i32 %v)
  ret i32 %s
}

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
