; Remarks of IR (opt) name their function even where nothing locates them
; (<unknown>:0:0 without debug info), and demangled; two buffers of one
; function differ by name. An inlined buffer with location-only debug info
; (clang's without -g) is placed at its lifetime start and names the
; function it came from and the call, without the inliner's ".i" suffix.
; RUN: %opt %loadplugin -passes=scope-alloc -disable-output %s \
; RUN:   -scope-alloc-max-stack-alloca=0 -pass-remarks=scope-alloc 2>&1 \
; RUN:   | FileCheck %s --implicit-check-not=remark:
; RUN: %opt %loadplugin -passes=scope-alloc -disable-output %s \
; RUN:   -scope-alloc-max-stack-alloca=0 -pass-remarks-output=%t.yaml \
; RUN:   -pass-remarks-filter=scope-alloc
; RUN: FileCheck %s --check-prefix=YAML --input-file=%t.yaml

; CHECK: remark: <unknown>:0:0: '%in' in 'plain' (64 bytes, align 4, scope none) moved to pool 'workspace'
; CHECK: remark: <unknown>:0:0: '%out' in 'plain' (64 bytes, align 4, scope none) moved to pool 'workspace'
; CHECK: remark: <unknown>:0:0: '%buf' in 'ns::work(int)' (32 bytes,
; CHECK: remark: kernel.c:4:3: '%tile' in 'helper' inlined into 'entry' at line 12 (128 bytes,
; CHECK: remark: kernel.c:4:3: '%tile' in 'helper' inlined into 'entry' at line 13 (128 bytes,
; CHECK: remark: kernel.c:2:0: '%line' in 'helper' inlined into 'entry' at line 14 (16 bytes,

; YAML:      Name: Demoted
; YAML:      Function: plain
; YAML:      - Alloca: '%in'
; YAML-NEXT: - String: ''' in '''
; YAML-NEXT: - Function: plain
; YAML:      DebugLoc: { File: kernel.c, Line: 4, Column: 3 }
; YAML-NEXT: Function: entry
; YAML:      - Alloca: '%tile'
; YAML-NEXT: - String: ''' in '''
; YAML-NEXT: - Function: helper
; YAML-NEXT: - String: ''''
; YAML-NEXT: - String: ' inlined into '''
; YAML-NEXT: - Caller: entry
; YAML-NEXT: - String: ''''
; YAML-NEXT: - String: ' at line '
; YAML-NEXT: - CallLine: '12'

target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define void @plain() {
  %in = alloca [16 x i32], align 4
  %out = alloca [16 x i32], align 4
  call void @use(ptr %in)
  call void @use(ptr %out)
  ret void
}

define void @_ZN2ns4workEi(i32 %n) {
  %buf = alloca [32 x i8], align 1
  call void @use(ptr %buf)
  ret void
}

; helper() inlined three times into entry(), with location-only debug
; info: tile.i and tile.i1 have lifetime starts, line.i2 has none.
define void @entry() !dbg !10 {
  %tile.i = alloca [128 x i8], align 16
  %tile.i1 = alloca [128 x i8], align 16
  %line.i2 = alloca [16 x i8], align 1
  call void @llvm.lifetime.start.p0(i64 128, ptr %tile.i), !dbg !21
  call void @use(ptr %tile.i), !dbg !22
  call void @llvm.lifetime.start.p0(i64 128, ptr %tile.i1), !dbg !31
  call void @use(ptr %tile.i1), !dbg !32
  call void @use(ptr %line.i2), !dbg !42
  ret void, !dbg !50
}

declare void @llvm.lifetime.start.p0(i64, ptr)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: NoDebug)
!1 = !DIFile(filename: "kernel.c", directory: "/src")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !DISubroutineType(types: !{})
!10 = distinct !DISubprogram(name: "entry", scope: !1, file: !1, line: 11, type: !3, spFlags: DISPFlagDefinition, unit: !0)
!11 = distinct !DISubprogram(name: "helper", scope: !1, file: !1, line: 2, type: !3, spFlags: DISPFlagDefinition, unit: !0)
!20 = distinct !DILocation(line: 12, column: 3, scope: !10)
!21 = !DILocation(line: 4, column: 3, scope: !11, inlinedAt: !20)
!22 = !DILocation(line: 5, column: 3, scope: !11, inlinedAt: !20)
!30 = distinct !DILocation(line: 13, column: 3, scope: !10)
!31 = !DILocation(line: 4, column: 3, scope: !11, inlinedAt: !30)
!32 = !DILocation(line: 5, column: 3, scope: !11, inlinedAt: !30)
!40 = distinct !DILocation(line: 14, column: 3, scope: !10)
!42 = !DILocation(line: 6, column: 3, scope: !11, inlinedAt: !40)
!50 = !DILocation(line: 15, column: 1, scope: !10)
