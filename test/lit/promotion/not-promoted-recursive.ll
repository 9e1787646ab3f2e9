; A recursive function's buffer would be on the stack once per level: a
; depth that ran on the heap would overflow the stack. Promotion keeps the
; workspace call in a function that reaches itself through direct calls
; (itself, or through others of the module), with a remark naming the
; cycle and the rule; a scope that requires the stack still promotes, and
; says so. Functions outside the cycle promote.
; RUN: %opt %loadplugin -passes=scope-alloc-promote -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc-promote -disable-output \
; RUN:   -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @halide_malloc(ptr, i64)
declare void @halide_free(ptr, ptr)
declare ptr @__scopealloc_mark()
declare ptr @__scopealloc_alloc(i64, i64)
declare void @__scopealloc_release(ptr)
declare void @fill(ptr, i32)
declare i32 @checksum(ptr)

; CHECK-LABEL: define i32 @depth_sum(
; CHECK-NOT:     alloca
; CHECK:         %buf = call ptr @halide_malloc(ptr null, i64 1024)
; REMARK: remark: <unknown>:0:0: workspace call '%buf' in 'depth_sum' (halide_malloc, scope none) not promoted: the function is recursive ('depth_sum' calls itself): 1024 bytes on the stack at every level of the recursion [rule recursive]
define i32 @depth_sum(i32 %n) {
entry:
  %zero = icmp eq i32 %n, 0
  br i1 %zero, label %base, label %rec

base:
  ret i32 0

rec:
  %buf = call ptr @halide_malloc(ptr null, i64 1024)
  call void @fill(ptr %buf, i32 %n)
  %n1 = sub i32 %n, 1
  %inner = call i32 @depth_sum(i32 %n1)
  %c = call i32 @checksum(ptr %buf)
  call void @halide_free(ptr null, ptr %buf)
  %s = add i32 %inner, %c
  ret i32 %s
}

; A cycle through two other functions, our ABI.
; CHECK-LABEL: define i32 @walk_a(
; CHECK:         %tile = call ptr @__scopealloc_alloc(i64 512, i64 16)
; CHECK:         call void @__scopealloc_release(ptr %m)
; REMARK: remark: <unknown>:0:0: workspace call '%tile' in 'walk_a' (__scopealloc_alloc, scope none) not promoted: the function is recursive ('walk_a' calls 'walk_b', which calls 'walk_c', which calls 'walk_a'): 512 bytes on the stack at every level of the recursion [rule recursive]
define i32 @walk_a(i32 %n) {
entry:
  %m = call ptr @__scopealloc_mark()
  %tile = call ptr @__scopealloc_alloc(i64 512, i64 16)
  call void @fill(ptr %tile, i32 %n)
  %r = call i32 @walk_b(i32 %n)
  call void @__scopealloc_release(ptr %m)
  ret i32 %r
}

define i32 @walk_b(i32 %n) {
  %r = call i32 @walk_c(i32 %n)
  ret i32 %r
}

define i32 @walk_c(i32 %n) {
  %stop = icmp eq i32 %n, 0
  br i1 %stop, label %done, label %again
again:
  %n1 = sub i32 %n, 1
  %r = call i32 @walk_a(i32 %n1)
  ret i32 %r
done:
  ret i32 0
}

; The code generator asked for the stack: promoted, at every level.
; CHECK-LABEL: define i32 @local_rec(
; CHECK:         %buf = alloca [64 x i8], align 64
; REMARK: remark: <unknown>:0:0: workspace call '%buf' in 'local_rec' (halide_malloc, scope 'local') promoted: scope 'local' requires the stack (64 bytes, the limit 1024 bytes), at every level of the recursion ('local_rec' calls itself) [rule scope-stack]
define i32 @local_rec(i32 %n) {
entry:
  %buf = call ptr @halide_malloc(ptr null, i64 64), !scope !0
  call void @fill(ptr %buf, i32 %n)
  %stop = icmp eq i32 %n, 0
  br i1 %stop, label %done, label %again
again:
  %n1 = sub i32 %n, 1
  %r = call i32 @local_rec(i32 %n1)
  br label %done
done:
  %v = phi i32 [ 0, %entry ], [ %r, %again ]
  call void @halide_free(ptr null, ptr %buf)
  ret i32 %v
}

; It calls into the cycle but is not in it: promoted.
; CHECK-LABEL: define i32 @caller(
; CHECK:         %buf = alloca [1024 x i8], align 64
; REMARK: remark: <unknown>:0:0: workspace call '%buf' in 'caller' (halide_malloc, scope none) promoted: 1024 bytes within the limit 1024 bytes{{ *$}}
define i32 @caller(i32 %n) {
entry:
  %buf = call ptr @halide_malloc(ptr null, i64 1024)
  call void @fill(ptr %buf, i32 %n)
  %r = call i32 @depth_sum(i32 %n)
  call void @halide_free(ptr null, ptr %buf)
  ret i32 %r
}

!0 = !{!"local"}
