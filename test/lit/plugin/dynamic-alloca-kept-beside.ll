; When a dynamic alloca must stay on the machine stack (here: scope
; 'local'), stacksave/stackrestore keep their meaning for the stack, and the demoted
; dynamic alloca is released at return; the remark says so. Dynamic allocas
; in a named pool are likewise released at return.
; RUN: %opt %loadplugin -passes=scope-alloc -S %s | FileCheck %s
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc -disable-output -pass-remarks=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; CHECK-LABEL: define void @mixed(
; CHECK:         %sp = call ptr @llvm.stacksave{{(\.p0)?}}()
; CHECK:         %kept = alloca i8, i64 %n, align 1, !scope
; CHECK:         %moved = call nonnull align 1 ptr @__scopealloc_alloc(
; CHECK:         call void @llvm.stackrestore{{(\.p0)?}}(ptr %sp)
; CHECK:         call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    ret void
define void @mixed(i64 %n) {
  %sp = call ptr @llvm.stacksave()
  %kept = alloca i8, i64 %n, !scope !1
  %moved = alloca i8, i64 %n
  call void @use(ptr %kept)
  call void @use(ptr %moved)
  call void @llvm.stackrestore(ptr %sp)
  ret void
}

; CHECK-LABEL: define void @pool_vla(
; CHECK:         %t = call nonnull align 1 ptr @__scopealloc_pool_alloc(ptr @__scopealloc_pool_sram,
; CHECK:         call void @__scopealloc_pool_release(ptr @__scopealloc_pool_sram, ptr %scopealloc.mark.sram)
define void @pool_vla(i64 %n) {
  %t = alloca i8, i64 %n, !scope !0
  call void @use(ptr %t)
  ret void
}
!0 = !{!"global.sram"}
!1 = !{!"local"}

; REMARK: '%moved' in 'mixed' (dynamic size, align 1, scope none) moved to pool 'workspace': its size is only known at run time; dynamic allocations: demote (built-in default); its memory is released when the function returns, not at llvm.stackrestore [rule dynamic-size]
; REMARK: '%t' in 'pool_vla' (dynamic size, align 1, scope 'global.sram') moved to pool 'sram': scope 'global.sram' requires pool 'sram'; its memory is released when the function returns, not at llvm.stackrestore [rule scope-pool]

declare ptr @llvm.stacksave()
declare void @llvm.stackrestore(ptr)
