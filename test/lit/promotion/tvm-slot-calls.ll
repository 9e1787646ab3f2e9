; TVM modules that are not a system library call the workspace functions
; through the slots @__TVMBackendAllocWorkspace / @__TVMBackendFreeWorkspace
; that TVM's module loader fills (codegen_cpu.cc). Those calls are promoted
; by the same rules as direct ones, whether the slot load is next to the
; call, shared by several calls, hoisted out of a loop or in another block.
; Slot loads no call uses any more go too; a call that stays keeps going
; through its slot (TVM's own allocator).
; RUN: rm -rf %t && split-file %s %t
; RUN: %opt %loadplugin -passes=scope-alloc-promote -S %t/tvm.ll | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc-promote -disable-output \
; RUN:   -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %t/tvm.ll 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REMARK
; A policy's allocator with slots of its own.
; RUN: %opt %loadplugin -scope-alloc-policy=%t/slots.yaml -passes=scope-alloc-promote \
; RUN:   -S %t/own.ll | FileCheck %s --check-prefix=OWN

;--- tvm.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

@__TVMBackendAllocWorkspace = linkonce dllexport local_unnamed_addr global ptr null, align 8
@__TVMBackendFreeWorkspace = linkonce dllexport local_unnamed_addr global ptr null, align 8
declare void @use(ptr)

; TVM's own shape (as TVM 0.27 writes it): load, call, NULL check; the free
; through its slot in the exit block.
; CHECK-LABEL: define i32 @adjacent(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %pad_temp = alloca [256 x i8], align 64
; CHECK-NOT:     __TVMBackend
; CHECK:         ret i32
; REMARK: remark: {{.*}}workspace call '%pad_temp' in '{{[^']*}}' (TVMBackendAllocWorkspace through @__TVMBackendAllocWorkspace, scope none) promoted: 256 bytes within the limit 1024 bytes
define i32 @adjacent(i32 %dev_id) {
entry:
  %0 = load ptr, ptr @__TVMBackendAllocWorkspace, align 8
  %pad_temp = tail call ptr %0(i32 1, i32 %dev_id, i64 256, i32 2, i32 32)
  %1 = icmp eq ptr %pad_temp, null
  br i1 %1, label %common.ret, label %if_end

common.ret:
  %r = phi i32 [ -1, %entry ], [ %., %if_end ]
  ret i32 %r

if_end:
  call void @use(ptr %pad_temp)
  %2 = load ptr, ptr @__TVMBackendFreeWorkspace, align 8
  %3 = tail call i32 %2(i32 1, i32 %dev_id, ptr nonnull %pad_temp)
  %.not = icmp ne i32 %3, 0
  %. = sext i1 %.not to i32
  br label %common.ret
}

; One load of each slot serves two workspaces, hoisted into the entry
; block; the calls are in other blocks. The 256-byte one is promoted, the
; 4096-byte one stays with TVM's allocator and the loads it needs stay.
; CHECK-LABEL: define i32 @shared(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %small = alloca [256 x i8], align 64
; CHECK-NEXT:    %alloc = load ptr, ptr @__TVMBackendAllocWorkspace
; CHECK-NEXT:    %free = load ptr, ptr @__TVMBackendFreeWorkspace
; CHECK:         %big = call ptr %alloc(i32 1, i32 0, i64 4096, i32 2, i32 32)
; CHECK-NOT:     %alloc(
; CHECK:         call i32 %free(i32 1, i32 0, ptr %big)
; CHECK-NOT:     %free(
; CHECK:         ret i32
; REMARK: remark: {{.*}}workspace call '%small' in '{{[^']*}}' (TVMBackendAllocWorkspace through @__TVMBackendAllocWorkspace, scope none) promoted: 256 bytes within the limit 1024 bytes
; REMARK: remark: {{.*}}workspace call '%big' in '{{[^']*}}' (TVMBackendAllocWorkspace through @__TVMBackendAllocWorkspace, scope none) not promoted: 4096 bytes exceed the limit 1024 bytes
define i32 @shared() {
entry:
  %alloc = load ptr, ptr @__TVMBackendAllocWorkspace, align 8
  %free = load ptr, ptr @__TVMBackendFreeWorkspace, align 8
  br label %first

first:
  %small = call ptr %alloc(i32 1, i32 0, i64 256, i32 2, i32 32)
  call void @use(ptr %small)
  %r1 = call i32 %free(i32 1, i32 0, ptr %small)
  br label %second

second:
  %big = call ptr %alloc(i32 1, i32 0, i64 4096, i32 2, i32 32)
  call void @use(ptr %big)
  %r2 = call i32 %free(i32 1, i32 0, ptr %big)
  ret i32 0
}

; A loop whose slot loads were hoisted out of it: promoted, loads gone.
; CHECK-LABEL: define void @hoisted(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %buf = alloca [64 x i8], align 64
; CHECK-NOT:     __TVMBackend
; CHECK:         ret void
define void @hoisted(i32 %n) {
entry:
  %alloc = load ptr, ptr @__TVMBackendAllocWorkspace, align 8
  %free = load ptr, ptr @__TVMBackendFreeWorkspace, align 8
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %buf = call ptr %alloc(i32 1, i32 0, i64 64, i32 2, i32 32)
  call void @use(ptr %buf)
  %r = call i32 %free(i32 1, i32 0, ptr %buf)
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; A call through another global is none of TVM's: left alone, no remark.
; CHECK-LABEL: define void @other_slot(
; CHECK:         %p = call ptr %f(i32 1, i32 0, i64 64, i32 2, i32 32)
; REMARK-NOT: '%p'
@__SomethingElse = global ptr null
define void @other_slot() {
  %f = load ptr, ptr @__SomethingElse, align 8
  %p = call ptr %f(i32 1, i32 0, i64 64, i32 2, i32 32)
  call void @use(ptr %p)
  ret void
}

;--- slots.yaml
version: 1
allocators:
  - alloc: npu_alloc
    size-arg: 0
    free: npu_free
    free-arg: 0
    align: 32
    alloc-slot: npu_alloc_slot
    free-slot: npu_free_slot

;--- own.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
@npu_alloc_slot = global ptr null
@npu_free_slot = global ptr null
declare void @use(ptr)

; OWN-LABEL: define void @own(
; OWN-NEXT:    %p = alloca [128 x i8], align 32
; OWN-NOT:     _slot
; OWN:         ret void
define void @own() {
  %a = load ptr, ptr @npu_alloc_slot
  %p = call ptr %a(i64 128)
  call void @use(ptr %p)
  %f = load ptr, ptr @npu_free_slot
  call void %f(ptr %p)
  ret void
}
