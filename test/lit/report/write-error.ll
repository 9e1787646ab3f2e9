; A report that cannot be written is an error naming the file (the compile
; fails, as for any output file); nothing half-written is left behind.
; RUN: rm -rf %t.missing %t.file && touch %t.file
; RUN: not %opt %loadplugin -passes=scope-alloc -disable-output -scope-alloc-report=%t.missing/sub/r.json %s 2>&1 | FileCheck %s --check-prefix=FILE -DPATH=%t.missing/sub/r.json
; RUN: not ls %t.missing
; RUN: not %opt %loadplugin -passes=scope-alloc -disable-output -scope-alloc-report=%t.file/ %s 2>&1 | FileCheck %s --check-prefix=DIR -DPATH=%t.file/

; FILE: error: scope-alloc: cannot write the report '[[PATH]]': No such file or directory
; DIR: error: scope-alloc: cannot create a report file in '[[PATH]]': Not a directory

target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define void @f() {
  %buf = alloca [4096 x i8]
  call void @use(ptr %buf)
  ret void
}
