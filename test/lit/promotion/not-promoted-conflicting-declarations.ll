; Workspace calls whose declarations or operands an alloca could not honour
; are left alone with a missed remark, never rewritten into invalid IR: a
; result in another address space than the stack's (also when the data
; layout puts allocas in address space 5), an alignment above the largest an
; alloca may have, operands wider than 64 bits, a __scopealloc_alloc
; declared with another type than the runtime's.
; RUN: split-file %s %t
; RUN: %opt %loadplugin -passes='scope-alloc-promote,verify' -S %t/align.ll -pass-remarks-missed=scope-alloc 2>&1 | FileCheck %s --check-prefix=ALIGN
; RUN: %opt %loadplugin -passes='scope-alloc-promote,verify' -S %t/as1.ll -pass-remarks-missed=scope-alloc 2>&1 | FileCheck %s --check-prefix=AS1
; RUN: %opt %loadplugin -passes='scope-alloc-promote,verify' -S %t/as5.ll -pass-remarks-missed=scope-alloc 2>&1 | FileCheck %s --check-prefix=AS5
; RUN: %opt %loadplugin -passes='scope-alloc-promote,verify' -S %t/abi-type.ll -pass-remarks-missed=scope-alloc 2>&1 | FileCheck %s --check-prefix=ABITYPE
; RUN: %opt %loadplugin -passes='scope-alloc-promote,verify' -S %t/tvm-as1.ll -pass-remarks-missed=scope-alloc 2>&1 | FileCheck %s --check-prefix=TVMAS1
; RUN: %opt %loadplugin -passes='scope-alloc-promote,verify' -S %t/tvm-wide.ll -pass-remarks-missed=scope-alloc 2>&1 | FileCheck %s --check-prefix=TVMWIDE

; ALIGN: workspace call '%huge' in '{{[^']*}}' (__scopealloc_alloc, scope none) not promoted: its alignment 8589934592 exceeds the largest an alloca may have (4294967296)
; ALIGN-NOT: alloca [
; AS1: workspace call '%p' in '{{[^']*}}' (__scopealloc_alloc, scope none) not promoted: it returns 'ptr addrspace(1)', not a pointer to the stack (address space 0)
; AS1-NOT: alloca [
; AS5: workspace call '%p' in '{{[^']*}}' (__scopealloc_alloc, scope none) not promoted: it returns 'ptr', not a pointer to the stack (address space 5)
; AS5-NOT: alloca [
; ABITYPE: workspace call '%p' in '{{[^']*}}' (__scopealloc_alloc, scope none) not promoted: __scopealloc_alloc is declared with another type than the runtime's
; ABITYPE-NOT: alloca [
; TVMAS1: workspace call '%tvm' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) not promoted: it returns 'ptr addrspace(1)', not a pointer to the stack (address space 0)
; TVMAS1-NOT: alloca [
; TVMWIDE: workspace call '%dev' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) not promoted: its device type is not the CPU (kDLCPU = 1)
; TVMWIDE: workspace call '%size' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) not promoted: its size does not fit in 64 bits
; TVMWIDE-NOT: alloca [

;--- align.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
declare void @use(ptr)
declare ptr @__scopealloc_mark()
declare void @__scopealloc_release(ptr)
declare ptr @__scopealloc_alloc(i64, i64)
define void @huge_alignment() {
  %m = call ptr @__scopealloc_mark()
  %huge = call ptr @__scopealloc_alloc(i64 64, i64 8589934592)
  call void @use(ptr %huge)
  call void @__scopealloc_release(ptr %m)
  ret void
}

;--- as1.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
declare void @use(ptr addrspace(1))
declare ptr @__scopealloc_mark()
declare void @__scopealloc_release(ptr)
declare ptr addrspace(1) @__scopealloc_alloc(i64, i64)
define void @f() {
  %m = call ptr @__scopealloc_mark()
  %p = call ptr addrspace(1) @__scopealloc_alloc(i64 64, i64 16)
  call void @use(ptr addrspace(1) %p)
  call void @__scopealloc_release(ptr %m)
  ret void
}

;--- as5.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128-A5"
target triple = "x86_64-unknown-linux-gnu"
declare void @use(ptr)
declare ptr @__scopealloc_mark()
declare ptr @__scopealloc_alloc(i64, i64)
declare void @__scopealloc_release(ptr)
define void @f() {
  %m = call ptr @__scopealloc_mark()
  %p = call ptr @__scopealloc_alloc(i64 64, i64 16)
  call void @use(ptr %p)
  call void @__scopealloc_release(ptr %m)
  ret void
}

;--- abi-type.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
declare void @use(ptr)
declare ptr @__scopealloc_mark()
declare ptr @__scopealloc_alloc(i128, i128)
declare void @__scopealloc_release(ptr)
define void @f() {
  %m = call ptr @__scopealloc_mark()
  %p = call ptr @__scopealloc_alloc(i128 64, i128 16)
  call void @use(ptr %p)
  call void @__scopealloc_release(ptr %m)
  ret void
}

;--- tvm-as1.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
declare void @use(ptr addrspace(1))
declare ptr addrspace(1) @TVMBackendAllocWorkspace(i32, i32, i64, i32, i32)
declare i32 @TVMBackendFreeWorkspace(i32, i32, ptr addrspace(1))
define void @f() {
  %tvm = call ptr addrspace(1) @TVMBackendAllocWorkspace(i32 1, i32 0, i64 64, i32 2, i32 8)
  call void @use(ptr addrspace(1) %tvm)
  %r = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, ptr addrspace(1) %tvm)
  ret void
}

;--- tvm-wide.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
declare void @use(ptr)
declare ptr @TVMBackendAllocWorkspace(i128, i32, i128, i32, i32)
declare i32 @TVMBackendFreeWorkspace(i128, i32, ptr)
; Device 2^64 + 1 is not kDLCPU (its low 64 bits are 1).
define void @wide_device() {
  %dev = call ptr @TVMBackendAllocWorkspace(i128 18446744073709551617, i32 0, i128 64, i32 2, i32 8)
  call void @use(ptr %dev)
  %r = call i32 @TVMBackendFreeWorkspace(i128 18446744073709551617, i32 0, ptr %dev)
  ret void
}
; A size of 2^64 + 64 bytes does not fit size_t.
define void @wide_size() {
  %size = call ptr @TVMBackendAllocWorkspace(i128 1, i32 0, i128 18446744073709551680, i32 2, i32 8)
  call void @use(ptr %size)
  %r = call i32 @TVMBackendFreeWorkspace(i128 1, i32 0, ptr %size)
  ret void
}
