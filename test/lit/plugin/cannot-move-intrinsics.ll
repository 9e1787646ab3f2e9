; Intrinsics whose operand the IR verifier requires to be an alloca pin it:
; a garbage-collector root (llvm.gcroot), the stack protector's slot
; (llvm.stackprotector), also through a pointer cast, and llvm.localescape.
; Each stays on the stack with a missed remark naming the intrinsic, and the
; module stays valid; other buffers of the same functions still move.
; RUN: %opt %loadplugin -passes='scope-alloc,verify' -scope-alloc-max-stack-alloca=0 -S %s \
; RUN:   -pass-remarks-missed=scope-alloc 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

; REMARK-DAG: '%root' in 'gc_root' (8 bytes, align 8, scope none) cannot leave the stack: it is a garbage-collector root (llvm.gcroot), which must be a stack slot [rule cannot-move]
; REMARK-DAG: '%guard' in 'stack_protector' (8 bytes, align 8, scope none) cannot leave the stack: it is the stack protector's slot (llvm.stackprotector) [rule cannot-move]
; REMARK-DAG: '%guard.as1' in 'stack_protector_cast' (8 bytes, align 8, scope none) cannot leave the stack: it is the stack protector's slot (llvm.stackprotector) [rule cannot-move]
; REMARK-DAG: '%escaped' in 'local_escape' (64 bytes, align 8, scope none) cannot leave the stack: it escapes through llvm.localescape [rule cannot-move]

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)
declare void @llvm.gcroot(ptr, ptr)
declare void @llvm.stackprotector(ptr, ptr)
declare ptr @llvm.stackguard()
declare void @llvm.localescape(...)

; CHECK-LABEL: define void @gc_root(
; CHECK:         %root = alloca ptr, align 8
; CHECK:         %buf = getelementptr inbounds i8, ptr %scopealloc.frame
; CHECK-NEXT:    call void @llvm.gcroot(ptr %root, ptr null)
define void @gc_root() gc "shadow-stack" {
  %root = alloca ptr, align 8
  %buf = alloca [4096 x i8], align 8
  call void @llvm.gcroot(ptr %root, ptr null)
  call void @use(ptr %root)
  call void @use(ptr %buf)
  ret void
}

; CHECK-LABEL: define void @stack_protector(
; CHECK:         %guard = alloca ptr, align 8
; CHECK:         call void @llvm.stackprotector(ptr %g, ptr %guard)
define void @stack_protector() {
  %guard = alloca ptr, align 8
  %g = call ptr @llvm.stackguard()
  call void @llvm.stackprotector(ptr %g, ptr %guard)
  ret void
}

; CHECK-LABEL: define void @stack_protector_cast(
; CHECK:         %guard.as1 = alloca ptr, align 8
; CHECK:         %cast = addrspacecast ptr %guard.as1 to ptr addrspace(1)
define void @stack_protector_cast() {
  %guard.as1 = alloca ptr, align 8
  %cast = addrspacecast ptr %guard.as1 to ptr addrspace(1)
  %back = addrspacecast ptr addrspace(1) %cast to ptr
  %g = call ptr @llvm.stackguard()
  call void @llvm.stackprotector(ptr %g, ptr %back)
  ret void
}

; CHECK-LABEL: define void @local_escape(
; CHECK:         %escaped = alloca [64 x i8], align 8
; CHECK:         call void (...) @llvm.localescape(ptr %escaped)
define void @local_escape() {
  %escaped = alloca [64 x i8], align 8
  call void (...) @llvm.localescape(ptr %escaped)
  ret void
}
