; GPU targets have no workspace runtime: the policy leaves their functions
; alone, and a missed remark and the report say why.
; RUN: sed 's/TRIPLE/nvptx64-nvidia-cuda/' %s | %opt %loadplugin -passes=scope-alloc -pass-remarks-missed=scope-alloc -scope-alloc-report=%t.nvptx.json -disable-output 2>&1 | FileCheck %s --check-prefix=NVPTX
; RUN: FileCheck %s --check-prefix=NVPTX-REPORT < %t.nvptx.json
; RUN: python3 %S/../report/Inputs/validate.py %srcroot/docs/report-schema.json %t.nvptx.json
; AMDGPU allocas live in addrspace(5) (LLVM 22's verifier insists).
; RUN: sed -e '/^;/!s/target triple = "TRIPLE"/target datalayout = "A5"\ntarget triple = "amdgcn-amd-amdhsa"/' -e '/^;/!s/align 4$/align 4, addrspace(5)/' -e '/^;/!s/(ptr/(ptr addrspace(5)/g' %s | %opt %loadplugin -passes=scope-alloc -pass-remarks-missed=scope-alloc -disable-output 2>&1 | FileCheck %s --check-prefix=AMDGPU
; A handled target reports no reason.
; RUN: sed 's/TRIPLE/x86_64-unknown-linux-gnu/' %s | %opt %loadplugin -passes=scope-alloc -scope-alloc-report=%t.x86.json -disable-output
; RUN: FileCheck %s --check-prefix=X86-REPORT < %t.x86.json

; NVPTX: remark: <unknown>:0:0: 'kernel' left alone: target default for nvptx64-nvidia-cuda (GPU: no workspace runtime, left alone)
; NVPTX-REPORT: "functions_not_handled": 1,
; NVPTX-REPORT: "not_handled_reason": "target default for nvptx64-nvidia-cuda (GPU: no workspace runtime, left alone)"
; AMDGPU: remark: <unknown>:0:0: 'kernel' left alone: target default for amdgcn-amd-amdhsa (GPU: no workspace runtime, left alone)
; X86-REPORT: "not_handled_reason": null

target triple = "TRIPLE"

declare void @use(ptr)

define void @kernel() {
  %big = alloca [600 x i8], align 4
  call void @use(ptr %big)
  ret void
}
