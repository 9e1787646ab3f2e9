; Dynamically sized allocas (VLAs, alloca(n)) move to the default pool.
; stacksave/stackrestore become mark/release of the pool, so a VLA in a loop
; is freed every iteration, as it was on the stack.
; RUN: %opt %loadplugin -passes=scope-alloc -S %s | FileCheck %s
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc -disable-output -pass-remarks=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; CHECK-LABEL: define void @vla_in_loop(
; CHECK:       entry:
; CHECK-NEXT:    %scopealloc.mark = call ptr @__scopealloc_mark()
; CHECK:       loop:
; CHECK:         %sp = call ptr @__scopealloc_mark()
; CHECK-NEXT:    [[BYTES:%.*]] = mul i64 %n, 4
; CHECK-NEXT:    %vla = call nonnull align 16 ptr @__scopealloc_alloc(i64 [[BYTES]], i64 16)
; CHECK-NEXT:    call void @use(ptr %vla)
; CHECK-NEXT:    call void @__scopealloc_release(ptr %sp)
; CHECK-NOT:     llvm.stacksave
; CHECK:       exit:
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    ret void
define void @vla_in_loop(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %sp = call ptr @llvm.stacksave()
  %vla = alloca i32, i64 %n, align 16
  call void @use(ptr %vla)
  call void @llvm.stackrestore(ptr %sp)
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, 100
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; The -O0 shape: the saved pointer goes through memory; the entry-block
; alloca(n) gets its mark taken before it.
; CHECK-LABEL: define void @o0_shape(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %saved_stack = alloca ptr, align 8
; CHECK-NEXT:    %scopealloc.mark = call ptr @__scopealloc_mark()
; CHECK-NEXT:    [[N32:%.*]] = zext i32 %n to i64
; CHECK-NEXT:    %a = call nonnull align 8 ptr @__scopealloc_alloc(i64 [[N32]], i64 8)
; CHECK:         [[SAVED:%.*]] = call ptr @__scopealloc_mark()
; CHECK-NEXT:    store ptr [[SAVED]], ptr %saved_stack
; CHECK:         [[RESTORE:%.*]] = load ptr, ptr %saved_stack
; CHECK-NEXT:    call void @__scopealloc_release(ptr [[RESTORE]])
define void @o0_shape(i32 %n) {
entry:
  %saved_stack = alloca ptr, align 8
  %a = alloca i8, i32 %n, align 8
  call void @use(ptr %a)
  %0 = call ptr @llvm.stacksave()
  store ptr %0, ptr %saved_stack, align 8
  %vla = alloca double, i32 %n, align 16
  call void @use(ptr %vla)
  %1 = load ptr, ptr %saved_stack, align 8
  call void @llvm.stackrestore(ptr %1)
  ret void
}

; A constant-size alloca outside the entry block moves too when the
; function's dynamic allocas move, so stackrestore stays meaningful.
; CHECK-LABEL: define void @with_dynamic(
; CHECK-NOT:     alloca
; CHECK:         %small = call nonnull align 4 ptr @__scopealloc_alloc(i64 16, i64 4)
define void @with_dynamic(i64 %n) {
entry:
  br label %body
body:
  %sp = call ptr @llvm.stacksave()
  %small = alloca [4 x i32], align 4
  %vla = alloca i8, i64 %n
  call void @use(ptr %small)
  call void @use(ptr %vla)
  call void @llvm.stackrestore(ptr %sp)
  ret void
}

; REMARK: '%vla' in 'vla_in_loop' (dynamic size, align 16, scope none) moved to pool 'workspace': its size is only known at run time; dynamic allocations: demote (built-in default) [rule dynamic-size]
; REMARK: '%small' in 'with_dynamic' (16 bytes, align 4, scope none) moved to pool 'workspace': 16 bytes are within the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU)); moved anyway with the function's other dynamic allocations, so that llvm.stackrestore frees them together [rule with-dynamic]

declare ptr @llvm.stacksave()
declare void @llvm.stackrestore(ptr)
