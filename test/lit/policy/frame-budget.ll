; A frame budget bounds what the kept allocations add up to. Those that must
; stay count first; the others stay by benefit (memory accesses per byte),
; then size, then program order; the rest move with a remark naming the
; budget. A stack-scoped allocation that alone breaks the budget is an error,
; or a warning when the policy says so.
; RUN: split-file %s %t
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-frame-budget=600 -S %t/f.ll -o - 2>&1 | FileCheck %s
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc -scope-alloc-frame-budget=600 -disable-output -pass-remarks=scope-alloc %t/f.ll 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: not %opt %loadplugin -passes=scope-alloc -scope-alloc-frame-budget=600 -disable-output %t/local.ll 2>&1 | FileCheck %s --check-prefix=ERROR
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-policy=%t/warn.yaml -scope-alloc-target=t -disable-output %t/local.ll 2>&1 | FileCheck %s --check-prefix=WARN

;--- f.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; busy: 100 bytes, 4 accesses; table: 400 bytes, 1 access; pinned scope
; 'local' counts 200 first. Budget 600: local 200 + busy 100 = 300, table 400
; no longer fits.
; CHECK-LABEL: define void @f(
; CHECK-DAG:     %busy = alloca [100 x i8]
; CHECK-DAG:     %loc = alloca [200 x i8]
; CHECK-DAG:     %table = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
define void @f() {
  %table = alloca [400 x i8]
  %busy = alloca [100 x i8]
  %loc = alloca [200 x i8], !scope !0
  call void @use(ptr %table)
  store i8 1, ptr %busy
  store i8 2, ptr %busy
  %v = load i8, ptr %busy
  call void @use(ptr %busy)
  call void @use(ptr %loc)
  ret void
}
!0 = !{!"local"}

; REMARK: '%table' in 'f' (400 bytes, align 1, scope none) moved to pool 'workspace': 400 bytes are within the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU)), but the frame budget 600 bytes (command line) is spent on allocations that must stay or gain more from the stack (300 bytes kept) [rule over-budget]
; REMARK: '%busy' in 'f' (100 bytes, align 1, scope none) stays on the stack: 100 bytes are within the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU)); fits the frame budget 600 bytes (command line) [rule within-limit]

; ERROR: error: scope-alloc: in function 'g': '%big' (700 bytes) must stay on the stack because of scope 'global.stack', but alone exceeds the frame budget 600 bytes (command line) (policy key stack-scope-over-budget: error, built-in default)
; WARN: warning: scope-alloc: in function 'g': '%big' (700 bytes) must stay on the stack because of scope 'global.stack', but alone exceeds the frame budget 600 bytes (target 't' of policy file {{.*}}warn.yaml (-scope-alloc-target))

;--- local.ll
declare void @use(ptr)
define void @g() {
  %big = alloca [700 x i8], !scope !0
  call void @use(ptr %big)
  ret void
}
!0 = !{!"global.stack"}
;--- warn.yaml
version: 1
targets:
  t:
    frame-budget: 600
    stack-scope-over-budget: warn
