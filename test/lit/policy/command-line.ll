; -scope-alloc-max-stack-alloca=<bytes> replaces the target default.
; RUN: %opt %loadplugin -passes=scope-alloc -S %s | FileCheck %s --check-prefix=DEFAULT
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -S %s | FileCheck %s --check-prefix=ZERO
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=8192 -S %s | FileCheck %s --check-prefix=BIG
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -disable-output \
; RUN:   -pass-remarks=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=REMARK

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define void @f() {
  %small = alloca i64, align 8
  %big = alloca [4096 x i8], align 8
  call void @use(ptr %small)
  call void @use(ptr %big)
  ret void
}

; DEFAULT: %small = alloca i64
; DEFAULT: call *__scopealloc_frame_thunk_regs@GOTPCREL(%rip){{.*}}(i64 4096, i64
; ZERO-NOT: alloca
; ZERO: call *__scopealloc_frame_thunk_regs@GOTPCREL(%rip){{.*}}(i64 4104, i64
; BIG: %small = alloca i64
; BIG: %big = alloca [4096 x i8]
; BIG-NOT: __scopealloc
; REMARK: '%small' in 'f' (8 bytes, align 8, scope none) moved to pool 'workspace': 8 bytes exceed the limit 0 bytes (-scope-alloc-max-stack-alloca) [rule over-limit]
