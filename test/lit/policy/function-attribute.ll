; The string function attribute "scope-alloc-max-stack-alloca" overrides the
; limit for one function, over the command line too; a value that is not a
; byte count is an error naming the function.
; RUN: split-file %s %t
; RUN: %opt %loadplugin -scope-alloc-inline-fast-path=false -passes=scope-alloc -S %t/good.ll | FileCheck %s
; RUN: %opt %loadplugin -scope-alloc-inline-fast-path=false -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -S %t/good.ll | FileCheck %s --check-prefix=CL
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc -disable-output -pass-remarks=scope-alloc %t/good.ll 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: not %opt %loadplugin -passes=scope-alloc -disable-output %t/bad.ll 2>&1 | FileCheck %s --check-prefix=BAD

;--- good.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; CHECK-LABEL: define void @tight(
; CHECK: call nonnull align 4 ptr @__scopealloc_alloc(i64 64, i64 4)
; CL-LABEL: define void @tight(
; CL: call nonnull align 4 ptr @__scopealloc_alloc(i64 64, i64 4)
define void @tight() "scope-alloc-max-stack-alloca"="32" {
  %buf = alloca [64 x i8], align 4
  call void @use(ptr %buf)
  ret void
}

; CHECK-LABEL: define void @roomy(
; CHECK: %buf = alloca [65536 x i8]
; CL-LABEL: define void @roomy(
; CL-NEXT: %buf = alloca [65536 x i8]
; CL-NEXT: call void @use(ptr %buf)
; CL-NEXT: ret void
define void @roomy() "scope-alloc-max-stack-alloca"="65536" {
  %buf = alloca [65536 x i8], align 4
  call void @use(ptr %buf)
  ret void
}

; REMARK: '%buf' in 'tight' (64 bytes, align 4, scope none) moved to pool 'workspace': 64 bytes exceed the limit 32 bytes (function attribute "scope-alloc-max-stack-alloca") [rule over-limit]

; BAD: error: scope-alloc: in function 'bad': function attribute "scope-alloc-max-stack-alloca" must be a byte count, found "lots"

;--- bad.ll
define void @bad() "scope-alloc-max-stack-alloca"="lots" {
  %buf = alloca [64 x i8], align 4
  ret void
}
