; frame_bytes is the bump demotion made for the function's static frame:
; under a stack protector each demoted buffer is followed by its canary, so
; the frame is larger than the buffers and their padding. The report takes
; it from demotion's own layout, so it always equals the size in the IR.
; RUN: %opt %loadplugin -passes=scope-alloc -S -scope-alloc-inline-fast-path=false -scope-alloc-report=%t.json %s | FileCheck %s --check-prefix=IR
; RUN: python3 %S/Inputs/flatten.py %t.json | FileCheck %s
; RUN: python3 %S/Inputs/validate.py %srcroot/docs/report-schema.json %t.json

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr, ptr)

; %a at 0, its canary at 4096, %b at 4104, its canary at 6104: 6112 bytes.
; IR-LABEL: define void @protected(
; IR:         %scopealloc.frame = call {{.*}} @__scopealloc_alloc(i64 6112, i64 16)
; Without canaries: %a at 0, %b at 4096, 6096 bytes.
; IR-LABEL: define void @unprotected(
; IR:         %scopealloc.frame = call {{.*}} @__scopealloc_alloc(i64 6096, i64 16)

; CHECK: consistent
; CHECK: totals stack=0/0/0 workspace=12192/12208/4/0
; CHECK: function protected {{.*}} workspace=6096/6112/2/0
; CHECK: function unprotected {{.*}} workspace=6096/6096/2/0

define void @protected() sspstrong {
  %a = alloca [4096 x i8], align 16
  %b = alloca [2000 x i8], align 8
  call void @use(ptr %a, ptr %b)
  ret void
}

define void @unprotected() {
  %a = alloca [4096 x i8], align 16
  %b = alloca [2000 x i8], align 8
  call void @use(ptr %a, ptr %b)
  ret void
}
