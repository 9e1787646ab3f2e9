; The input is written with debug records (#dbg_declare), LLVM 19 syntax.
; REQUIRES: debug-records
; A demoted variable keeps its debug description: the dbg_declare points at
; a stack slot holding the frame's address, with a deref and the variable's
; offset, so a debugger finds it at any -O level.
; RUN: %opt %loadplugin -scope-alloc-inline-fast-path=false -passes='scope-alloc,verify' -scope-alloc-max-stack-alloca=0 -S %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

; CHECK-LABEL: define void @f(
; CHECK-NEXT:    %scopealloc.frame.addr = alloca ptr, align 8
; CHECK-NEXT:    #dbg_declare(ptr %scopealloc.frame.addr, ![[A:[0-9]+]], !DIExpression(DW_OP_deref),
; CHECK-NEXT:    #dbg_declare(ptr %scopealloc.frame.addr, ![[B:[0-9]+]], !DIExpression(DW_OP_deref, DW_OP_plus_uconst, 64),
; CHECK:         %scopealloc.frame = call nonnull align 8 ptr @__scopealloc_alloc(i64 72, i64 8), !dbg
; CHECK-NEXT:    store ptr %scopealloc.frame, ptr %scopealloc.frame.addr, align 8
; CHECK-DAG: ![[A]] = !DILocalVariable(name: "a"
; CHECK-DAG: ![[B]] = !DILocalVariable(name: "b"
define void @f() !dbg !5 {
  %a = alloca [64 x i8], align 8
  %b = alloca i64, align 8
    #dbg_declare(ptr %a, !9, !DIExpression(), !12)
    #dbg_declare(ptr %b, !10, !DIExpression(), !12)
  call void @use(ptr %a), !dbg !12
  call void @use(ptr %b), !dbg !12
  ret void, !dbg !12
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "test", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "f.c", directory: "/tmp")
!3 = !{i32 7, !"Dwarf Version", i32 5}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !6, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !8)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !{}
!9 = !DILocalVariable(name: "a", scope: !5, file: !1, line: 2, type: !11)
!10 = !DILocalVariable(name: "b", scope: !5, file: !1, line: 3, type: !13)
!11 = !DICompositeType(tag: DW_TAG_array_type, baseType: !13, size: 512, elements: !8)
!12 = !DILocation(line: 2, column: 3, scope: !5)
!13 = !DIBasicType(name: "long", size: 64, encoding: DW_ATE_signed)
