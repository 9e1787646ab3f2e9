; The plugin adds scope-alloc to the default pipelines at every level, after
; the last SROA and inlining, and -O0 included.
; RUN: %opt %loadplugin -passes='default<O0>' -print-pipeline-passes -disable-output %s | tr ',' '\n' | FileCheck %s --check-prefix=O0
; RUN: %opt %loadplugin -passes='default<O2>' -print-pipeline-passes -disable-output %s | tr ',' '\n' | FileCheck %s --check-prefix=O2
; RUN: %opt %loadplugin -passes='default<O3>' -print-pipeline-passes -disable-output %s | tr ',' '\n' | FileCheck %s --check-prefix=O2
; RUN: %opt %loadplugin -passes='default<Oz>' -print-pipeline-passes -disable-output %s | tr ',' '\n' | FileCheck %s --check-prefix=O2

; O0: always-inline
; O0: scope-alloc

; O2: inline
; O2: sroa
; O2: sroa
; O2: instcombine
; O2: scope-alloc
; O2-NOT: sroa
; O2-NOT: inline

; An optnone function is still rewritten by the O0 pipeline.
; RUN: %opt %loadplugin -scope-alloc-inline-fast-path=false -passes='default<O0>' -S %s | FileCheck %s --check-prefix=OPTNONE
; OPTNONE: call nonnull align 1 ptr @__scopealloc_alloc(i64 5000, i64 1)

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define void @f() noinline optnone {
  %buf = alloca [5000 x i8]
  call void @use(ptr %buf)
  ret void
}
