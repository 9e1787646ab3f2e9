; -scope-alloc-report=<dir>/ (or an existing directory) makes a new file per
; module in it, <source stem>-<8 random hex digits>.json, so one option can
; serve every compile of a build; the directory is created when missing.
; RUN: rm -rf %t.dir
; RUN: %opt %loadplugin -passes=scope-alloc -disable-output -scope-alloc-report=%t.dir/ %s
; RUN: %opt %loadplugin -passes=scope-alloc -disable-output -scope-alloc-report=%t.dir %s
; RUN: ls %t.dir | FileCheck %s --check-prefix=FILES
; RUN: ls %t.dir | count 2
; RUN: cat %t.dir/*.json | FileCheck %s

; FILES: directory-{{[0-9a-f]+}}.json
; FILES: directory-{{[0-9a-f]+}}.json

; CHECK-COUNT-2: "schema": "scopealloc-report",

; A plain file name is overwritten by the next module that names it.
; RUN: %opt %loadplugin -passes=scope-alloc -disable-output -scope-alloc-report=%t.one.json %s
; RUN: %opt %loadplugin -passes=scope-alloc -disable-output -scope-alloc-max-stack-alloca=0 -scope-alloc-report=%t.one.json %s
; RUN: FileCheck %s --check-prefix=LAST < %t.one.json
; LAST: "decision": "demote"

target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define void @f() {
  %buf = alloca [64 x i8]
  call void @use(ptr %buf)
  ret void
}
