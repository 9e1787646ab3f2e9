; A module that already has something under one of the runtime's names
; (the pool type, the thread's pool, a named pool, a runtime function) that
; does not agree with the runtime is an error naming the symbol and what was
; expected, before any function is rewritten: the pass never reuses it into
; invalid IR ("Broken module") or a call of the wrong thing. Declarations as
; clang emits them from <scopealloc/scopealloc.h> are reused.
; RUN: split-file %s %t
; RUN: not %opt %loadplugin -passes=scope-alloc,verify -disable-output %t/tls-not-tls.ll 2>&1 | FileCheck %s --check-prefix=TLS
; RUN: not %opt %loadplugin -passes=scope-alloc,verify -disable-output %t/tls-function.ll 2>&1 | FileCheck %s --check-prefix=TLSFN
; RUN: not %opt %loadplugin -passes=scope-alloc,verify -disable-output %t/tls-type.ll 2>&1 | FileCheck %s --check-prefix=TLSTY
; RUN: not %opt %loadplugin -passes=scope-alloc,verify -disable-output %t/pool-type.ll 2>&1 | FileCheck %s --check-prefix=POOLTY
; RUN: not %opt %loadplugin -passes=scope-alloc,verify -disable-output %t/fn-type.ll 2>&1 | FileCheck %s --check-prefix=FNTY
; RUN: not %opt %loadplugin -scope-alloc-slow-path=preserve-most -passes=scope-alloc,verify -disable-output %t/fn-slow.ll 2>&1 | FileCheck %s --check-prefix=FNSLOW
; RUN: not %opt %loadplugin -passes=scope-alloc,verify -disable-output %t/fn-global.ll 2>&1 | FileCheck %s --check-prefix=FNGV
; RUN: not %opt %loadplugin -passes=scope-alloc,verify -disable-output %t/fn-note-frame.ll 2>&1 | FileCheck %s --check-prefix=FNNOTE
; RUN: not %opt %loadplugin -passes=scope-alloc,verify -disable-output %t/named-pool.ll 2>&1 | FileCheck %s --check-prefix=NAMED
; RUN: not %opt %loadplugin -passes=scope-alloc,verify -disable-output %t/reserved-pool.ll 2>&1 | FileCheck %s --check-prefix=RESERVED
; Through clang too: an error, no crash, no broken module.
; RUN: not %clang %clangplugin -O1 -c %t/tls-not-tls.ll -o /dev/null 2>&1 | FileCheck %s --check-prefixes=TLS,NOCRASH
; RUN: %opt %loadplugin -scope-alloc-slow-path=preserve-most -passes=scope-alloc,verify -S %t/compatible.ll | FileCheck %s --check-prefix=OK
; (AArch64 calls __scopealloc_frame_slow from LLVM 18 on: nonlazybind.)
; RUN: %if aarch64-nonlazybind %{ %opt %loadplugin -scope-alloc-slow-path=preserve-most -passes=scope-alloc,verify -S %t/compatible-aarch64.ll | FileCheck %s --check-prefix=OK64 %}

; TLS: error: scope-alloc: @__scopealloc_tls_pool conflicts with the ScopeAlloc runtime: it is not thread_local; expected an external thread_local global holding struct scopealloc_pool '{ ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, ptr, ptr }' (runtime ABI version 4), as <scopealloc/scopealloc.h> declares it. No function of the module was rewritten
; NOCRASH-NOT: Broken module
; NOCRASH-NOT: Stack dump
; TLSFN: error: scope-alloc: @__scopealloc_tls_pool conflicts with the ScopeAlloc runtime: it is a function; expected an external thread_local global
; TLSTY: error: scope-alloc: @__scopealloc_tls_pool conflicts with the ScopeAlloc runtime: its type is '[16 x i8]'; expected an external thread_local global
; POOLTY: error: scope-alloc: type %scopealloc.pool conflicts with the ScopeAlloc runtime: its body is '{ i32 }'; expected struct scopealloc_pool '{ ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, ptr, ptr }' (runtime ABI version 4). No function of the module was rewritten
; FNTY: error: scope-alloc: @__scopealloc_alloc conflicts with the ScopeAlloc runtime: it is declared with type 'i32 (i32)'; expected a function of type 'ptr (i64, i64)' (<scopealloc/scopealloc.h> declares it)
; FNSLOW: error: scope-alloc: @__scopealloc_frame_slow conflicts with the ScopeAlloc runtime: it is declared with type 'ptr (i64, i64)'; expected a function of type '{ ptr, ptr } (i64, i64)'
; FNGV: error: scope-alloc: @__scopealloc_release conflicts with the ScopeAlloc runtime: it is a global variable; expected a function of type 'void (ptr)'
; FNNOTE: error: scope-alloc: @__scopealloc_note_frame conflicts with the ScopeAlloc runtime: it is declared with type 'i32 (i32)'; expected a function of type 'void (ptr, ptr)'
; NAMED: error: scope-alloc: @__scopealloc_pool_npu conflicts with the ScopeAlloc runtime: it is thread_local; expected a global (not thread_local) holding struct scopealloc_pool '{ ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, ptr, ptr }' (runtime ABI version 4), as SCOPEALLOC_DEFINE_POOL defines it
; RESERVED: error: scope-alloc: in function 'f': '%buf' would move to pool 'mark', whose symbol __scopealloc_pool_mark is a function of the runtime: rename the pool

; OK-NOT: __scopealloc_tls_pool.
; OK-NOT: __scopealloc_pool_npu.
; OK: @__scopealloc_tls_pool = external thread_local global %struct.scopealloc_pool
; OK: @__scopealloc_pool_npu = global %struct.scopealloc_pool zeroinitializer
; (LLVM 15 has no llvm.threadlocal.address: the pool global is its own address.)
; OK-LABEL: define void @f(
; OK: {{threadlocal.address.p0\(|load atomic ptr, }}ptr {{.*}}@__scopealloc_tls_pool
; OK: call preserve_mostcc { ptr, ptr } @__scopealloc_frame_slow(i64 4096, i64 16)
; OK: call nonnull align 16 ptr @__scopealloc_pool_alloc(ptr @__scopealloc_pool_npu, i64 4096, i64 16)
; OK-NOT: __scopealloc_tls_pool.
; OK-NOT: __scopealloc_pool_npu.

; AArch64 returns C's struct of two pointers as [2 x i64]: the same function.
; OK64: declare preserve_mostcc [2 x i64] @__scopealloc_frame_slow(i64, i64)
; OK64-LABEL: define void @f(
; OK64: call preserve_mostcc { ptr, ptr } @__scopealloc_frame_slow(i64 4096, i64 16)

;--- tls-not-tls.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
@__scopealloc_tls_pool = global i32 0
declare void @use(ptr)
define void @f() {
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  ret void
}
;--- tls-function.ll
target triple = "x86_64-unknown-linux-gnu"
define internal void @__scopealloc_tls_pool() {
  ret void
}
declare void @use(ptr)
define void @f() {
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  call void @__scopealloc_tls_pool()
  ret void
}
;--- tls-type.ll
target triple = "x86_64-unknown-linux-gnu"
@__scopealloc_tls_pool = thread_local global [16 x i8] zeroinitializer
declare void @use(ptr)
define void @f() {
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  ret void
}
;--- pool-type.ll
target triple = "x86_64-unknown-linux-gnu"
%scopealloc.pool = type { i32 }
@mine = global %scopealloc.pool zeroinitializer
declare void @use(ptr)
define void @f() {
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  ret void
}
;--- fn-type.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
declare i32 @__scopealloc_alloc(i32)
declare void @use(ptr)
define void @f() {
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  ret void
}
;--- fn-slow.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
declare ptr @__scopealloc_frame_slow(i64, i64)
declare void @use(ptr)
define void @f() {
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  ret void
}
;--- fn-note-frame.ll
; The ASan frame note is a runtime function too.
target triple = "x86_64-unknown-linux-gnu"
declare i32 @__scopealloc_note_frame(i32)
declare void @use(ptr)
define void @f() sanitize_address {
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  ret void
}

;--- fn-global.ll
target triple = "x86_64-unknown-linux-gnu"
@__scopealloc_release = global i32 0
declare void @use(ptr)
define void @f() {
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  ret void
}
;--- named-pool.ll
target triple = "x86_64-unknown-linux-gnu"
%scopealloc.pool = type { ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, ptr, ptr }
@__scopealloc_pool_npu = thread_local global %scopealloc.pool zeroinitializer
declare void @use(ptr)
define void @f() {
  %buf = alloca [64 x i8], align 16, !scope !0
  call void @use(ptr %buf)
  ret void
}
!0 = !{!"global.npu"}
;--- reserved-pool.ll
target triple = "x86_64-unknown-linux-gnu"
declare void @use(ptr)
define void @f() {
  %buf = alloca [64 x i8], align 16, !scope !0
  call void @use(ptr %buf)
  ret void
}
!0 = !{!"global.mark"}
;--- compatible.ll
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
%struct.scopealloc_pool = type { ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, ptr, ptr }
@__scopealloc_tls_pool = external thread_local global %struct.scopealloc_pool, align 8
@__scopealloc_pool_npu = global %struct.scopealloc_pool zeroinitializer, align 64
declare preserve_mostcc { ptr, ptr } @__scopealloc_frame_slow(i64 noundef, i64 noundef)
declare ptr @__scopealloc_mark()
declare ptr @__scopealloc_alloc(i64 noundef, i64 noundef)
declare void @__scopealloc_release(ptr noundef)
declare void @use(ptr)
define void @f() {
  %buf = alloca [4096 x i8], align 16
  %npu = alloca [4096 x i8], align 16, !scope !0
  call void @use(ptr %buf)
  call void @use(ptr %npu)
  ret void
}
!0 = !{!"global.npu"}
;--- compatible-aarch64.ll
target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-gnu"
declare preserve_mostcc [2 x i64] @__scopealloc_frame_slow(i64, i64)
declare void @use(ptr)
define void @f() {
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  ret void
}
