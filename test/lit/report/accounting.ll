; Every function the pass sees is accounted for: with allocations (listed),
; without (counted), left alone by the target's policy (GPUs: counted), or
; failed (an error was reported; named, and the report is marked
; incomplete while the compile fails). opt exits at the first error, clang
; finishes the pipeline first, so the report of a failed compile comes from
; clang.
; RUN: split-file %s %t
; RUN: not %clang %clangplugin -O0 -c %t/failed.ll -o /dev/null -mllvm -scope-alloc-report=%t/failed.json 2>&1 | FileCheck %s --check-prefix=ERR
; RUN: python3 %S/Inputs/flatten.py %t/failed.json | FileCheck %s --check-prefix=FAILED
; RUN: %opt %loadplugin -passes=scope-alloc -disable-output -scope-alloc-report=%t/gpu.json %t/gpu.ll
; RUN: python3 %S/Inputs/flatten.py %t/gpu.json | FileCheck %s --check-prefix=GPU
; RUN: python3 %S/Inputs/validate.py %srcroot/docs/report-schema.json %t/failed.json %t/gpu.json

; ERR: error: scope-alloc: in function 'bad': malformed !scope metadata
; FAILED: consistent
; FAILED-NEXT: module failed.ll {{.*}} complete=False
; FAILED-NEXT: seen=3 without=1 not_handled=0 failed=bad
; FAILED-NEXT: totals stack=0/0/0 workspace=4096/4096/1/0
; FAILED-NEXT: function good
; FAILED-NOT: function bad

; GPU: consistent
; GPU-NEXT: module gpu.ll {{.*}} triple=amdgcn-amd-amdhsa complete=True
; GPU-NEXT: seen=1 without=0 not_handled=1 failed={{$}}
; GPU-NEXT: totals stack=0/0/0{{$}}
; GPU-NOT: function

;--- failed.ll
target triple = "x86_64-unknown-linux-gnu"
declare void @use(ptr)
define void @good() {
  %buf = alloca [4096 x i8]
  call void @use(ptr %buf)
  ret void
}
define void @bad() {
  %buf = alloca [4096 x i8], !scope !0
  call void @use(ptr %buf)
  ret void
}
define void @empty() {
  ret void
}
!0 = !{i32 7}

;--- gpu.ll
target triple = "amdgcn-amd-amdhsa"
declare void @use(ptr addrspace(5))
define void @kernel() {
  %buf = alloca [4096 x i8], addrspace(5)
  call void @use(ptr addrspace(5) %buf)
  ret void
}
