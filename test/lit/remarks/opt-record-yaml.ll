; opt -pass-remarks-output writes the same records as clang: every decision
; (passed and missed) with Alloca, Size, Align, Scope, Pool, Reason, Rule.
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc -disable-output %s \
; RUN:   -pass-remarks-output=%t.yaml -pass-remarks-filter=scope-alloc
; RUN: FileCheck %s --input-file=%t.yaml --implicit-check-not=Pass:

target datalayout = "e-m:e-i64:64-n8:16:32:64-S128-A5"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)
declare void @use5(ptr addrspace(5))

define void @f(i64 %n) {
  %big = alloca [4096 x i8], align 64
  %small = alloca [16 x i8], align 4
  %dma = alloca [64 x i8], align 8, !scope !0
  %far = alloca [2048 x i8], align 4, addrspace(5)
  %vla = alloca i8, i64 %n, align 16
  call void @use(ptr %big)
  call void @use(ptr %small)
  call void @use(ptr %dma)
  call void @use5(ptr addrspace(5) %far)
  call void @use(ptr %vla)
  ret void
}
!0 = !{!"global.npu_sram"}

; CHECK:      --- !Passed
; CHECK-NEXT: Pass:            scope-alloc
; CHECK-NEXT: Name:            Demoted
; CHECK-NEXT: Function:        f
; CHECK-NEXT: Args:
; CHECK-NEXT:   - String:          ''''
; CHECK-NEXT:   - Alloca:          '%big'
; CHECK-NEXT:   - String:          ''' in '''
; CHECK-NEXT:   - Function:        f
; CHECK-NEXT:   - String:          ''''
; CHECK-NEXT:   - String:          ' ('
; CHECK-NEXT:   - Size:            '4096'
; CHECK-NEXT:   - String:          ' bytes'
; CHECK-NEXT:   - String:          ', align '
; CHECK-NEXT:   - Align:           '64'
; CHECK-NEXT:   - String:          ', scope '
; CHECK-NEXT:   - Scope:           none
; CHECK-NEXT:   - String:          ') '
; CHECK-NEXT:   - String:          'moved to pool '''
; CHECK-NEXT:   - Pool:            workspace
; CHECK-NEXT:   - String:          ''''
; CHECK-NEXT:   - String:          ': '
; CHECK-NEXT:   - Reason:          '4096 bytes exceed the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU))'
; CHECK-NEXT:   - String:          ' [rule '
; CHECK-NEXT:   - Rule:            over-limit
; CHECK-NEXT:   - String:          ']'
; CHECK-NEXT: ...

; CHECK:      --- !Passed
; CHECK-NEXT: Pass:            scope-alloc
; CHECK-NEXT: Name:            KeptOnStack
; CHECK:        - Alloca:          '%small'
; CHECK:        - Size:            '16'
; CHECK:        - Align:           '4'
; CHECK:        - Rule:            within-limit

; CHECK:      --- !Passed
; CHECK-NEXT: Pass:            scope-alloc
; CHECK-NEXT: Name:            Demoted
; CHECK:        - Alloca:          '%dma'
; CHECK:        - Size:            '64'
; CHECK:        - Scope:           global.npu_sram
; CHECK:        - Pool:            npu_sram
; CHECK:        - Rule:            scope-pool

; CHECK:      --- !Missed
; CHECK-NEXT: Pass:            scope-alloc
; CHECK-NEXT: Name:            CannotMove
; CHECK:        - Alloca:          '%far'
; CHECK:        - Size:            '2048'
; CHECK:        - Reason:          'it is in address space 5, the workspace pools are in address space 0 (give the address space a scope to move it: -scope-alloc-address-space-scopes=5:<scope>)'
; CHECK:        - Rule:            cannot-move

; CHECK:      --- !Passed
; CHECK-NEXT: Pass:            scope-alloc
; CHECK-NEXT: Name:            Demoted
; CHECK:        - Alloca:          '%vla'
; CHECK-NOT:    - Size:
; CHECK:        - Rule:            dynamic-size
; CHECK-NEXT:   - String:          ']'
; CHECK-NEXT: ...
