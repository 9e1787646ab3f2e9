; Halide 21's error-path destructors free a phi of the buffer and NULL that
; the normal path reaches with NULL: such a free counts as a release of the
; buffer only on the paths on which the phi got the buffer. A path that
; frees the buffer and then its destructor's phi with NULL frees it once;
; a path that frees it twice (directly and through the phi) is still found.
; RUN: %opt %loadplugin -passes=scope-alloc-promote -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc-promote -disable-output \
; RUN:   -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @halide_malloc(ptr, i64)
declare void @halide_free(ptr, ptr)
declare i32 @work(ptr)

; A loop of tiles: each iteration takes the buffer and frees it; a failing
; tile jumps to the destructor with the buffer, the loop's end with NULL
; (free(NULL) does nothing).
; CHECK-LABEL: define i32 @tiles(
; CHECK:         %buf = alloca [512 x i8], align 64
; CHECK-NOT:     @halide_malloc(
; CHECK-NOT:     @halide_free(
; CHECK:         ret i32
; REMARK: workspace call '%buf' in '{{[^']*}}' (halide_malloc, scope none) promoted: 512 bytes within the limit
define i32 @tiles(ptr %ctx, i32 %n) {
entry:
  br label %tile

tile:
  %i = phi i32 [ 0, %entry ], [ %i.next, %next ]
  %buf = call ptr @halide_malloc(ptr %ctx, i64 512)
  %err = call i32 @work(ptr %buf)
  %failed = icmp ne i32 %err, 0
  br i1 %failed, label %destructor, label %next

next:
  call void @halide_free(ptr %ctx, ptr %buf)
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %destructor, label %tile

destructor:
  %held = phi ptr [ %buf, %tile ], [ null, %next ]
  %code = phi i32 [ %err, %tile ], [ 0, %next ]
  call void @halide_free(ptr %ctx, ptr %held)
  ret i32 %code
}

; The destructor's phi gets the buffer on the path that already freed it.
; CHECK-LABEL: define i32 @twice(
; CHECK:         %buf = call ptr @halide_malloc(
; REMARK: workspace call '%buf' in '{{[^']*}}' (halide_malloc, scope none) not promoted: it is released more than once on a path
define i32 @twice(ptr %ctx, i1 %c) {
entry:
  %buf = call ptr @halide_malloc(ptr %ctx, i64 512)
  %err = call i32 @work(ptr %buf)
  br i1 %c, label %early, label %destructor

early:
  call void @halide_free(ptr %ctx, ptr %buf)
  br label %destructor

destructor:
  %held = phi ptr [ %buf, %entry ], [ %buf, %early ]
  call void @halide_free(ptr %ctx, ptr %held)
  ret i32 %err
}
