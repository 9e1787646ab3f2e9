; A module compiled for LTO (clang -flto or -flto=thin sets module flag
; EnableSplitLTOUnit) gets no records before the link: cross-module
; inlining would copy them into callers, and the link would reject one that
; names a function inlined away.
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-facts -S %s | FileCheck %s
; RUN: sed -e '/EnableSplitLTOUnit/d' -e 's/^!llvm.module.flags.*//' %s \
; RUN:   | %opt %loadplugin -passes=scope-alloc -scope-alloc-facts -S \
; RUN:   | FileCheck %s --check-prefix=NOLTO

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; CHECK-NOT: scopealloc_facts
; NOLTO: .pushsection .scopealloc_facts
define void @f() {
  ret void
}

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"EnableSplitLTOUnit", i32 1}
