; Halide's allocations: halide_malloc(ctx, N) of a constant size, checked
; for NULL (the error path needs no free), and freed by halide_free(ctx, p)
; directly or, on Halide's error-path destructors, through a phi or select
; of p and NULL. Within the limit they become 64-byte aligned allocas.
; RUN: %opt %loadplugin -passes=scope-alloc-promote -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc-promote -disable-output \
; RUN:   -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @halide_malloc(ptr, i64)
declare void @halide_free(ptr, ptr)
declare i32 @halide_error_out_of_memory(ptr)
declare i32 @work(ptr)

; CHECK-LABEL: define i32 @direct(
; CHECK:         %buf = alloca [1024 x i8], align 64
; CHECK-NOT:     @halide_malloc
; CHECK-NOT:     @halide_free
; REMARK: workspace call '%buf' in '{{[^']*}}' (halide_malloc, scope none) promoted: 1024 bytes within the limit 1024 bytes
define i32 @direct(ptr %ctx) {
entry:
  %buf = call ptr @halide_malloc(ptr %ctx, i64 1024)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %oom, label %ok
oom:
  %e = call i32 @halide_error_out_of_memory(ptr %ctx)
  ret i32 %e
ok:
  %r = call i32 @work(ptr %buf)
  call void @halide_free(ptr %ctx, ptr %buf)
  ret i32 %r
}

; The error path frees a phi of the buffer and NULL (the buffer may not
; have been allocated yet when the error happens).
; CHECK-LABEL: define i32 @phi_of_pointer_or_null(
; CHECK:         %buf = alloca [512 x i8], align 64
; CHECK-NOT:     @halide_free
; REMARK: workspace call '%buf' in '{{[^']*}}' (halide_malloc, scope none) promoted: 512 bytes within the limit 1024 bytes
define i32 @phi_of_pointer_or_null(ptr %ctx, i1 %early) {
entry:
  br i1 %early, label %fail, label %alloc
alloc:
  %buf = call ptr @halide_malloc(ptr %ctx, i64 512)
  %isnull = icmp eq ptr %buf, null
  br i1 %isnull, label %fail, label %ok
ok:
  %r = call i32 @work(ptr %buf)
  %bad = icmp ne i32 %r, 0
  br i1 %bad, label %fail, label %done
done:
  %s = select i1 %early, ptr null, ptr %buf
  call void @halide_free(ptr %ctx, ptr %s)
  ret i32 0
fail:
  %p = phi ptr [ null, %entry ], [ null, %alloc ], [ %buf, %ok ]
  call void @halide_free(ptr %ctx, ptr %p)
  ret i32 -1
}

; A free of a phi that may also get another buffer stays.
; CHECK-LABEL: define void @phi_of_two_buffers(
; CHECK:         call ptr @halide_malloc(ptr %ctx, i64 256)
; REMARK: workspace call '%a' in '{{[^']*}}' (halide_malloc, scope none) not promoted: it may be released through a phi or select of other pointers
define void @phi_of_two_buffers(ptr %ctx, i1 %c) {
entry:
  %a = call ptr @halide_malloc(ptr %ctx, i64 256)
  %b = call ptr @halide_malloc(ptr %ctx, i64 256)
  %p = select i1 %c, ptr %a, ptr %b
  %q = select i1 %c, ptr %b, ptr %a
  call void @halide_free(ptr %ctx, ptr %p)
  call void @halide_free(ptr %ctx, ptr %q)
  ret void
}

; Over the limit: stays a heap allocation.
; REMARK: workspace call '%big' in '{{[^']*}}' (halide_malloc, scope none) not promoted: 65536 bytes exceed the limit 1024 bytes
define void @big(ptr %ctx) {
  %big = call ptr @halide_malloc(ptr %ctx, i64 65536)
  %r = call i32 @work(ptr %big)
  call void @halide_free(ptr %ctx, ptr %big)
  ret void
}

; Halide frees an earlier buffer on an allocation failure only when the
; error handler returns non-zero: on the other path the buffer leaks. It
; does not escape, so on the stack it is simply freed at the return.
; RUN: %opt %loadplugin -passes=scope-alloc-promote -scope-alloc-max-stack-alloca=4096 -S %s | FileCheck %s --check-prefix=LEAK
; RUN: %opt %loadplugin -passes=scope-alloc-promote -scope-alloc-max-stack-alloca=4096 -disable-output -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=LEAKREMARK
; LEAK-LABEL: define i32 @freed_if_error(
; LEAK-DAG:     %coarse = alloca [2048 x i8], align 64
; LEAK-DAG:     %fine = alloca [2048 x i8], align 64
; LEAK-NOT:     @halide_free
; LEAK-LABEL: define i32 @escapes(
; LEAKREMARK: workspace call '%coarse' in '{{[^']*}}' (halide_malloc, scope none) promoted: 2048 bytes within the limit 4096 bytes
; LEAKREMARK: workspace call '%kept' in '{{[^']*}}' (halide_malloc, scope none) not promoted: it is not released on every path to a return
define i32 @freed_if_error(ptr %ctx) {
entry:
  %coarse = call ptr @halide_malloc(ptr %ctx, i64 2048)
  %c.null = icmp eq ptr %coarse, null
  br i1 %c.null, label %oom, label %alloc_fine
oom:
  %e0 = call i32 @halide_error_out_of_memory(ptr %ctx)
  ret i32 %e0
alloc_fine:
  store i8 1, ptr %coarse
  %fine = call ptr @halide_malloc(ptr %ctx, i64 2048)
  %f.null = icmp eq ptr %fine, null
  br i1 %f.null, label %oom2, label %ok
oom2:
  %e = call i32 @halide_error_out_of_memory(ptr %ctx)
  %failed = icmp ne i32 %e, 0
  br i1 %failed, label %free_coarse, label %out
free_coarse:
  call void @halide_free(ptr %ctx, ptr %coarse)
  br label %out
out:
  ret i32 %e
ok:
  %v = load i8, ptr %coarse
  store i8 %v, ptr %fine
  call void @halide_free(ptr %ctx, ptr %fine)
  call void @halide_free(ptr %ctx, ptr %coarse)
  ret i32 0
}

; The same, but the buffer escapes into a call that may keep it: a path
; without the free would then leave it to outlive the function.
define i32 @escapes(ptr %ctx, i1 %c) {
entry:
  %kept = call ptr @halide_malloc(ptr %ctx, i64 2048)
  %r = call i32 @work(ptr %kept)
  br i1 %c, label %free, label %out
free:
  call void @halide_free(ptr %ctx, ptr %kept)
  br label %out
out:
  ret i32 %r
}
