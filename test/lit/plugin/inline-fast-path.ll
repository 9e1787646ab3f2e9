; the checked x86-64 assembly is LLVM 19 code generation.
; UNSUPPORTED: llvm-15, llvm-16
; The default pool's frame is bumped inline: one threadlocal pool, one check
; that the frame stays under the pool's bound (its high-water mark, so a new
; peak goes to the runtime, which records it; NULL while the runtime counts
; every frame), a store of the new cur and a cold branch into the runtime;
; every demoted static alloca is an offset into the one frame, and allocas
; that stay on the stack stay in the entry block. The pool's top is always a
; multiple of 16: a frame aligned to at most 16 starts at cur, with no
; alignment step, and moves it by its size rounded up to 16. The frame is not
; counted inline unless -scope-alloc-count-inline-frames asks for it.
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -scope-alloc-slow-path=preserve-most -passes='scope-alloc,verify' -S %s | FileCheck %s --check-prefixes=CHECK,NOCOUNT
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -scope-alloc-slow-path=preserve-most -scope-alloc-count-inline-frames -passes='scope-alloc,verify' -S %s | FileCheck %s --check-prefixes=CHECK,COUNT
; RUN: sed -e 's/^target datalayout.*/target datalayout = "e-m:e-p:32:32-i64:64-n32-S128"/' \
; RUN:     -e 's/x86_64-unknown-linux-gnu/i686-unknown-linux-gnu/' %s \
; RUN:   | %opt %loadplugin -scope-alloc-fast-path=checked -scope-alloc-slow-path=preserve-most -scope-alloc-count-inline-frames -passes='scope-alloc,verify' -S | FileCheck %s --check-prefix=I686
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -scope-alloc-slow-path=preserve-most -passes='default<O2>' -S %s | FileCheck %s --check-prefix=O2
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -scope-alloc-slow-path=preserve-most -passes=scope-alloc %s | llc -O2 -o - | FileCheck %s --check-prefix=ASM

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; The layout of struct scopealloc_pool, ABI version 4: `bound` is field 4,
; `allocs` field 8.
; CHECK: %scopealloc.pool = type { ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, ptr, ptr }
; CHECK: @__scopealloc_tls_pool = external thread_local(initialexec) global %scopealloc.pool

; A frame aligned to 32 is aligned up from cur.
; CHECK-LABEL: define i32 @two_buffers(
; CHECK:       entry:
; CHECK-NEXT:    %small = alloca [16 x i8], align 4
; CHECK-NEXT:    %scopealloc.pool = call ptr @llvm.threadlocal.address.p0(ptr @__scopealloc_tls_pool)
; CHECK-NEXT:    %scopealloc.cur = load atomic ptr, ptr %scopealloc.pool unordered, align 8
; CHECK-NEXT:    [[BOUNDP:%.*]] = getelementptr inbounds{{( nuw)?}} %scopealloc.pool, ptr %scopealloc.pool, i32 0, i32 4
; CHECK-NEXT:    %scopealloc.bound = load atomic ptr, ptr [[BOUNDP]] unordered, align 8
; CHECK-NEXT:    [[UP:%.*]] = getelementptr i8, ptr %scopealloc.cur, i64 31
; CHECK-NEXT:    [[FRAME:%.*]] = call ptr @llvm.ptrmask.p0.i64(ptr [[UP]], i64 -32)
; CHECK-NEXT:    %scopealloc.end = getelementptr i8, ptr [[FRAME]], i64 6096
; CHECK-NEXT:    %scopealloc.fits = icmp ule ptr %scopealloc.end, %scopealloc.bound
; CHECK-NEXT:    br i1 %scopealloc.fits, label %scopealloc.fast, label %scopealloc.slow, !prof [[LIKELY:![0-9]+]]
; CHECK:       scopealloc.fast:
; CHECK-NEXT:    store atomic ptr %scopealloc.end, ptr %scopealloc.pool monotonic, align 8
; NOCOUNT-NEXT:  br label %scopealloc.frame.ready
; COUNT-NEXT:    [[ALLOCSP:%.*]] = getelementptr inbounds{{( nuw)?}} %scopealloc.pool, ptr %scopealloc.pool, i32 0, i32 8
; COUNT-NEXT:    %scopealloc.allocs = load atomic i64, ptr [[ALLOCSP]] unordered, align 8
; COUNT-NEXT:    [[MORE:%.*]] = add i64 %scopealloc.allocs, 1
; COUNT-NEXT:    store atomic i64 [[MORE]], ptr [[ALLOCSP]] monotonic, align 8
; COUNT-NEXT:    br label %scopealloc.frame.ready
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

; A frame aligned to at most 16 starts at cur; the top moves by 1504 (1500
; rounded up to 16), the slow path gets the frame as it is. Aligned to at
; most 8, the frame is its own mark: the slow path's one value is both.
; CHECK-LABEL: define void @granule_aligned(
; CHECK:         %scopealloc.cur = load atomic ptr, ptr %scopealloc.pool unordered, align 8
; CHECK-NEXT:    [[BOUNDP:%.*]] = getelementptr inbounds{{( nuw)?}} %scopealloc.pool, ptr %scopealloc.pool, i32 0, i32 4
; CHECK-NEXT:    %scopealloc.bound = load atomic ptr, ptr [[BOUNDP]] unordered, align 8
; CHECK-NEXT:    %scopealloc.end = getelementptr i8, ptr %scopealloc.cur, i64 1504
; CHECK-NEXT:    %scopealloc.fits = icmp ule ptr %scopealloc.end, %scopealloc.bound
; CHECK:       scopealloc.slow:
; CHECK-NEXT:    [[SLOW8:%.*]] = call preserve_mostcc { ptr, ptr } @__scopealloc_frame_slow(i64 1500, i64 8)
; CHECK-NEXT:    [[FRAME8:%.*]] = extractvalue { ptr, ptr } [[SLOW8]], 1
; CHECK-NEXT:    br label %scopealloc.frame.ready
; CHECK:       scopealloc.frame.ready:
; CHECK-NEXT:    %scopealloc.mark = phi ptr [ %scopealloc.cur, %scopealloc.fast ], [ [[FRAME8]], %scopealloc.slow ]
; CHECK-NEXT:    %scopealloc.frame = phi ptr [ %scopealloc.cur, %scopealloc.fast ], [ [[FRAME8]], %scopealloc.slow ]
; CHECK: [[LIKELY]] = !{!"branch_weights", i32 {{[0-9]+}}, i32 1}

; 32-bit targets: 4-byte fields, `allocs` (when counted) is not updated
; atomically (a 64-bit atomic would need a libcall), and preserve_most is not
; available, so the slow path is the two ordinary calls.
; I686-LABEL: define i32 @two_buffers(
; I686:         %scopealloc.cur = load atomic ptr, ptr %scopealloc.pool unordered, align 4
; I686:         %scopealloc.bound = load atomic ptr, ptr {{%.*}} unordered, align 4
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

; On x86-64 a granule-aligned frame is a load, an add, a compare with the
; bound in memory (the unordered load folds into it) and a store: no
; alignment, no counter.
; ASM-LABEL: granule_aligned:
; ASM:         movq %fs:(%[[P:[a-z0-9]+]]), %[[CUR:[a-z0-9]+]]
; ASM-NEXT:    leaq 1504(%[[CUR]]), %[[END:[a-z0-9]+]]
; ASM-NEXT:    cmpq %fs:32(%[[P]]), %[[END]]
; ASM-NEXT:    ja
; ASM-NEXT:  # %bb.
; ASM-NEXT:    movq %[[END]], %fs:(%[[P]])
; ASM-NOT:     {{and|inc|add}}q
; ASM:         callq use
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

define void @granule_aligned() {
entry:
  %buf = alloca [1500 x i8], align 8
  call void @use(ptr %buf)
  ret void
}
