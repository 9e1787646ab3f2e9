; The inline fast path declares the thread's pool initial-exec, so PIC code
; (a shared library) reads it at a fixed offset from the thread pointer
; instead of calling __tls_get_addr in every demoted frame;
; -scope-alloc-tls-model=global-dynamic is the fallback for a library
; dlopen'ed where static TLS is exhausted. A declaration the module already
; has keeps its model, whichever it is.
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -S %s | FileCheck %s --check-prefix=IE
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -scope-alloc-tls-model=initial-exec -S %s | FileCheck %s --check-prefix=IE
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -scope-alloc-tls-model=global-dynamic -S %s | FileCheck %s --check-prefix=GD
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 %s \
; RUN:   | llc -O2 -relocation-model=pic -o - | FileCheck %s --check-prefix=ASM-IE
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -scope-alloc-tls-model=global-dynamic %s \
; RUN:   | llc -O2 -relocation-model=pic -o - | FileCheck %s --check-prefix=ASM-GD
; RUN: sed 's/^;DECL: //' %s | %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -S \
; RUN:   | FileCheck %s --check-prefix=KEEP
; RUN: not %opt %loadplugin -passes=scope-alloc -scope-alloc-tls-model=local-exec -S %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=BAD

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; IE: @__scopealloc_tls_pool = external thread_local(initialexec) global %scopealloc.pool
; GD: @__scopealloc_tls_pool = external thread_local global %scopealloc.pool
; KEEP: @__scopealloc_tls_pool = external thread_local global %struct.scopealloc_pool

; ASM-IE-LABEL: frame:
; ASM-IE-NOT:   __tls_get_addr
; ASM-IE:       movq __scopealloc_tls_pool@GOTTPOFF(%rip)
; ASM-IE-NOT:   __tls_get_addr
; ASM-IE:       .cfi_endproc

; ASM-GD-LABEL: frame:
; ASM-GD:       __scopealloc_tls_pool@TLSGD
; ASM-GD:       call{{q?}} __tls_get_addr@PLT

; BAD: Cannot find option named 'local-exec'

;DECL: %struct.scopealloc_pool = type { ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, ptr, ptr }
;DECL: @__scopealloc_tls_pool = external thread_local global %struct.scopealloc_pool, align 8

declare void @use(ptr)

define void @frame() {
entry:
  %buf = alloca [64 x i8], align 16
  call void @use(ptr %buf)
  ret void
}

!llvm.module.flags = !{!0, !1}
!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{i32 7, !"PIE Level", i32 0}
