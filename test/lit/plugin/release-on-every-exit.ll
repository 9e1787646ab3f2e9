; The frame is released on every way out: each ret, before a musttail call
; (which must stay right before its ret), and before resume.
; RUN: %opt %loadplugin -scope-alloc-inline-fast-path=false -passes=scope-alloc -S %s | FileCheck %s
; RUN: %opt %loadplugin -passes='scope-alloc,verify' -disable-output %s
; The inline fast path releases with a store of the mark on the same exits.
; RUN: %opt %loadplugin -passes='scope-alloc,verify' -S %s | FileCheck %s --check-prefix=INLINE

; (LLVM 15 has no llvm.threadlocal.address: the pool global is its own address.)
; INLINE-LABEL: define i32 @two_returns(
; INLINE:       then:
; INLINE-NEXT:    store atomic ptr %scopealloc.mark, ptr {{%scopealloc.pool|@__scopealloc_tls_pool}} monotonic, align 8
; INLINE-NEXT:    ret i32 1
; INLINE:       else:
; INLINE-NEXT:    store atomic ptr %scopealloc.mark, ptr {{%scopealloc.pool|@__scopealloc_tls_pool}} monotonic, align 8
; INLINE-NEXT:    ret i32 2
; INLINE-LABEL: define i32 @tail(
; INLINE:         store atomic ptr %scopealloc.mark, ptr {{%scopealloc.pool|@__scopealloc_tls_pool}} monotonic, align 8
; INLINE-NEXT:    %r = musttail call i32 @callee(i32 %x)
; INLINE-NEXT:    ret i32 %r
; INLINE-LABEL: define void @unwinds(
; INLINE:       ok:
; INLINE-NEXT:    store atomic ptr %scopealloc.mark, ptr {{%scopealloc.pool|@__scopealloc_tls_pool}} monotonic, align 8
; INLINE-NEXT:    ret void
; INLINE:       lpad:
; INLINE-NEXT:    %lp = landingpad { ptr, i32 }
; INLINE-NEXT:            cleanup
; INLINE-NEXT:    store atomic ptr %scopealloc.mark, ptr {{%scopealloc.pool|@__scopealloc_tls_pool}} monotonic, align 8
; INLINE-NEXT:    resume { ptr, i32 } %lp
; INLINE-LABEL: define void @untouched(
; INLINE-NOT:     scopealloc
; INLINE:         ret void

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)
declare i32 @callee(i32)
declare i32 @__gxx_personality_v0(...)

; CHECK-LABEL: define i32 @two_returns(
; CHECK:       then:
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    ret i32 1
; CHECK:       else:
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    ret i32 2
define i32 @two_returns(i1 %c) {
entry:
  %buf = alloca [4096 x i8]
  call void @use(ptr %buf)
  br i1 %c, label %then, label %else
then:
  ret i32 1
else:
  ret i32 2
}

; CHECK-LABEL: define i32 @tail(
; CHECK:         call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    %r = musttail call i32 @callee(i32 %x)
; CHECK-NEXT:    ret i32 %r
define i32 @tail(i32 %x) {
  %buf = alloca [4096 x i8]
  call void @use(ptr %buf)
  %r = musttail call i32 @callee(i32 %x)
  ret i32 %r
}

; CHECK-LABEL: define void @unwinds(
; CHECK:       ok:
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    ret void
; CHECK:       lpad:
; CHECK-NEXT:    %lp = landingpad { ptr, i32 }
; CHECK-NEXT:            cleanup
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    resume { ptr, i32 } %lp
define void @unwinds() personality ptr @__gxx_personality_v0 {
entry:
  %buf = alloca [4096 x i8]
  invoke void @use(ptr %buf) to label %ok unwind label %lpad
ok:
  ret void
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp
}

; Nothing demoted: no runtime calls at all.
; CHECK-LABEL: define void @untouched(
; CHECK-NOT:     __scopealloc
; CHECK:         ret void
define void @untouched() {
  %buf = alloca [16 x i8]
  call void @use(ptr %buf)
  ret void
}
