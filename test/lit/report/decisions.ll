; LLVM 19 optimises the input differently (the report records other buffers).
; UNSUPPORTED: llvm-15, llvm-16
; -scope-alloc-report=<file> writes one JSON document for the module: per
; function the policy in force, the totals, and every allocation with its
; decision, pool, rule and the remark's reason. Totals add up (flatten.py
; checks them against the allocations before printing), and the document
; matches the shipped JSON Schema (docs/report-schema.json).
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc -disable-output -scope-alloc-report=%t.json %s 2>/dev/null
; RUN: python3 %S/Inputs/flatten.py %t.json | FileCheck %s
; RUN: python3 %S/Inputs/validate.py %srcroot/docs/report-schema.json %t.json
; RUN: FileCheck %s --check-prefix=JSON -DLLVM_MAJOR=%{llvm-major} < %t.json
; The report describes what the pass did: the same decisions with or without it.
; RUN: %opt %loadplugin -passes=scope-alloc -S %s | FileCheck %s --check-prefix=IR

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)
declare swiftcc void @may_fail(ptr swifterror)

; CHECK: consistent
; CHECK-NEXT: module decisions.ll schema=scopealloc-report version=1 triple=x86_64-unknown-linux-gnu complete=True
; CHECK-NEXT: seen=3 without=1 not_handled=0 failed={{$}}
; CHECK-NEXT: totals stack=2120/3/0 npu_sram=64/64/1/0 workspace=4112/4112/4/2

; CHECK-NEXT: function mixed demangled=mixed at=- stack=2120/3/0 npu_sram=64/64/1/0 workspace=4096/4096/3/2
; CHECK-NEXT:   policy max_stack_alloca=1024 (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU))
; CHECK-NEXT:   policy frame_budget=null (built-in default)
; CHECK-NEXT:   policy dynamic="demote" (built-in default)
; CHECK-NEXT:   policy pool="workspace" (built-in default)
; CHECK-NEXT:   policy stack_scope_over_budget="error" (built-in default)
; CHECK-NEXT:   alloc small ir=small at=- inlined_from=None size=64 align=16 static=True scope=None keep pool=None rule=within-limit
; CHECK-NEXT:     reason: 64 bytes are within the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU))
; CHECK-NEXT:   alloc big ir=big at=- inlined_from=None size=4096 align=16 static=True scope=None demote pool=workspace rule=over-limit
; CHECK-NEXT:     reason: 4096 bytes exceed the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU))
; CHECK-NEXT:   alloc tensor ir=tensor at=- inlined_from=None size=64 align=16 static=True scope=global.npu_sram demote pool=npu_sram rule=scope-pool
; CHECK-NEXT:     reason: scope 'global.npu_sram' requires pool 'npu_sram'
; CHECK-NEXT:   alloc pinned_local ir=pinned_local at=- inlined_from=None size=2048 align=8 static=True scope=local keep pool=None rule=scope-stack
; CHECK-NEXT:     reason: scope 'local' requires the stack, although its 2048 bytes exceed the limit 1024 bytes
; CHECK-NEXT:   alloc err ir=err at=- inlined_from=None size=8 align=8 static=True scope=None pinned pool=None rule=cannot-move
; CHECK-NEXT:     reason: swifterror slots must stay on the stack
; CHECK-NEXT:   alloc <unnamed> ir=None at=- inlined_from=None size=null align=16 static=False scope=None demote pool=workspace rule=dynamic-size
; CHECK-NEXT:     reason: its size is only known at run time; dynamic allocations: demote (built-in default)
; CHECK-NEXT:   alloc in_block ir=in_block at=- inlined_from=None size=8 align=8 static=False scope=None demote pool=workspace rule=with-dynamic
; CHECK-NEXT:     reason: 8 bytes are within the limit {{.*}}; moved anyway with the function's other dynamic allocations, so that llvm.stackrestore frees them together

; CHECK-NEXT: function attr demangled=attr at=- stack=0/0/0 workspace=16/16/1/0
; CHECK-NEXT:   policy max_stack_alloca=0 (function attribute "scope-alloc-max-stack-alloca")
; CHECK:        alloc tiny ir=tiny {{.*}} size=16 align=4 static=True scope=None demote pool=workspace rule=over-limit
; CHECK-NOT:  {{^}}function

; Fields are in a fixed order, schema and version first.
; JSON:      {
; JSON-NEXT:   "schema": "scopealloc-report",
; JSON-NEXT:   "version": 1,
; JSON-NEXT:   "producer": "ScopeAlloc (LLVM [[LLVM_MAJOR]].{{.*}})",
; JSON-NEXT:   "module": "{{.*}}decisions.ll",
; JSON-NEXT:   "source_file": "{{.*}}decisions.ll",
; JSON-NEXT:   "directory": "{{.+}}",
; JSON-NEXT:   "output": null,
; JSON-NEXT:   "target_triple": "x86_64-unknown-linux-gnu",
; JSON-NEXT:   "complete": true,
; JSON-NEXT:   "failed_functions": [],
; JSON-NEXT:   "functions_seen": 3,
; JSON-NEXT:   "functions_without_allocations": 1,
; JSON-NEXT:   "functions_not_handled": 0,
; JSON-NEXT:   "totals": {
; JSON:        "functions": [
; JSON-NEXT:     {
; JSON-NEXT:       "name": "mixed",
; JSON-NEXT:       "demangled": "mixed",
; JSON-NEXT:       "file": null,
; JSON-NEXT:       "line": null,
; JSON-NEXT:       "policy": {
; JSON-NEXT:         "max_stack_alloca": {
; JSON-NEXT:           "value": 1024,
; JSON-NEXT:           "source": "target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU)"
; JSON-NEXT:         },
; JSON:            "allocations": [
; JSON-NEXT:         {
; JSON-NEXT:           "name": "small",
; JSON-NEXT:           "ir_name": "small",
; JSON-NEXT:           "file": null,
; JSON-NEXT:           "line": null,
; JSON-NEXT:           "inlined_from": null,
; JSON-NEXT:           "size": 64,
; JSON-NEXT:           "align": 16,
; JSON-NEXT:           "static": true,
; JSON-NEXT:           "scope": null,
; JSON-NEXT:           "decision": "keep",
; JSON-NEXT:           "pool": null,
; JSON-NEXT:           "rule": "within-limit",
; JSON-NEXT:           "reason": "64 bytes are within the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU))"
; JSON-NEXT:         },

; IR-LABEL: define void @mixed(
; IR-NEXT:  entry:
; IR-NEXT:    %small = alloca [64 x i8]
; IR-NEXT:    %pinned_local = alloca [2048 x i8]
; IR-NEXT:    %err = alloca swifterror ptr
; IR-NOT:     alloca
; IR-LABEL: define void @attr(
; IR-NOT:     alloca
; IR:         ret void

define void @mixed(i64 %n) {
entry:
  %small = alloca [64 x i8], align 16
  %big = alloca [4096 x i8], align 16
  %tensor = alloca [64 x i8], align 16, !scope !0
  %pinned_local = alloca [2048 x i8], align 8, !scope !1
  %err = alloca swifterror ptr, align 8
  %0 = alloca i8, i64 %n, align 16
  call void @use(ptr %small)
  call void @use(ptr %big)
  call void @use(ptr %tensor)
  call void @use(ptr %pinned_local)
  call swiftcc void @may_fail(ptr swifterror %err)
  call void @use(ptr %0)
  br label %later
later:
  %in_block = alloca i64, align 8
  call void @use(ptr %in_block)
  ret void
}

define void @attr() "scope-alloc-max-stack-alloca"="0" {
  %tiny = alloca [4 x i32], align 4
  call void @use(ptr %tiny)
  ret void
}

define i32 @no_allocas(i32 %x) {
  ret i32 %x
}

!0 = !{!"global.npu_sram"}
!1 = !{!"local"}
