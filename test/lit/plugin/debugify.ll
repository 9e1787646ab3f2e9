; Every instruction the rewrite creates or keeps has a debug location:
; debugify before the pass, check-debugify after it, no lost locations.
; RUN: %opt %loadplugin -passes='debugify,scope-alloc,check-debugify' -scope-alloc-max-stack-alloca=0 -disable-output %s 2>&1 | FileCheck %s

; CHECK-NOT: WARNING
; CHECK-NOT: ERROR
; CHECK: CheckModuleDebugify: PASS

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define i32 @f(i64 %n, i1 %c) {
entry:
  %a = alloca [64 x i8], align 8
  %b = alloca i64, align 8
  call void @use(ptr %a)
  call void @use(ptr %b)
  %sp = call ptr @llvm.stacksave()
  %v = alloca i32, i64 %n
  call void @use(ptr %v)
  call void @llvm.stackrestore(ptr %sp)
  br i1 %c, label %x, label %y
x:
  ret i32 0
y:
  ret i32 1
}

declare ptr @llvm.stacksave()
declare void @llvm.stackrestore(ptr)
