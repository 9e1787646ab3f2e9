; -scope-alloc-warn-pool-frame-larger-than=<bytes> is -Wframe-larger-than for
; the pools: a warning for each function whose pool frames (one bump per
; call and pool, as demotion laid them out) add up to more than <bytes>,
; naming the pools, the bytes, the limit and the function. Dynamically sized
; allocations are not counted (as -Wframe-larger-than leaves out VLAs), but
; the warning says how many there are. At or below the limit, no warning;
; without the option, none at all.
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -scope-alloc-dynamic=demote -scope-alloc-warn-pool-frame-larger-than=1024 -disable-output %s 2>&1 | FileCheck %s --implicit-check-not=warning:
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -scope-alloc-dynamic=demote -disable-output %s 2>&1 | count 0
; Limit 0: every function with a pool frame.
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -scope-alloc-dynamic=demote -scope-alloc-warn-pool-frame-larger-than=0 -disable-output %s 2>&1 | FileCheck %s --check-prefix=ZERO --implicit-check-not=warning:

; CHECK: warning: {{.*}}pool frame size in 'workspace' (1040) exceeds limit (1024) in function 'above'
; CHECK: warning: {{.*}}pool frame size in 'npu_sram' and 'workspace' (1088) exceeds limit (1024) in function 'two_pools'
; CHECK: warning: {{.*}}pool frame size in 'workspace' (not counting 1 dynamically sized allocation) (2048) exceeds limit (1024) in function 'dynamic_over'
; CHECK: warning: {{.*}}pool frame size in 'workspace' (not counting 2 dynamically sized allocations) (4096) exceeds limit (1024) in function 'two_dynamic_over'

; ZERO: warning: {{.*}} (1008) exceeds limit (0) in function 'below'
; ZERO: warning: {{.*}} (1024) exceeds limit (0) in function 'at_limit'
; ZERO: warning: {{.*}} (1040) exceeds limit (0) in function 'above'
; ZERO: warning: {{.*}} (1088) exceeds limit (0) in function 'two_pools'
; ZERO: warning: {{.*}} (2048) exceeds limit (0) in function 'dynamic_over'
; ZERO: warning: {{.*}} (4096) exceeds limit (0) in function 'two_dynamic_over'

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define void @below() {
  %a = alloca [1008 x i8], align 16
  call void @use(ptr %a)
  ret void
}

define void @at_limit() {
  %a = alloca [1000 x i8], align 16
  %b = alloca [24 x i8], align 8
  call void @use(ptr %a)
  call void @use(ptr %b)
  ret void
}

define void @above() {
  %a = alloca [1040 x i8], align 16
  call void @use(ptr %a)
  ret void
}

; 64 bytes in npu_sram and 1024 in the workspace: each pool at or below the
; limit, together above it.
define void @two_pools() {
  %tensor = alloca [64 x i8], align 16, !scope !0
  %big = alloca [1024 x i8], align 16
  call void @use(ptr %tensor)
  call void @use(ptr %big)
  ret void
}

define void @dynamic_over(i64 %n) {
  %a = alloca [2048 x i8], align 16
  %v = alloca i8, i64 %n, align 16
  call void @use(ptr %a)
  call void @use(ptr %v)
  ret void
}

define void @two_dynamic_over(i64 %n) {
  %a = alloca [4096 x i8], align 16
  %v = alloca i8, i64 %n, align 16
  %w = alloca i32, i64 %n, align 16
  call void @use(ptr %a)
  call void @use(ptr %v)
  call void @use(ptr %w)
  ret void
}

; Only an allocation of unknown size: no frame, no warning (the .pu file
; says "dynamic").
define void @dynamic_only(i64 %n) {
  %v = alloca i8, i64 %n, align 16
  call void @use(ptr %v)
  ret void
}

; Nothing leaves the stack.
define void @no_allocas() {
  ret void
}

!0 = !{!"global.npu_sram"}
