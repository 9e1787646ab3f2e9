; A double buffer: each time round a row is allocated, combined with the
; previous row and the previous row is freed (a free of a loop-carried phi).
; That free releases the previous time round's buffer, not this one: the
; row is not freed in the same iteration and stays a heap buffer (promoted,
; every row would be one stack buffer). Where the last row goes does not
; matter: back to the caller, or read and left to the process's exit.
; A phi that gets the buffer after the allocation still counts (@tiles).
; RUN: %opt %loadplugin -passes=scope-alloc-promote -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc-promote -disable-output \
; RUN:   -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @halide_malloc(ptr, i64)
declare void @halide_free(ptr, ptr)
declare void @combine(ptr, ptr)

; CHECK-LABEL: define ptr @rows_last(
; CHECK-NOT:     alloca
; CHECK:         %row = call ptr @halide_malloc(ptr null, i64 1024)
; CHECK:         call void @halide_free(ptr null, ptr %prev)
; REMARK: remark: <unknown>:0:0: workspace call '%row' in 'rows_last' (halide_malloc, scope none) not promoted: it is not released on every path to a return
define ptr @rows_last(i32 %n) {
entry:
  br label %loop

loop:
  %y = phi i32 [ 0, %entry ], [ %y.next, %loop ]
  %prev = phi ptr [ null, %entry ], [ %row, %loop ]
  %row = call ptr @halide_malloc(ptr null, i64 1024)
  call void @combine(ptr %row, ptr %prev)
  call void @halide_free(ptr null, ptr %prev)
  %y.next = add i32 %y, 1
  %more = icmp slt i32 %y.next, %n
  br i1 %more, label %loop, label %done

done:
  ret ptr %row
}

; The same loop in clang's shape: the phi in the loop's header, the NULL
; test of the row, and the last row read after the loop and never freed
; (which Halide's error paths may do: a buffer that does not escape is
; accepted without a free on a path to a return).
; CHECK-LABEL: define float @rows_sum(
; CHECK-NOT:     alloca
; CHECK:         %row = call ptr @halide_malloc(ptr null, i64 512)
; REMARK: remark: <unknown>:0:0: workspace call '%row' in 'rows_sum' (halide_malloc, scope none) not promoted: it is in a loop and not released in the same iteration
define float @rows_sum(i32 %n) {
entry:
  br label %header

header:
  %y = phi i32 [ 0, %entry ], [ %y.next, %body ]
  %prev = phi ptr [ null, %entry ], [ %row, %body ]
  %more = icmp slt i32 %y, %n
  br i1 %more, label %alloc, label %exit

alloc:
  %row = call ptr @halide_malloc(ptr null, i64 512)
  %null = icmp eq ptr %row, null
  br i1 %null, label %failed, label %body

body:
  store float 1.0, ptr %row
  call void @halide_free(ptr null, ptr %prev)
  %y.next = add i32 %y, 1
  br label %header

failed:
  ret float -1.0

exit:
  %s = load float, ptr %prev
  ret float %s
}

; A free through a select of the previous row and NULL is no release of
; this row either.
; CHECK-LABEL: define void @rows_select(
; CHECK:         %row = call ptr @halide_malloc(ptr null, i64 256)
; REMARK: remark: <unknown>:0:0: workspace call '%row' in 'rows_select' (halide_malloc, scope none) not promoted: it is in a loop and not released in the same iteration
define void @rows_select(i32 %n, i1 %c) {
entry:
  br label %loop

loop:
  %y = phi i32 [ 0, %entry ], [ %y.next, %loop ]
  %prev = phi ptr [ null, %entry ], [ %row, %loop ]
  %row = call ptr @halide_malloc(ptr null, i64 256)
  call void @combine(ptr %row, ptr %prev)
  %old = select i1 %c, ptr %prev, ptr null
  call void @halide_free(ptr null, ptr %old)
  %y.next = add i32 %y, 1
  %more = icmp slt i32 %y.next, %n
  br i1 %more, label %loop, label %done

done:
  call void @halide_free(ptr null, ptr %row)
  ret void
}

; Each tile freed in its own time round through a phi that got it after the
; allocation: promoted.
; CHECK-LABEL: define void @tiles(
; CHECK:         %tile = alloca [256 x i8], align 64
; CHECK-NOT:     @halide_malloc(
; CHECK-NOT:     @halide_free(
; CHECK:         ret void
; REMARK: remark: <unknown>:0:0: workspace call '%tile' in 'tiles' (halide_malloc, scope none) promoted: 256 bytes within the limit 1024 bytes
define void @tiles(i32 %n, i1 %c) {
entry:
  br label %loop

loop:
  %y = phi i32 [ 0, %entry ], [ %y.next, %join ]
  %tile = call ptr @halide_malloc(ptr null, i64 256)
  br i1 %c, label %left, label %right

left:
  call void @combine(ptr %tile, ptr null)
  br label %join

right:
  br label %join

join:
  %held = phi ptr [ %tile, %left ], [ %tile, %right ]
  call void @halide_free(ptr null, ptr %held)
  %y.next = add i32 %y, 1
  %more = icmp slt i32 %y.next, %n
  br i1 %more, label %loop, label %done

done:
  ret void
}
