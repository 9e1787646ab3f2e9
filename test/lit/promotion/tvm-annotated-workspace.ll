; TVM's TIR `call_llvm_intrin("llvm.var.annotation", buf.data, "scope:...")`
; (scopealloc_tvm.annotate_scope) on a buffer TVM made a workspace call
; through its slot: the scope reaches the call, and the call becomes a
; buffer of the pool. (LLVM 15 names the intrinsic without the .p0.p0 of
; TVM's LLVM 22 output.)
; UNSUPPORTED: llvm-15
; RUN: %opt %loadplugin -passes='scope-alloc-source-scopes,function(scope-alloc-promote),scope-alloc' \
; RUN:   -S %s | FileCheck %s --check-prefix=ANNOT
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
@__TVMBackendAllocWorkspace = linkonce dllexport local_unnamed_addr global ptr null, align 8
@__TVMBackendFreeWorkspace = linkonce dllexport local_unnamed_addr global ptr null, align 8
@.scope = private constant [18 x i8] c"scope:global.sram\00"
@.tvm = private constant [4 x i8] c"tvm\00"
declare void @use(ptr)
declare void @llvm.var.annotation.p0.p0(ptr, ptr, ptr, i32, ptr)

; ANNOT-LABEL: define i32 @annotated(
; ANNOT:         call {{.*}}ptr @__scopealloc_pool_alloc(ptr @__scopealloc_pool_sram, i64 4096, i64 64)
; ANNOT-NOT:     __TVMBackend
; ANNOT:         ret i32
define i32 @annotated() {
entry:
  %0 = load ptr, ptr @__TVMBackendAllocWorkspace, align 8
  %big = call ptr %0(i32 1, i32 0, i64 4096, i32 2, i32 32)
  call void @llvm.var.annotation.p0.p0(ptr %big, ptr @.scope, ptr @.tvm, i32 0, ptr null)
  %1 = icmp eq ptr %big, null
  br i1 %1, label %fail, label %body
fail:
  ret i32 -1
body:
  call void @use(ptr %big)
  %2 = load ptr, ptr @__TVMBackendFreeWorkspace, align 8
  %3 = call i32 %2(i32 1, i32 0, ptr %big)
  ret i32 0
}
