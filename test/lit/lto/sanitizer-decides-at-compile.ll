; AddressSanitizer (and MSan, HWASan, MTE stack tagging) instrument the
; allocas in the compile step, right after this pass: there the decisions
; stay at the compile step even under LTO, and the link leaves the
; functions alone (they carry "scope-alloc-decided"), so nothing is demoted
; twice or after instrumentation.
; RUN: %opt %loadplugin -passes='thinlto-pre-link<O2>' -scope-alloc-max-stack-alloca=0 -pass-remarks=scope-alloc %s -o %t.bc 2>&1 | FileCheck %s --check-prefix=COMPILE
; RUN: llvm-dis %t.bc -o - | FileCheck %s --check-prefix=DECIDED
; RUN: %opt %loadplugin -passes='thinlto<O2>' -pass-remarks=scope-alloc %t.bc -disable-output 2>&1 | count 0
; COMPILE: '%buf' in 'frame' (800 bytes, {{.*}}) moved to pool 'workspace'
; DECIDED-NOT: scopealloc.lto.deferred
; DECIDED-NOT: scope-alloc-compile-options
; DECIDED: attributes #{{[0-9]+}} = {{.*}}"scope-alloc-decided"

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define void @frame() sanitize_address {
  %buf = alloca [800 x i8], align 16
  call void @use(ptr %buf)
  ret void
}

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"EnableSplitLTOUnit", i32 0}
