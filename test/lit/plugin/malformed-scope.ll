; Malformed !scope metadata is an error that names the function and the
; value; opt fails and nothing is rewritten or crashes.
; RUN: split-file %s %t
; RUN: not %opt %loadplugin -passes=scope-alloc -disable-output %t/two-operands.ll 2>&1 | FileCheck %s --check-prefix=TWO
; RUN: not %opt %loadplugin -passes=scope-alloc -disable-output %t/empty.ll 2>&1 | FileCheck %s --check-prefix=EMPTY
; RUN: not %opt %loadplugin -passes=scope-alloc -disable-output %t/unknown.ll 2>&1 | FileCheck %s --check-prefix=UNKNOWN
; RUN: not %opt %loadplugin -passes=scope-alloc -disable-output %t/not-string.ll 2>&1 | FileCheck %s --check-prefix=NOTSTRING
; RUN: not %opt %loadplugin -passes=scope-alloc -disable-output %t/no-operands.ll 2>&1 | FileCheck %s --check-prefix=NOOPS
; RUN: not %opt %loadplugin -passes=scope-alloc -disable-output %t/bad-pool.ll 2>&1 | FileCheck %s --check-prefix=BADPOOL
; RUN: not %opt %loadplugin -passes=scope-alloc -disable-output %t/empty-pool.ll 2>&1 | FileCheck %s --check-prefix=EMPTYPOOL
; RUN: not %opt %loadplugin -passes=scope-alloc -disable-output %t/on-call.ll 2>&1 | FileCheck %s --check-prefix=CALL

; TWO: error: scope-alloc: in function 'two': malformed !scope metadata on '%buf': !scope metadata must hold exactly one string, found 2 operands
; EMPTY: error: scope-alloc: in function 'empty': malformed !scope metadata on '%buf': the scope string is empty
; UNKNOWN: error: scope-alloc: in function 'unknown': malformed !scope metadata on '%buf': unknown scope 'shared' (expected 'global', 'local', 'global.stack', 'global.workspace' or 'global.<pool>')
; NOTSTRING: error: scope-alloc: in function 'notstring': malformed !scope metadata on '%buf': !scope metadata must hold a string, found another kind of operand
; NOOPS: error: scope-alloc: in function 'noops': malformed !scope metadata on '%buf': !scope metadata must hold exactly one string, found 0 operands
; BADPOOL: error: scope-alloc: in function 'badpool': malformed !scope metadata on '%buf': pool name 'npu-sram' in scope 'global.npu-sram' is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)
; EMPTYPOOL: error: scope-alloc: in function 'emptypool': malformed !scope metadata on '%1': pool name '' in scope 'global.' is not a C identifier
; CALL: error: scope-alloc: in function 'oncall': malformed !scope metadata on 'call void @use(ptr null), !scope !0': unknown scope 'gloabl.workspace'

;--- two-operands.ll
define void @two() {
  %buf = alloca [4096 x i8], !scope !0
  ret void
}
!0 = !{!"global", !"local"}
;--- empty.ll
define void @empty() {
  %buf = alloca [4096 x i8], !scope !0
  ret void
}
!0 = !{!""}
;--- unknown.ll
define void @unknown() {
  %buf = alloca [4096 x i8], !scope !0
  ret void
}
!0 = !{!"shared"}
;--- not-string.ll
define void @notstring() {
  %buf = alloca [4096 x i8], !scope !0
  ret void
}
!0 = !{i32 3}
;--- no-operands.ll
define void @noops() {
  %buf = alloca [4096 x i8], !scope !0
  ret void
}
!0 = !{}
;--- bad-pool.ll
define void @badpool() {
  %buf = alloca [4096 x i8], !scope !0
  ret void
}
!0 = !{!"global.npu-sram"}
;--- empty-pool.ll
define void @emptypool() {
  %1 = alloca [4096 x i8], !scope !0
  ret void
}
!0 = !{!"global."}
;--- on-call.ll
declare void @use(ptr)
define void @oncall() {
  call void @use(ptr null), !scope !0
  ret void
}
!0 = !{!"gloabl.workspace"}
