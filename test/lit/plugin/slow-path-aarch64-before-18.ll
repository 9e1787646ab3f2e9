; Before LLVM 18 the AArch64 back end ignores nonlazybind: a preserve_most
; call into the shared runtime could go through a lazy PLT stub, whose
; resolver clobbers x9-x15. A plugin built against such an LLVM gives the
; AArch64 slow path the standard convention (__scopealloc_mark and
; __scopealloc_alloc, ordinary calls); x86-64 keeps its asm call of the
; thunk (frameless).
; REQUIRES: llvm-15 || llvm-16
; RUN: sed -e 's/^target datalayout.*//' -e 's/x86_64-unknown-linux-gnu/aarch64-unknown-linux-gnu/' %s \
; RUN:   | %opt %loadplugin -passes=scope-alloc -S | FileCheck %s --check-prefix=A64
; RUN: %opt %loadplugin -passes=scope-alloc -S %s | FileCheck %s --check-prefix=X64

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define void @big() {
entry:
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  ret void
}

; A64-NOT: __scopealloc_frame_slow
; A64: @__scopealloc_mark()
; A64: @__scopealloc_alloc(i64 4096
; A64-NOT: __scopealloc_frame_slow
; X64: call *__scopealloc_frame_thunk_regs@GOTPCREL(%rip)
