; LLVM 16 ignores nonlazybind on AArch64 (the call goes through the PLT).
; UNSUPPORTED: llvm-15, llvm-16
; The inline fast path's slow path is preserve_most: the caller keeps values
; in registers that an ordinary call would clobber. Against the shared
; runtime a call through a lazy PLT stub first runs glibc's lazy-binding
; resolver, which saves only the argument registers (r10/r11 on x86-64,
; x9-x15 on AArch64 were lost: the differential fuzzer's seed 12 crashed).
; The declaration is nonlazybind, so the call goes through the GOT.
; RUN: %opt %loadplugin -scope-alloc-slow-path=preserve-most -passes=scope-alloc -S %s | FileCheck %s --check-prefix=IR
; RUN: %opt %loadplugin -scope-alloc-slow-path=preserve-most -passes=scope-alloc %s | llc -O2 -relocation-model=pic \
; RUN:   | FileCheck %s --check-prefix=X64
; RUN: sed -e 's/^target datalayout.*//' -e 's/x86_64-unknown-linux-gnu/aarch64-unknown-linux-gnu/' %s \
; RUN:   | %opt %loadplugin -scope-alloc-slow-path=preserve-most -passes=scope-alloc | llc -O2 -relocation-model=pic \
; RUN:   | FileCheck %s --check-prefix=A64

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define void @big() {
entry:
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  ret void
}

; IR: declare preserve_mostcc { ptr, ptr } @__scopealloc_frame_slow(i64, i64) #[[ATTRS:[0-9]+]]
; IR: attributes #[[ATTRS]] = { {{.*}}nonlazybind{{.*}} }

; X64-LABEL: big:
; X64:       callq *__scopealloc_frame_slow@GOTPCREL(%rip)
; X64-NOT:   __scopealloc_frame_slow@PLT

; A64-LABEL: big:
; A64:       adrp [[R:x[0-9]+]], :got:__scopealloc_frame_slow
; A64:       ldr [[F:x[0-9]+]], [[[R]], :got_lo12:__scopealloc_frame_slow]
; A64:       blr [[F]]
