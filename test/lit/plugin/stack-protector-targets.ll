; The canaries of demoted buffers read the stack guard where the target's
; own stack protector does: %gs:20 on i686 glibc, llvm.stackguard (kept
; __stack_chk_guard declared for codegen) on AArch64 Linux and bare-metal
; Arm, the thread pointer slot on Android. Each module must also get
; through codegen at -O0 and -O2.
; RUN: split-file %s %t
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes='scope-alloc,verify' -S %t/i686.ll | FileCheck %s --check-prefix=I686
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes=scope-alloc %t/i686.ll | llc -O0 -o - | FileCheck %s --check-prefix=I686-ASM
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes=scope-alloc %t/i686.ll | llc -O2 -o - | FileCheck %s --check-prefix=I686-ASM
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes='scope-alloc,verify' -S %t/aarch64.ll | FileCheck %s --check-prefix=A64
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes='scope-alloc,globaldce' %t/aarch64.ll | llc -O0 -o - | FileCheck %s --check-prefix=A64-ASM
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes='scope-alloc,globaldce' %t/aarch64.ll | llc -O2 -o - | FileCheck %s --check-prefix=A64-ASM
; A module's own unused declaration of the guard is kept for codegen too.
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes='scope-alloc,globaldce' %t/declared.ll | llc -O2 -o - | FileCheck %s --check-prefix=A64-ASM
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes='scope-alloc,verify' -S %t/android.ll | FileCheck %s --check-prefix=ANDROID
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes='scope-alloc,verify' -S %t/thumb.ll | FileCheck %s --check-prefix=THUMB
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes='scope-alloc,globaldce' %t/thumb.ll | llc -O0 -o - | FileCheck %s --check-prefix=THUMB-ASM
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes='scope-alloc,globaldce' %t/thumb.ll | llc -O2 -o - | FileCheck %s --check-prefix=THUMB-ASM

; I686: %scopealloc.end = getelementptr i8, ptr %{{.*}}, i32 272
; I686: call nonnull align 8 ptr @__scopealloc_alloc(i32 260, i32 8)
; I686: %[[G:.*]] = load volatile i32, ptr addrspace(256) inttoptr (i32 20 to ptr addrspace(256))
; I686: store volatile i32 %[[G]], ptr %scopealloc.canary.addr, align 1
; I686: call void @__stack_chk_fail()
; I686-ASM: movl %gs:20
; I686-ASM: calll __stack_chk_fail

; PIC code reaches the guard through the GOT, as the target's own canary does.
; A64: @__stack_chk_guard = external global ptr
; A64: @llvm.compiler.used = appending global [1 x ptr] [ptr @__stack_chk_guard]
; A64: %[[G:.*]] = call ptr @llvm.stackguard()
; A64-NEXT: %scopealloc.guard = ptrtoint ptr %[[G]] to i64
; A64-NEXT: store volatile i64 %scopealloc.guard, ptr %scopealloc.canary.addr, align 1
; A64-ASM: __stack_chk_guard
; A64-ASM: bl __stack_chk_fail

; ANDROID: %[[TP:.*]] = call ptr @llvm.thread.pointer{{(\.p0)?}}()
; ANDROID-NEXT: %[[A:.*]] = getelementptr i8, ptr %[[TP]], i32 40
; ANDROID-NEXT: %scopealloc.guard = load volatile i64, ptr %[[A]]

; Static code reaches the guard directly, as the target's own canary does.
; THUMB: @__stack_chk_guard = external dso_local global ptr
; THUMB: call ptr @llvm.stackguard()
; THUMB-ASM: movw {{r[0-9]+}}, :lower16:__stack_chk_guard
; THUMB-ASM: bl __stack_chk_fail

;--- i686.ll
target datalayout = "e-m:e-p:32:32-p270:32:32-p271:32:32-p272:64:64-i128:128-f64:32:64-f80:32-n8:16:32-S128"
target triple = "i686-unknown-linux-gnu"
declare void @use(ptr)
define void @f() sspstrong {
  %buf = alloca [256 x i8]
  call void @use(ptr %buf)
  ret void
}

;--- aarch64.ll
target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-gnu"
declare void @use(ptr)
define void @f() sspstrong {
  %buf = alloca [256 x i8]
  call void @use(ptr %buf)
  ret void
}
!llvm.module.flags = !{!0}
!0 = !{i32 8, !"PIC Level", i32 2}

;--- declared.ll
target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-gnu"
@__stack_chk_guard = external global ptr
declare void @use(ptr)
define void @f() sspstrong {
  %buf = alloca [256 x i8]
  call void @use(ptr %buf)
  ret void
}

;--- android.ll
target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-android29"
declare void @use(ptr)
define void @f() sspstrong {
  %buf = alloca [256 x i8]
  call void @use(ptr %buf)
  ret void
}

;--- thumb.ll
target datalayout = "e-m:e-p:32:32-Fi8-i64:64-v128:64:128-a:0:32-n32-S64"
target triple = "thumbv7em-unknown-none-eabi"
declare void @use(ptr)
define void @f() sspstrong {
  %buf = alloca [256 x i8]
  call void @use(ptr %buf)
  ret void
}
