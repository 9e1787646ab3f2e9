; scope-alloc-promote runs at the start of the default pipelines at every
; level, before the first SROA, and at -O0 too.
; RUN: %opt %loadplugin -passes='default<O0>' -print-pipeline-passes -disable-output %s | tr ',' '\n' | FileCheck %s --check-prefix=O0
; RUN: %opt %loadplugin -passes='default<O2>' -print-pipeline-passes -disable-output %s | tr ',' '\n' | FileCheck %s --check-prefix=O2
; RUN: %opt %loadplugin -passes='default<O3>' -print-pipeline-passes -disable-output %s | tr ',' '\n' | FileCheck %s --check-prefix=O2
; RUN: %opt %loadplugin -passes='default<Oz>' -print-pipeline-passes -disable-output %s | tr ',' '\n' | FileCheck %s --check-prefix=O2

; O0:     function(scope-alloc-promote)
; O0:     always-inline
; O0:     {{^}}scope-alloc{{$}}

; O2-NOT: sroa
; O2:     function(scope-alloc-promote)
; O2:     sroa
; O2:     {{^}}scope-alloc{{$}}

; An optnone function is still handled at -O0.
; RUN: %opt %loadplugin -passes='default<O0>' -S %s | FileCheck %s --check-prefix=OPTNONE
; OPTNONE: %ws = alloca [16 x i8], align 64
; OPTNONE-NOT: @TVMBackendAllocWorkspace(

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @TVMBackendAllocWorkspace(i32, i32, i64, i32, i32)
declare i32 @TVMBackendFreeWorkspace(i32, i32, ptr)
declare void @use(ptr)

define void @f() noinline optnone {
  %ws = call ptr @TVMBackendAllocWorkspace(i32 1, i32 0, i64 16, i32 2, i32 32)
  call void @use(ptr %ws)
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr %ws)
  ret void
}
