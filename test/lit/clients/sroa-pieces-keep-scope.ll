; LLVM 16 SROA names and splits the pieces differently.
; UNSUPPORTED: llvm-15, llvm-16
; SROA splits an aggregate into new allocas that do not carry its metadata.
; Each piece that stays in memory keeps the buffer's scope: the pieces of a
; pool-scoped buffer go to the same pool, those of a 'local' one stay on the
; stack, and the pieces of an unscoped neighbour split in the same run stay
; unscoped (told apart by the memcpy each piece took over).
; Volatile copies keep the buffers in memory through -O2.
; RUN: %opt %loadplugin -passes='default<O2>' -disable-output -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s
; RUN: %opt %loadplugin -passes='function(sroa),scope-alloc' -disable-output -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc %s 2>&1 | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

@g1 = global [2048 x i8] zeroinitializer
@g2 = global [2048 x i8] zeroinitializer
@g3 = global [2048 x i8] zeroinitializer
@g4 = global [2048 x i8] zeroinitializer
%Pair = type { [2048 x i8], [2048 x i8] }

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; CHECK-DAG: '%s.sroa.0' in 'pool_pieces' (2048 bytes, align 16, scope 'global.sram') moved to pool 'sram'
; CHECK-DAG: '%s.sroa.{{[0-9]+}}' in 'pool_pieces' (2048 bytes, align 16, scope 'global.sram') moved to pool 'sram'
define void @pool_pieces() {
  %s = alloca %Pair, align 16, !scope !0
  %b = getelementptr %Pair, ptr %s, i32 0, i32 1
  call void @llvm.memcpy.p0.p0.i64(ptr %s, ptr @g1, i64 2048, i1 true)
  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr @g2, i64 2048, i1 true)
  call void @llvm.memcpy.p0.p0.i64(ptr @g2, ptr %s, i64 2048, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr @g1, ptr %b, i64 2048, i1 false)
  ret void
}

; CHECK-DAG: '%l.sroa.0' in 'neighbours' (2048 bytes, align 16, scope 'local') stays on the stack
; CHECK-DAG: '%l.sroa.{{[0-9]+}}' in 'neighbours' (2048 bytes, align 16, scope 'local') stays on the stack
; CHECK-DAG: '%u.sroa.0' in 'neighbours' (2048 bytes, align 16, scope none) moved to pool 'workspace'
; CHECK-DAG: '%u.sroa.{{[0-9]+}}' in 'neighbours' (2048 bytes, align 16, scope none) moved to pool 'workspace'
define void @neighbours() {
  %l = alloca %Pair, align 16, !scope !1
  %u = alloca %Pair, align 16
  %lb = getelementptr %Pair, ptr %l, i32 0, i32 1
  %ub = getelementptr %Pair, ptr %u, i32 0, i32 1
  call void @llvm.memcpy.p0.p0.i64(ptr %l, ptr @g1, i64 2048, i1 true)
  call void @llvm.memcpy.p0.p0.i64(ptr %lb, ptr @g2, i64 2048, i1 true)
  call void @llvm.memcpy.p0.p0.i64(ptr %u, ptr @g3, i64 2048, i1 true)
  call void @llvm.memcpy.p0.p0.i64(ptr %ub, ptr @g4, i64 2048, i1 true)
  call void @llvm.memcpy.p0.p0.i64(ptr @g2, ptr %l, i64 2048, i1 true)
  call void @llvm.memcpy.p0.p0.i64(ptr @g1, ptr %lb, i64 2048, i1 true)
  call void @llvm.memcpy.p0.p0.i64(ptr @g4, ptr %u, i64 2048, i1 true)
  call void @llvm.memcpy.p0.p0.i64(ptr @g3, ptr %ub, i64 2048, i1 true)
  ret void
}
!0 = !{!"global.sram"}
!1 = !{!"local"}
