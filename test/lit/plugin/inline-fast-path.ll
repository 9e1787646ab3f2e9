; The default pool's frame is bumped inline: one threadlocal pool, one check
; that the frame stays under the pool's high-water mark (a new peak goes to
; the runtime, which records it), a store of the new cur, the allocation
; counted, and a cold branch into the runtime; every demoted static alloca is an offset into
; the one frame, and allocas that stay on the stack stay in the entry block.
; RUN: %opt %loadplugin -passes='scope-alloc,verify' -S %s | FileCheck %s
; RUN: sed -e 's/^target datalayout.*/target datalayout = "e-m:e-p:32:32-i64:64-n32-S128"/' \
; RUN:     -e 's/x86_64-unknown-linux-gnu/i686-unknown-linux-gnu/' %s \
; RUN:   | %opt %loadplugin -passes='scope-alloc,verify' -S | FileCheck %s --check-prefix=I686
; RUN: %opt %loadplugin -passes='default<O2>' -S %s | FileCheck %s --check-prefix=O2

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; The layout of struct scopealloc_pool, ABI version 2.
; CHECK: %scopealloc.pool = type { ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, ptr, ptr }
; CHECK: @__scopealloc_tls_pool = external thread_local(initialexec) global %scopealloc.pool

; CHECK-LABEL: define i32 @two_buffers(
; CHECK:       entry:
; CHECK-NEXT:    %small = alloca [16 x i8], align 4
; CHECK-NEXT:    %scopealloc.pool = call ptr @llvm.threadlocal.address.p0(ptr @__scopealloc_tls_pool)
; CHECK-NEXT:    %scopealloc.cur = load atomic ptr, ptr %scopealloc.pool monotonic, align 8
; CHECK-NEXT:    [[HIGHP:%.*]] = getelementptr inbounds %scopealloc.pool, ptr %scopealloc.pool, i32 0, i32 2
; CHECK-NEXT:    %scopealloc.high = load atomic ptr, ptr [[HIGHP]] monotonic, align 8
; CHECK-NEXT:    [[UP:%.*]] = getelementptr i8, ptr %scopealloc.cur, i64 31
; CHECK-NEXT:    [[FRAME:%.*]] = call ptr @llvm.ptrmask.p0.i64(ptr [[UP]], i64 -32)
; CHECK-NEXT:    %scopealloc.end = getelementptr i8, ptr [[FRAME]], i64 6096
; CHECK-NEXT:    %scopealloc.fits = icmp ule ptr %scopealloc.end, %scopealloc.high
; CHECK-NEXT:    br i1 %scopealloc.fits, label %scopealloc.fast, label %scopealloc.slow, !prof [[LIKELY:![0-9]+]]
; CHECK:       scopealloc.fast:
; CHECK-NEXT:    store atomic ptr %scopealloc.end, ptr %scopealloc.pool monotonic, align 8
; CHECK-NEXT:    [[ALLOCSP:%.*]] = getelementptr inbounds %scopealloc.pool, ptr %scopealloc.pool, i32 0, i32 6
; CHECK-NEXT:    %scopealloc.allocs = load atomic i64, ptr [[ALLOCSP]] monotonic, align 8
; CHECK-NEXT:    [[MORE:%.*]] = add i64 %scopealloc.allocs, 1
; CHECK-NEXT:    store atomic i64 [[MORE]], ptr [[ALLOCSP]] monotonic, align 8
; CHECK-NEXT:    br label %scopealloc.frame.ready
; The slow path is one call that preserves almost every register.
; CHECK:       scopealloc.slow:
; CHECK-NEXT:    [[SLOW:%.*]] = call preserve_mostcc { ptr, ptr } @__scopealloc_frame_slow(i64 6096, i64 32)
; CHECK-NEXT:    [[SLOWMARK:%.*]] = extractvalue { ptr, ptr } [[SLOW]], 0
; CHECK-NEXT:    [[SLOWFRAME:%.*]] = extractvalue { ptr, ptr } [[SLOW]], 1
; CHECK-NEXT:    br label %scopealloc.frame.ready
; CHECK:       scopealloc.frame.ready:
; CHECK-NEXT:    %scopealloc.mark = phi ptr [ %scopealloc.cur, %scopealloc.fast ], [ [[SLOWMARK]], %scopealloc.slow ]
; CHECK-NEXT:    %scopealloc.frame = phi ptr [ [[FRAME]], %scopealloc.fast ], [ [[SLOWFRAME]], %scopealloc.slow ]
; CHECK-NEXT:    call void @llvm.assume(i1 true) [ "align"(ptr %scopealloc.frame, i64 32) ]
; CHECK-NEXT:    %big = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
; CHECK-NEXT:    %mid = getelementptr inbounds i8, ptr %scopealloc.frame, i64 4096
; CHECK:       a:
; CHECK-NEXT:    store atomic ptr %scopealloc.mark, ptr %scopealloc.pool monotonic, align 8
; CHECK-NEXT:    ret i32 1
; CHECK:       b:
; CHECK-NEXT:    store atomic ptr %scopealloc.mark, ptr %scopealloc.pool monotonic, align 8
; CHECK-NEXT:    ret i32 2
; CHECK: [[LIKELY]] = !{!"branch_weights", i32 {{[0-9]+}}, i32 1}

; 32-bit targets: 4-byte fields, `allocs` is not updated atomically (a
; 64-bit atomic would need a libcall), and preserve_most is not available, so
; the slow path is the two ordinary calls.
; I686-LABEL: define i32 @two_buffers(
; I686:         %scopealloc.cur = load atomic ptr, ptr %scopealloc.pool monotonic, align 4
; I686:         call ptr @llvm.ptrmask.p0.i32(ptr {{%.*}}, i32 -32)
; I686:       scopealloc.fast:
; I686:         %scopealloc.allocs = load i64, ptr {{%.*}}, align 8
; I686:         store i64 {{%.*}}, ptr {{%.*}}, align 8
; I686:       scopealloc.slow:
; I686-NEXT:    call ptr @__scopealloc_mark()
; I686-NEXT:    call nonnull align 32 ptr @__scopealloc_alloc(i32 6096, i32 32)

; After the O2 pipeline the fast path is still a single branch around the
; runtime calls, and no 2 KiB stack frame is left.
; O2-LABEL: define {{.*}} @two_buffers(
; O2-NOT:       alloca [4096
; O2:           %scopealloc.fits = icmp ule
; O2:           call preserve_mostcc { ptr, ptr } @__scopealloc_frame_slow(i64 6096, i64 32)
define i32 @two_buffers(i1 %c) {
entry:
  %big = alloca [4096 x i8], align 32
  call void @use(ptr %big)
  %small = alloca [16 x i8], align 4
  %mid = alloca [2000 x i8], align 8
  call void @use(ptr %small)
  call void @use(ptr %mid)
  br i1 %c, label %a, label %b
a:
  ret i32 1
b:
  ret i32 2
}
