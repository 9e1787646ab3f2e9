; An allocation above the target's limit moves to the default workspace pool;
; one at or below it stays. All demoted entry allocas share one frame: one
; mark, one bump, one release before the return.
; RUN: %opt %loadplugin -scope-alloc-inline-fast-path=false -passes=scope-alloc -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes=scope-alloc -disable-output \
; RUN:   -pass-remarks=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: %opt %loadplugin -passes=scope-alloc -disable-output -scope-alloc-remark-sources \
; RUN:   -pass-remarks=scope-alloc %s 2>&1 | FileCheck %s --check-prefix=SOURCES

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; CHECK-LABEL: define void @f(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %at_limit = alloca [1024 x i8], align 16
; CHECK-NEXT:    %scopealloc.mark = call ptr @__scopealloc_mark()
; CHECK-NEXT:    %scopealloc.frame = call nonnull align 32 ptr @__scopealloc_alloc(i64 3073, i64 32)
; CHECK-NEXT:    %bigger = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
; CHECK-NEXT:    %big = getelementptr inbounds i8, ptr %scopealloc.frame, i64 2048
; CHECK-NOT:     alloca
; CHECK:         call void @use(ptr %big)
; CHECK:         call void @use(ptr %bigger)
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    ret void
define void @f() {
entry:
  %at_limit = alloca [1024 x i8], align 16
  %big = alloca [1025 x i8], align 16
  %bigger = alloca [2048 x i8], align 32
  call void @use(ptr %at_limit)
  call void @use(ptr %big)
  call void @use(ptr %bigger)
  ret void
}

; CHECK: declare ptr @__scopealloc_mark() #[[NOUNWIND:[0-9]+]]
; CHECK: declare ptr @__scopealloc_alloc(i64, i64) #[[NOUNWIND]]
; CHECK: declare void @__scopealloc_release(ptr) #[[NOUNWIND]]
; CHECK: attributes #[[NOUNWIND]] = { nounwind }

; Remarks cite the values; where they came from is under the option.
; REMARK: remark: <unknown>:0:0: '%at_limit' in 'f' (1024 bytes, align 16, scope none) stays on the stack: 1024 bytes are within the limit 1024 bytes [rule within-limit]
; REMARK: remark: <unknown>:0:0: '%big' in 'f' (1025 bytes, align 16, scope none) moved to pool 'workspace': 1025 bytes exceed the limit 1024 bytes [rule over-limit]
; REMARK: remark: <unknown>:0:0: '%bigger' in 'f' (2048 bytes, align 32, scope none) moved to pool 'workspace': 2048 bytes exceed the limit 1024 bytes [rule over-limit]
; SOURCES: remark: <unknown>:0:0: '%at_limit' in 'f' (1024 bytes, align 16, scope none) stays on the stack: 1024 bytes are within the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU)) [rule within-limit]
; SOURCES: remark: <unknown>:0:0: '%big' in 'f' (1025 bytes, align 16, scope none) moved to pool 'workspace': 1025 bytes exceed the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU)) [rule over-limit]

