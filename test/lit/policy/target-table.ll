; The default limit comes from the target triple (docs/policy.md: "Default policy
; by target"). A 300-byte buffer stays on hosted CPUs, moves on bare metal
; (256) and WebAssembly is at 512; GPU modules are left alone.
; RUN: sed 's/TRIPLE/x86_64-unknown-linux-gnu/' %s | %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc -pass-remarks=scope-alloc -disable-output 2>&1 | FileCheck %s --check-prefix=HOSTED64
; RUN: sed 's/TRIPLE/i686-unknown-linux-gnu/' %s | %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc -pass-remarks=scope-alloc -disable-output 2>&1 | FileCheck %s --check-prefix=HOSTED32
; RUN: sed 's/TRIPLE/thumbv7em-none-eabi/' %s | %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc -pass-remarks=scope-alloc -disable-output 2>&1 | FileCheck %s --check-prefix=BAREMETAL
; RUN: sed 's/TRIPLE/riscv32-unknown-elf/' %s | %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc -pass-remarks=scope-alloc -disable-output 2>&1 | FileCheck %s --check-prefix=RISCV
; RUN: sed 's/TRIPLE/wasm32-unknown-unknown/' %s | %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc -pass-remarks=scope-alloc -disable-output 2>&1 | FileCheck %s --check-prefix=WASM
; RUN: sed 's/TRIPLE/nvptx64-nvidia-cuda/' %s | %opt %loadplugin -scope-alloc-remark-sources -passes=scope-alloc -pass-remarks=scope-alloc -S 2>&1 | FileCheck %s --check-prefix=GPU

target triple = "TRIPLE"

declare void @use(ptr)

define void @f() {
  %buf = alloca [300 x i8], align 4
  %big = alloca [600 x i8], align 4
  call void @use(ptr %buf)
  call void @use(ptr %big)
  ret void
}

; HOSTED64: '%buf' in 'f' (300 bytes, {{.*}}) stays on the stack: 300 bytes are within the limit 1024 bytes (target default for x86_64-unknown-linux-gnu (hosted 64-bit CPU))
; HOSTED32: '%buf' in 'f' (300 bytes, {{.*}}) stays on the stack: 300 bytes are within the limit 1024 bytes (target default for i686-unknown-linux-gnu (hosted 32-bit CPU))
; BAREMETAL: '%buf' in 'f' (300 bytes, {{.*}}) moved to pool 'workspace': 300 bytes exceed the limit 256 bytes (target default for thumbv7em-none-eabi (bare-metal: stacks of a few KiB))
; RISCV: '%buf' in 'f' (300 bytes, {{.*}}) moved to pool 'workspace': 300 bytes exceed the limit 256 bytes (target default for riscv32-unknown-elf (bare-metal
; WASM: '%buf' in 'f' (300 bytes, {{.*}}) stays on the stack: 300 bytes are within the limit 512 bytes (target default for wasm32-unknown-unknown (WebAssembly
; WASM: '%big' in 'f' (600 bytes, {{.*}}) moved to pool 'workspace': 600 bytes exceed the limit 512 bytes
; GPU-NOT: remark
; GPU: %big = alloca [600 x i8]
; GPU-NOT: __scopealloc
