; Code generators (MLIR's finalize-memref-to-llvm, TVM's CodeGenLLVM,
; Halide) emit the array-count form `alloca float, i64 N`. At -O2
; InstCombine rewrites it to `alloca [N x float]` without the metadata;
; the scope tracker puts the scope back, so the buffer lands in the pool its
; scope names, and a 'local' buffer stays on the stack, at every level.
; RUN: %opt %loadplugin -passes='default<O2>' -disable-output -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s
; RUN: %opt %loadplugin -passes='default<O3>' -disable-output -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s
; RUN: %opt %loadplugin -passes='default<O1>' -disable-output -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s
; RUN: %opt %loadplugin -passes='default<O0>' -disable-output -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s
; The pass alone after InstCombine and SROA (no pipeline start at all).
; RUN: %opt %loadplugin -passes='function(instcombine,sroa),scope-alloc' -disable-output -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; CHECK-DAG: '{{%tile[0-9]*}}' in 'tile' (65536 bytes, align 16, scope 'global.mlir_sram') moved to pool 'mlir_sram'
define float @tile(i64 %i) {
  %tile = alloca float, i64 16384, align 16, !scope !0
  %p = getelementptr float, ptr %tile, i64 %i
  store float 1.0, ptr %p
  call void @use(ptr %tile)
  %v = load float, ptr %tile
  ret float %v
}

; CHECK-DAG: '{{%acc[0-9]*}}' in 'acc' (4096 bytes, align 16, scope 'local') stays on the stack: scope 'local' requires the stack
define void @acc() {
  %acc = alloca i32, i64 1024, align 16, !scope !1
  call void @use(ptr %acc)
  ret void
}

; CHECK-DAG: '{{%ws[0-9]*}}' in 'ws' (64 bytes, align 8, scope 'global.workspace') moved to pool 'workspace'
define void @ws() {
  %ws = alloca double, i32 8, align 8, !scope !2
  call void @use(ptr %ws)
  ret void
}

!0 = !{!"global.mlir_sram"}
!1 = !{!"local"}
!2 = !{!"global.workspace"}
