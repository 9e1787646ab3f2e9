; -scope-alloc-pool-usage=<file> writes what each function takes from each
; pool per call in the line format of clang's -fstack-usage (.su):
; <file>:<line>:<function> from the function's debug info (the module's name
; without it), the bytes of the pool's frame, "static", or "dynamic" when
; dynamically sized allocations come on top, and the pool as a fourth
; column. One line per function and pool; functions that take nothing from a
; pool are not listed. <dir>/ names the file as clang names a .su without
; -o: <dir>/<source stem>.pu.
; RUN: rm -rf %t && mkdir %t
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -scope-alloc-dynamic=demote -scope-alloc-pool-usage=%t/out.pu -disable-output %s
; RUN: FileCheck %s --match-full-lines --strict-whitespace < %t/out.pu
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -scope-alloc-dynamic=demote -scope-alloc-pool-usage=%t/dir/ -disable-output %s
; RUN: diff %t/out.pu %t/dir/unit.pu
; A module that takes nothing from the pools writes an empty file, so no
; stale lines stay behind.
; RUN: echo 'define void @f() { ret void }' > %t/empty.ll
; RUN: %opt %loadplugin -passes=scope-alloc -scope-alloc-pool-usage=%t/out.pu -disable-output %t/empty.ll
; RUN: count 0 < %t/out.pu
; A file that cannot be written is an error naming it.
; RUN: not %opt %loadplugin -passes=scope-alloc -scope-alloc-pool-usage=%t/missing/out.pu -disable-output %s 2>&1 | FileCheck %s --check-prefix=ERROR
; Without the option, no file.
; RUN: cd %t && rm -rf none && mkdir none && cd none && %opt %loadplugin -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -disable-output %s
; RUN: ls %t/none | count 0

; CHECK:unit.c:3:with_debug_info	4096	static	workspace
; CHECK-NEXT:{{.*}}pool-usage-file.ll:no_debug_info	1040	static	workspace
; CHECK-NEXT:{{.*}}pool-usage-file.ll:two_pools	64	static	npu_sram
; CHECK-NEXT:{{.*}}pool-usage-file.ll:two_pools	1024	static	workspace
; CHECK-NEXT:{{.*}}pool-usage-file.ll:with_dynamic	2048	dynamic	workspace
; CHECK-NEXT:{{.*}}pool-usage-file.ll:dynamic_only	0	dynamic	workspace
; CHECK-NOT:{{.}}

; ERROR: error: scope-alloc: cannot write the pool usage file '{{.*}}missing/out.pu': {{.*}}

source_filename = "src/unit.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define void @with_debug_info() !dbg !5 {
  %a = alloca [4096 x i8], align 16
  call void @use(ptr %a)
  ret void, !dbg !8
}

define void @no_debug_info() {
  %a = alloca [1040 x i8], align 16
  call void @use(ptr %a)
  ret void
}

define void @two_pools() {
  %tensor = alloca [64 x i8], align 16, !scope !9
  %big = alloca [1024 x i8], align 16
  call void @use(ptr %tensor)
  call void @use(ptr %big)
  ret void
}

define void @with_dynamic(i64 %n) {
  %a = alloca [2048 x i8], align 16
  %v = alloca i8, i64 %n, align 16
  call void @use(ptr %a)
  call void @use(ptr %v)
  ret void
}

define void @dynamic_only(i64 %n) {
  %v = alloca i8, i64 %n, align 16
  call void @use(ptr %v)
  ret void
}

define void @nothing_moves() {
  ret void
}

; Not emitted, so not in the .su file either.
define available_externally void @elsewhere() {
  %a = alloca [4096 x i8], align 16
  call void @use(ptr %a)
  ret void
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "unit.c", directory: "/src")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "with_debug_info", scope: !1, file: !1, line: 3, type: !6, scopeLine: 3, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !DILocation(line: 5, column: 1, scope: !5)
!9 = !{!"global.npu_sram"}
