; The records carry a declared recursion bound (attribute
; "scope-alloc-recursion-bound", from SCOPEALLOC_RECURSION_BOUND: field 10)
; and each constant-size allocation the pass left in the machine frame
; (field 11: bytes, alignment, name, line, and whether a stack scope pins
; it), which scopealloc-bound --suggest-policy weighs. Demoted buffers are
; not among them.
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-facts %s \
; RUN:   | llc -O2 -function-sections -filetype=obj -o %t.o
; RUN: %scopealloc-bound --dump-facts %t.o | FileCheck %s

; CHECK: function walk
; CHECK-NEXT: type: i32 (ptr, i32)
; CHECK-NEXT: flags: external
; CHECK-NEXT: recursion bound: 12 frames
; CHECK-NEXT: stack allocation: %path, 64 bytes, align 16
; CHECK-NEXT: stack allocation: %pinned, 128 bytes, align 4, stack scope
; CHECK-NEXT: pool workspace: 4096 bytes
; CHECK-NOT: stack allocation
; CHECK: call walk
; CHECK: function leaf
; CHECK-NEXT: type: void ()
; CHECK-NEXT: flags: external
; CHECK-NEXT: call use

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define i32 @walk(ptr %n, i32 %d) #0 {
  %path = alloca [64 x i8], align 16
  %pinned = alloca [32 x i32], align 4, !scope !0
  %big = alloca [4096 x i8], align 16
  call void @use(ptr %path)
  call void @use(ptr %pinned)
  call void @use(ptr %big)
  %c = icmp eq i32 %d, 0
  br i1 %c, label %done, label %more
more:
  %d1 = sub i32 %d, 1
  %r = call i32 @walk(ptr %n, i32 %d1)
  ret i32 %r
done:
  ret i32 0
}

define void @leaf() {
  call void @use(ptr null)
  ret void
}

attributes #0 = { "scope-alloc-recursion-bound"="12" }
!0 = !{!"global.stack"}
