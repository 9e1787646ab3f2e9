; Where a store cannot stand in for the runtime, the frame keeps the calls:
; sanitizers that poison released memory, frames with resume points (their
; bookkeeping follows the runtime calls), bare-metal triples other than Arm
; (no TLS; Arm bumps the fixed pool 'workspace' inline:
; baremetal-inline-fast-path.ll), named pools, and the option turned off.
; RUN: split-file %s %t
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -passes='scope-alloc,verify' -S %t/hosted.ll | FileCheck %s
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -passes='scope-alloc,verify' -S %t/bare-metal.ll | FileCheck %s --check-prefix=CALLS
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -passes='scope-alloc,verify' -S %t/bare-metal-arm.ll | FileCheck %s --check-prefix=ARM
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -passes='scope-alloc,verify' -S %t/no-triple.ll | FileCheck %s --check-prefix=CALLS
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -scope-alloc-inline-fast-path=false -passes='scope-alloc,verify' -S %t/hosted.ll \
; RUN:   | FileCheck %s --check-prefix=OFF

;--- hosted.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)
declare i32 @setjmp(ptr) returns_twice
declare i32 @__gxx_personality_v0(...)

; CHECK-LABEL: define void @plain(
; CHECK:         %scopealloc.fits = icmp ule
; CHECK-NOT:     call void @__scopealloc_release
; CHECK:         ret void
; OFF-LABEL: define void @plain(
; OFF-NOT:       scopealloc.fits
; OFF:           call ptr @__scopealloc_mark()
; OFF:           call void @__scopealloc_release(
define void @plain() {
  %buf = alloca [4096 x i8]
  call void @use(ptr %buf)
  ret void
}

; CHECK-LABEL: define void @asan(
; CHECK-NOT:     scopealloc.fits
; CHECK:         call ptr @__scopealloc_mark()
; CHECK:         call void @__scopealloc_release(
define void @asan() sanitize_address {
  %buf = alloca [4096 x i8]
  call void @use(ptr %buf)
  ret void
}

; CHECK-LABEL: define void @hwasan(
; CHECK-NOT:     scopealloc.fits
; CHECK:         call void @__scopealloc_release(
define void @hwasan() sanitize_hwaddress {
  %buf = alloca [4096 x i8]
  call void @use(ptr %buf)
  ret void
}

; CHECK-LABEL: define i32 @with_setjmp(
; CHECK-NOT:     scopealloc.fits
; CHECK:         call ptr @__scopealloc_mark()
; CHECK:         call void @__scopealloc_release(
define i32 @with_setjmp(ptr %env) {
  %buf = alloca [4096 x i8]
  call void @use(ptr %buf)
  %r = call i32 @setjmp(ptr %env)
  ret i32 %r
}

; CHECK-LABEL: define void @with_catch(
; CHECK-NOT:     scopealloc.fits
; CHECK:         call ptr @__scopealloc_mark()
define void @with_catch() personality ptr @__gxx_personality_v0 {
entry:
  %buf = alloca [4096 x i8]
  invoke void @use(ptr %buf) to label %ok unwind label %lpad
ok:
  ret void
lpad:
  %lp = landingpad { ptr, i32 } catch ptr null
  ret void
}

; The default pool inline, the named pool by call, released newest first.
; CHECK-LABEL: define void @two_pools(
; CHECK:         %scopealloc.fits = icmp ule
; CHECK:         call ptr @__scopealloc_pool_mark(ptr @__scopealloc_pool_sram)
; CHECK:         call {{.*}}ptr @__scopealloc_pool_alloc(ptr @__scopealloc_pool_sram, i64 256, i64 1)
; CHECK:         call void @__scopealloc_pool_release(ptr @__scopealloc_pool_sram,
; (LLVM 15 has no llvm.threadlocal.address: the pool global is its own address.)
; CHECK-NEXT:    store atomic ptr %scopealloc.mark, ptr {{%scopealloc.pool|@__scopealloc_tls_pool}} monotonic
; CHECK-NEXT:    ret void
define void @two_pools() {
  %buf = alloca [4096 x i8]
  %dma = alloca [256 x i8], !scope !0
  call void @use(ptr %buf)
  call void @use(ptr %dma)
  ret void
}
!0 = !{!"global.sram"}

;--- bare-metal.ll
target datalayout = "e-m:e-p:32:32-i64:64-n32-S128"
target triple = "riscv32-unknown-unknown-elf"
declare void @use(ptr)
; CALLS-LABEL: define void @plain(
; CALLS-NOT:     scopealloc.fits
; CALLS:         call ptr @__scopealloc_mark()
; CALLS:         call void @__scopealloc_release(
define void @plain() {
  %buf = alloca [4096 x i8]
  call void @use(ptr %buf)
  ret void
}

;--- bare-metal-arm.ll
target datalayout = "e-m:e-p:32:32-Fi8-i64:64-v128:64:128-a:0:32-n32-S64"
target triple = "thumbv7em-none-unknown-eabi"
declare void @use(ptr)
; ARM-LABEL: define void @plain(
; ARM:         load ptr, ptr @__scopealloc_pool_workspace
; ARM:         %scopealloc.fits = icmp ule
; ARM-NOT:     call void @__scopealloc_release
; ARM:         ret void
define void @plain() {
  %buf = alloca [4096 x i8]
  call void @use(ptr %buf)
  ret void
}

;--- no-triple.ll
declare void @use(ptr)
define void @plain() {
  %buf = alloca [4096 x i8]
  call void @use(ptr %buf)
  ret void
}
