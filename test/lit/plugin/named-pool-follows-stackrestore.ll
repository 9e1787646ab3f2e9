; A dynamic allocation in a named pool is released at each llvm.stackrestore
; of the save taken before it (a VLA in a loop, MLIR's memref.alloca_scope),
; not only when the function returns: the pool's mark goes beside the
; stacksave and its release beside the stackrestore. Without that, a loop
; exhausts the pool.
; RUN: %opt %loadplugin -passes=scope-alloc -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc -disable-output -pass-remarks=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; CHECK-LABEL: define void @scope_in_loop(
; CHECK:       loop:
; CHECK:         %sp = call ptr @llvm.stacksave{{(\.p0)?}}()
; CHECK-NEXT:    %scopealloc.save.sram = call ptr @__scopealloc_pool_mark(ptr @__scopealloc_pool_sram)
; CHECK:         %t = call nonnull align 16 ptr @__scopealloc_pool_alloc(ptr @__scopealloc_pool_sram, i64 %bytes, i64 16)
; CHECK:         call void @__scopealloc_pool_release(ptr @__scopealloc_pool_sram, ptr %scopealloc.save.sram)
; CHECK-NEXT:    call void @llvm.stackrestore{{(\.p0)?}}(ptr %sp)
; CHECK:       exit:
; CHECK-NEXT:    call void @__scopealloc_pool_release(ptr @__scopealloc_pool_sram, ptr %scopealloc.mark.sram)
define void @scope_in_loop(i64 %n, i64 %bytes) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %sp = call ptr @llvm.stacksave()
  %t = alloca i8, i64 %bytes, align 16, !scope !0
  call void @use(ptr %t)
  call void @llvm.stackrestore(ptr %sp)
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; Two pools and the default pool in one scope: every pool is released at
; the restore, the newest mark first.
; CHECK-LABEL: define void @two_pools(
; CHECK:         %sp = call ptr @__scopealloc_mark()
; CHECK-NEXT:    %scopealloc.save.sram = call ptr @__scopealloc_pool_mark(ptr @__scopealloc_pool_sram)
; CHECK-NEXT:    %scopealloc.save.dma = call ptr @__scopealloc_pool_mark(ptr @__scopealloc_pool_dma)
; CHECK:         call void @__scopealloc_pool_release(ptr @__scopealloc_pool_dma, ptr %scopealloc.save.dma)
; CHECK-NEXT:    call void @__scopealloc_pool_release(ptr @__scopealloc_pool_sram, ptr %scopealloc.save.sram)
; CHECK-NEXT:    call void @__scopealloc_release(ptr %sp)
define void @two_pools(i64 %bytes) {
  %sp = call ptr @llvm.stacksave()
  %a = alloca i8, i64 %bytes, align 16, !scope !0
  %b = alloca i8, i64 %bytes, align 16, !scope !1
  %c = alloca i8, i64 %bytes, align 16
  call void @use(ptr %a)
  call void @use(ptr %b)
  call void @use(ptr %c)
  call void @llvm.stackrestore(ptr %sp)
  ret void
}

; A restore of a value that is not a stacksave's (here a phi of two saves):
; which marks it means is unknown, so the pool is released at return, and
; the remark says so.
; CHECK-LABEL: define void @restore_of_phi(
; CHECK-NOT:     scopealloc.save
; CHECK:         ret void
define void @restore_of_phi(i1 %c, i64 %bytes) {
entry:
  br i1 %c, label %a, label %b
a:
  %s1 = call ptr @llvm.stacksave()
  br label %join
b:
  %s2 = call ptr @llvm.stacksave()
  br label %join
join:
  %s = phi ptr [ %s1, %a ], [ %s2, %b ]
  %t = alloca i8, i64 %bytes, align 16, !scope !0
  call void @use(ptr %t)
  call void @llvm.stackrestore(ptr %s)
  ret void
}
!0 = !{!"global.sram"}
!1 = !{!"global.dma"}

; REMARK: '%t' in 'scope_in_loop' (dynamic size, align 16, scope 'global.sram') moved to pool 'sram': scope 'global.sram' requires pool 'sram' [rule scope-pool]
; REMARK: '%t' in 'restore_of_phi' (dynamic size, align 16, scope 'global.sram') moved to pool 'sram': scope 'global.sram' requires pool 'sram'; its memory is released when the function returns, not at llvm.stackrestore [rule scope-pool]

declare ptr @llvm.stacksave()
declare void @llvm.stackrestore(ptr)
