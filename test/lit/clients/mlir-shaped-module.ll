; What mlir-translate writes: no target triple, a 64-bit data layout, memref
; memory spaces as alloca address spaces, and memref descriptors (the
; pointer inserted into a struct, extracted, and round-tripped through
; ptrtoint/inttoptr) between an alloca and its annotation.
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes='default<O2>' -scope-alloc-address-space-scopes=5:global.npu_sram,6:local -pass-remarks=scope-alloc -pass-remarks-missed=scope-alloc -S %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=REMARK
; RUN: FileCheck %s --check-prefix=IR < %t.ll
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes='default<O2>' -pass-remarks-missed=scope-alloc -disable-output %s 2>&1 | FileCheck %s --check-prefix=UNMAPPED
; The same mapping from a policy file's target.
; RUN: rm -rf %t.d && mkdir %t.d && printf 'version: 1\npools: [npu_sram]\ntargets:\n  npu:\n    address-space-scopes: { 5: global.npu_sram, 6: local }\n' > %t.d/policy.yaml
; RUN: %opt %loadplugin -scope-alloc-remark-sources -passes='default<O2>' -scope-alloc-policy=%t.d/policy.yaml -scope-alloc-target=npu -pass-remarks=scope-alloc -disable-output %s 2>&1 | FileCheck %s --check-prefix=FILE

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

declare void @use(ptr addrspace(5))
declare void @use0(ptr)
declare void @llvm.var.annotation(ptr, ptr, ptr, i32, ptr)
@scope = private constant [22 x i8] c"scope:global.npu_sram\00"
@file = private constant [8 x i8] c"kernel\00\00"

; REMARK-DAG: '{{%sram[0-9]*}}' in 'in_address_space' (65536 bytes, align 16, scope 'global.npu_sram') moved to pool 'npu_sram': scope 'global.npu_sram' requires pool 'npu_sram'; scope of address space 5 (command line) [rule scope-pool]
; IR-LABEL: define float @in_address_space(
; IR:         %[[FRAME:.*]] = call {{.*}} @__scopealloc_pool_alloc(ptr @__scopealloc_pool_npu_sram, i64 65536, i64 16)
; IR:         %[[AT:.*]] = getelementptr inbounds i8, ptr %[[FRAME]], i64 0
; IR-NEXT:    addrspacecast ptr %[[AT]] to ptr addrspace(5)
; UNMAPPED-DAG: '{{%sram[0-9]*}}' in 'in_address_space' (65536 bytes, align 16, scope none) cannot leave the stack: it is in address space 5, the workspace pools are in address space 0 (give the address space a scope to move it: -scope-alloc-address-space-scopes=5:<scope>)
; FILE-DAG: '{{%sram[0-9]*}}' in 'in_address_space' (65536 bytes, align 16, scope 'global.npu_sram') moved to pool 'npu_sram': {{.*}}; scope of address space 5 (target 'npu' of policy file {{.*}}policy.yaml (-scope-alloc-target)) [rule scope-pool]
define float @in_address_space(i64 %i) {
  %sram = alloca float, i64 16384, align 16, addrspace(5)
  %p = getelementptr float, ptr addrspace(5) %sram, i64 %i
  store float 1.0, ptr addrspace(5) %p
  call void @use(ptr addrspace(5) %sram)
  %v = load float, ptr addrspace(5) %sram
  ret float %v
}

; REMARK-DAG: '{{%regs[0-9]*}}' in 'local_space' (2048 bytes, align 16, scope 'local') stays on the stack: scope 'local' requires the stack, although its 2048 bytes exceed the limit 1024 bytes (target default for <no triple> (no target triple: hosted CPU with 64-bit pointers, from the data layout)); scope of address space 6 (command line) [rule scope-stack]
define void @local_space() {
  %regs = alloca float, i64 512, align 16, addrspace(6)
  %c = addrspacecast ptr addrspace(6) %regs to ptr
  call void @use0(ptr %c)
  ret void
}

; REMARK-DAG: '{{%tile[0-9]*}}' in 'descriptor' (1024 bytes, align 16, scope 'global.npu_sram') moved to pool 'npu_sram'
define void @descriptor() {
  %tile = alloca float, i64 256, align 16
  %d0 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } poison, ptr %tile, 0
  %d1 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %d0, ptr %tile, 1
  %d2 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %d1, i64 0, 2
  %aligned = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %d2, 1
  %int = ptrtoint ptr %aligned to i64
  %back = inttoptr i64 %int to ptr
  call void @llvm.var.annotation(ptr %back, ptr @scope, ptr @file, i32 3, ptr null)
  call void @use0(ptr %aligned)
  ret void
}
