; Allocas that must not move stay, with a missed remark saying why:
; inalloca argument memory, swifterror slots, allocas outside address space 0.
; A pool scope that cannot be honoured for them is a warning.
; RUN: split-file %s %t
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -S %t/x86.ll 2>%t/x86.err | FileCheck %s --check-prefix=X86
; RUN: FileCheck %s --check-prefix=X86-WARN < %t/x86.err
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -disable-output -pass-remarks-missed=scope-alloc %t/x86.ll 2>&1 | FileCheck %s --check-prefix=X86-MISSED
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -disable-output -pass-remarks-missed=scope-alloc %t/as5.ll 2>&1 | FileCheck %s --check-prefix=AS5

; X86: %args = alloca inalloca <{ i32 }>
; X86: %err = alloca swifterror ptr
; X86: %ws_err = alloca swifterror ptr
; X86-WARN: warning: scope-alloc: in function 'f': '%ws_err' has scope 'global.workspace' but stays on the stack: swifterror slots must stay on the stack
; X86-MISSED: '%args' in 'f' (4 bytes, align 4, scope none) cannot leave the stack: inalloca argument memory is part of the call sequence [rule cannot-move]
; X86-MISSED: '%err' in 'f' (4 bytes, align 4, scope none) cannot leave the stack: swifterror slots must stay on the stack [rule cannot-move]
; AS5: '%buf' in 'g' (4096 bytes, align 4, scope none) cannot leave the stack: it is in address space 5, the workspace pools are in address space 0 (give the address space a scope to move it: -scope-alloc-address-space-scopes=5:<scope>) [rule cannot-move]

;--- x86.ll
target datalayout = "e-m:e-p:32:32-i64:64-f80:32-n8:16:32-a:0:32-S32"
target triple = "i686-pc-windows-msvc"
declare void @takes_inalloca(ptr inalloca(<{ i32 }>))
declare swiftcc void @may_fail(ptr swifterror)
define void @f() {
  %sp = call ptr @llvm.stacksave()
  %args = alloca inalloca <{ i32 }>
  call void @takes_inalloca(ptr inalloca(<{ i32 }>) %args)
  call void @llvm.stackrestore(ptr %sp)
  %err = alloca swifterror ptr
  call swiftcc void @may_fail(ptr swifterror %err)
  %ws_err = alloca swifterror ptr, !scope !0
  call swiftcc void @may_fail(ptr swifterror %ws_err)
  ret void
}
!0 = !{!"global.workspace"}

declare ptr @llvm.stacksave()
declare void @llvm.stackrestore(ptr)

;--- as5.ll
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128-A5"
target triple = "x86_64-unknown-linux-gnu"
declare void @use(ptr addrspace(5))
define void @g() {
  %buf = alloca [4096 x i8], align 4, addrspace(5)
  call void @use(ptr addrspace(5) %buf)
  ret void
}
