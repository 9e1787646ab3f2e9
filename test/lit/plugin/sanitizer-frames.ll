; Demoted frames under the sanitizers, which run after the pass:
;  - MemorySanitizer: no inline fast path, and every new frame or dynamic
;    allocation is marked uninitialised with __msan_allocated_memory (the
;    arena is mmap-ed memory earlier frames wrote, which MSan takes as
;    initialised);
;  - AddressSanitizer: every new frame is noted with a constant descriptor
;    {function, size, count, vars} of {name, offset, size}, so that the
;    runtime can name the variable in a report on its memory. Bare-metal
;    triples get no notes (their runtime has no report hook). The buffers
;    have redzones before, between and after them (32 bytes first, then as
;    ASan sizes them: 256 after 16 KiB, 64 after 256 bytes), poisoned once
;    the frame is allocated.
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes='scope-alloc,verify' -S %s | FileCheck %s
; RUN: sed 's/x86_64-unknown-linux-gnu/thumbv7em-unknown-none-eabi/' %s | %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes='scope-alloc,verify' -S | FileCheck %s --check-prefix=BARE

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; CHECK: @[[IMAGE:scopealloc.name[.0-9]*]] = private unnamed_addr constant [6 x i8] c"image\00"
; CHECK: @[[TMP:scopealloc.name[.0-9]*]] = private unnamed_addr constant [4 x i8] c"tmp\00"
; CHECK: @[[VARS:scopealloc.vars[.0-9]*]] = private constant [2 x { ptr, i64, i64 }] [{ ptr, i64, i64 } { ptr @[[IMAGE]], i64 32, i64 16384 }, { ptr, i64, i64 } { ptr @[[TMP]], i64 16672, i64 256 }], no_sanitize_address
; CHECK: @[[FN:scopealloc.name[.0-9]*]] = private unnamed_addr constant [5 x i8] c"blur\00"
; CHECK: @[[DESC:scopealloc.frame.desc[.0-9]*]] = private constant { ptr, i64, i64, ptr } { ptr @[[FN]], i64 16992, i64 2, ptr @[[VARS]] }, no_sanitize_address
; BARE-NOT: scopealloc.frame.desc
; BARE-NOT: __scopealloc_note_frame

declare void @use(ptr)

; CHECK-LABEL: define void @uninit(
; CHECK-NOT:     __scopealloc_tls_pool
; CHECK:         %scopealloc.frame = call nonnull align 16 ptr @__scopealloc_alloc(i64 4096, i64 16)
; CHECK-NEXT:    call void @__msan_allocated_memory(ptr %scopealloc.frame, i64 4096)
; CHECK:         %vla = call nonnull align 4 ptr @__scopealloc_alloc(i64 %{{.*}}, i64 4)
; CHECK-NEXT:    call void @__msan_allocated_memory(ptr %vla, i64 %{{.*}})
define void @uninit(i32 %n) sanitize_memory {
  %buf = alloca [4096 x i8], align 16
  %vla = alloca i32, i32 %n, align 4
  call void @use(ptr %buf)
  call void @use(ptr %vla)
  ret void
}

; Each lifetime start poisons the buffer again, as MSan does on the stack.
; CHECK-LABEL: define void @rounds(
; CHECK:       body:
; CHECK-NEXT:    %i = phi
; CHECK-NEXT:    call void @__msan_allocated_memory(ptr %buf, i64 4096)
; CHECK-NEXT:    call void @use(ptr %buf)
define void @rounds() sanitize_memory {
entry:
  %buf = alloca [4096 x i8], align 16
  br label %body
body:
  %i = phi i32 [ 0, %entry ], [ %i.next, %body ]
  call void @llvm.lifetime.start.p0(i64 4096, ptr %buf)
  call void @use(ptr %buf)
  call void @llvm.lifetime.end.p0(i64 4096, ptr %buf)
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, 4
  br i1 %done, label %exit, label %body
exit:
  ret void
}

; CHECK-LABEL: define void @blur(
; CHECK:         %scopealloc.frame = call nonnull align 16 ptr @__scopealloc_alloc(i64 16992, i64 16)
; CHECK-NEXT:    call void @__scopealloc_note_frame(ptr %scopealloc.frame, ptr @[[DESC]])
; CHECK-NEXT:    call void @__asan_poison_memory_region(ptr %scopealloc.frame, i64 32)
; CHECK-NEXT:    %[[RZ1:.*]] = getelementptr inbounds i8, ptr %scopealloc.frame, i64 16416
; CHECK-NEXT:    call void @__asan_poison_memory_region(ptr %[[RZ1]], i64 256)
; CHECK-NEXT:    %[[RZ2:.*]] = getelementptr inbounds i8, ptr %scopealloc.frame, i64 16928
; CHECK-NEXT:    call void @__asan_poison_memory_region(ptr %[[RZ2]], i64 64)
; CHECK-NEXT:    %image = getelementptr inbounds i8, ptr %scopealloc.frame, i64 32
; CHECK-NEXT:    %tmp = getelementptr inbounds i8, ptr %scopealloc.frame, i64 16672
; BARE-LABEL: define void @blur(
; BARE:         call nonnull align 16 ptr @__scopealloc_alloc(i64 16992, i64 16)
; BARE-NEXT:    call void @__asan_poison_memory_region(
define void @blur() sanitize_address {
  %tmp = alloca [64 x float], align 4
  %image = alloca [4096 x float], align 16
  call void @use(ptr %image)
  call void @use(ptr %tmp)
  ret void
}

; Neither sanitizer: the inline fast path, no hooks.
; CHECK-LABEL: define void @plain(
; CHECK:         @__scopealloc_tls_pool
; CHECK-NOT:     __msan_allocated_memory
; CHECK-NOT:     __scopealloc_note_frame
; CHECK:         ret void
define void @plain() {
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  ret void
}

declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)

; CHECK: declare void @__msan_allocated_memory(ptr, i64)
; CHECK: declare void @__scopealloc_note_frame(ptr, ptr)
