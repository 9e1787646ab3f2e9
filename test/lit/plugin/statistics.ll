; -stats counts the decisions: demoted allocas, their bytes, dynamic ones,
; kept ones and the ones that cannot move.
; RUN: %opt %loadplugin -passes=scope-alloc -stats -disable-output %s 2>&1 | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc -disable-output %s 2>&1 | count 0

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define void @f(i64 %n) {
  %a = alloca [2000 x i8]
  %b = alloca [3000 x i8]
  %c = alloca [10 x i8]
  %d = alloca i8, i64 %n
  call void @use(ptr %a)
  call void @use(ptr %b)
  call void @use(ptr %c)
  call void @use(ptr %d)
  ret void
}

; CHECK: ===--- scope-alloc statistics ---===
; CHECK-NEXT: 3 scope-alloc - Allocas moved to a workspace pool
; CHECK-NEXT: 5000 scope-alloc - Bytes of constant-size allocas moved to a workspace pool
; CHECK-NEXT: 1 scope-alloc - Dynamically sized allocas moved to a workspace pool
; CHECK-NEXT: 1 scope-alloc - Allocas kept on the stack by policy or scope
; CHECK-NEXT: 0 scope-alloc - Allocas that cannot leave the stack
