; -scope-alloc-facts-only writes the records and places nothing: for code
; that must not be rewritten, such as the runtime itself, whose calls a
; bound must still follow. Without it the buffer below is demoted.
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-facts-only \
; RUN:   -scope-alloc-max-stack-alloca=0 -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-facts \
; RUN:   -scope-alloc-max-stack-alloca=0 -S %s | FileCheck %s --check-prefix=PLACED

target datalayout = "e-m:e-p:32:32-Fi8-i64:64-v128:64:128-a:0:32-n32-S64"
target triple = "thumbv7em-none-unknown-eabi"

; CHECK-LABEL: define ptr @sa_grow(
; CHECK-NEXT: %scratch = alloca [64 x i8]
; CHECK-NEXT: call void asm sideeffect ".pushsection .scopealloc_facts,\22o\22,%progbits,sa_grow\0A.byte 83,65,70,82,1,4,0,0\0A.long {{[0-9]+}}\0A.long sa_grow\0A
; CHECK-NOT: __scopealloc
; CHECK: ret ptr

; PLACED-LABEL: define ptr @sa_grow(
; PLACED-NEXT: .pushsection .scopealloc_facts
; PLACED-NEXT: %scopealloc.cur = load ptr, ptr @__scopealloc_pool_workspace
; PLACED: call nonnull align 8 ptr @__scopealloc_alloc(
define ptr @sa_grow(i32 %size, i32 %align) {
  %scratch = alloca [64 x i8]
  call void @fill(ptr %scratch)
  ret ptr null
}
declare void @fill(ptr)
