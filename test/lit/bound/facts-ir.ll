; the checked IR is LLVM 19 output (attributes, the facts records of other functions).
; UNSUPPORTED: llvm-15, llvm-16
; -scope-alloc-facts: every function defined in the module gets one record,
; an inline-asm statement after its entry allocas that pushes section
; .scopealloc_facts linked to the function (SHF_LINK_ORDER, "o"), in its
; COMDAT group when it has one ("oG"). Declarations get none. Without the
; option there are none; running the pass again replaces them.
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-facts -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc -S %s | FileCheck %s --check-prefix=NONE
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-facts %s \
; RUN:   | %opt %loadplugin -passes=scope-alloc -scope-alloc-facts -S \
; RUN:   | FileCheck %s --check-prefix=ONCE
; The record is what code generation assembles: a non-allocated section.
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-facts %s \
; RUN:   | llc -O2 -function-sections -filetype=obj -o %t.o
; RUN: llvm-readelf -S -g %t.o | FileCheck %s --check-prefix=ELF

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

$inl = comdat any

declare void @use(ptr)

; CHECK-LABEL: define void @f(
; CHECK-NEXT: call void asm sideeffect ".pushsection .scopealloc_facts,\22o\22,%progbits,f\0A.byte 83,65,70,82,1,8,0,0\0A.long {{[0-9]+}}\0A.quad f\0A
; CHECK-NOT: .pushsection
; CHECK: ret void
define void @f() {
  %big = alloca [4096 x i8], align 16
  call void @use(ptr %big)
  call void @g()
  ret void
}

; CHECK-LABEL: define internal void @g(
; CHECK-NEXT: call void asm sideeffect ".pushsection .scopealloc_facts,\22o\22,%progbits,g\0A
define internal void @g() {
  ret void
}

; CHECK-LABEL: define linkonce_odr void @inl(
; CHECK-NEXT: call void asm sideeffect ".pushsection .scopealloc_facts,\22oG\22,%progbits,inl,inl,comdat\0A
define linkonce_odr void @inl() comdat {
  ret void
}

; '$' is doubled: inline asm reads '$' as an operand.
; CHECK-LABEL: define void @"odd$name"(
; CHECK-NEXT: %buf = alloca [16 x i8]
; CHECK-NEXT: call void asm sideeffect ".pushsection .scopealloc_facts,\22o\22,%progbits,odd$$name\0A
define void @"odd$name"() {
  %buf = alloca [16 x i8]
  call void @use(ptr %buf)
  ret void
}

; NONE-NOT: scopealloc_facts

; ONCE-LABEL: define void @f(
; ONCE: .pushsection .scopealloc_facts
; ONCE-NOT: .pushsection .scopealloc_facts
; ONCE: ret void

; ELF: .text.f
; ELF: .scopealloc_facts PROGBITS {{[0-9a-f]+}} {{[0-9a-f]+}} {{[0-9a-f]+}} 00 L
; ELF: .scopealloc_facts PROGBITS {{[0-9a-f]+}} {{[0-9a-f]+}} {{[0-9a-f]+}} 00 LG
; ELF: COMDAT group section {{.*}} [inl]
; ELF-NEXT: [Index] Name
; ELF-NEXT: .text.inl
; ELF-NEXT: .scopealloc_facts
