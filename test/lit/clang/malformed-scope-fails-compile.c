// A malformed scope stops a clang compile with an error that names the
// function and the value (the IR comes from a code generator).
// RUN: split-file %s %t
// RUN: not %clang %clangplugin -O2 -c %t/bad.ll -o %t/bad.o 2>&1 | FileCheck %s
// RUN: not test -e %t/bad.o

// CHECK: error: scope-alloc: in function 'kernel': malformed !scope metadata on '%tile': pool name 'workspace.l2' in scope 'global.workspace.l2' is not a C identifier
// CHECK: error: scope-alloc: in function 'kernel2': malformed !scope metadata on '%acc': the scope string is empty

//--- bad.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
declare void @use(ptr)
define void @kernel() {
  %tile = alloca [4096 x i8], !scope !0
  call void @use(ptr %tile)
  ret void
}
define void @kernel2() {
  %acc = alloca [4096 x i8], !scope !1
  call void @use(ptr %acc)
  ret void
}
!0 = !{!"global.workspace.l2"}
!1 = !{!""}
