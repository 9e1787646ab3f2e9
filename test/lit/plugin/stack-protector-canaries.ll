; Under -fstack-protector{,-strong,-all} (ssp, sspstrong, sspreq) every
; demoted buffer is followed by a canary holding the target's stack guard,
; stored once the frame is allocated and compared with the guard before each
; release (ret, musttail call, resume); a mismatch calls __stack_chk_fail.
; One canary per buffer: an overflow of the first buffer into the second is
; caught too. Functions without the attributes get none.
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -scope-alloc-inline-fast-path=false -passes='scope-alloc,verify' -S %s | FileCheck %s
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes='scope-alloc,verify' -S %s | FileCheck %s --check-prefix=INLINE
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes=scope-alloc %s | llc -O0 -o - | FileCheck %s --check-prefix=ASM
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=0 -passes=scope-alloc %s | llc -O2 -o - | FileCheck %s --check-prefix=ASM

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)
declare i32 @callee(i32)
declare i32 @__gxx_personality_v0(...)

; The 100-byte buffer starts after the 256-byte one's canary.
; CHECK-LABEL: define i32 @two(
; CHECK:         %scopealloc.frame = call nonnull align 16 ptr @__scopealloc_alloc(i64 372, i64 16)
; CHECK-NEXT:    %a = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
; CHECK-NEXT:    %b = getelementptr inbounds i8, ptr %scopealloc.frame, i64 264
; CHECK-NEXT:    %[[CA:.*]] = getelementptr inbounds i8, ptr %scopealloc.frame, i64 256
; CHECK-NEXT:    %[[CB:.*]] = getelementptr inbounds i8, ptr %scopealloc.frame, i64 364
; CHECK-NEXT:    %[[G:.*]] = load volatile i64, ptr addrspace(257) inttoptr (i32 40 to ptr addrspace(257))
; CHECK-NEXT:    store volatile i64 %[[G]], ptr %[[CA]], align 1
; CHECK-NEXT:    store volatile i64 %[[G]], ptr %[[CB]], align 1
; CHECK-NEXT:    call void @use(ptr %a)
; CHECK:       then:
; CHECK-NEXT:    %[[G1:.*]] = load volatile i64, ptr addrspace(257) inttoptr (i32 40 to ptr addrspace(257))
; CHECK-NEXT:    %[[C1:.*]] = load volatile i64, ptr %[[CA]], align 1
; CHECK-NEXT:    %[[X1:.*]] = xor i64 %[[C1]], %[[G1]]
; CHECK-NEXT:    %[[C2:.*]] = load volatile i64, ptr %[[CB]], align 1
; CHECK-NEXT:    %[[X2:.*]] = xor i64 %[[C2]], %[[G1]]
; CHECK-NEXT:    %[[D:.*]] = or i64 %[[X1]], %[[X2]]
; CHECK-NEXT:    %[[S:.*]] = icmp ne i64 %[[D]], 0
; CHECK-NEXT:    br i1 %[[S]], label %scopealloc.stack_chk_fail, label %then.canary.ok
; CHECK:       then.canary.ok:
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    ret i32 1
; CHECK:       else:
; CHECK:         br i1 %{{.*}}, label %scopealloc.stack_chk_fail, label %else.canary.ok
; CHECK:       else.canary.ok:
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    ret i32 2
; CHECK:       scopealloc.stack_chk_fail:
; CHECK-NEXT:    call void @__stack_chk_fail() #[[NORETURN:[0-9]+]]
; CHECK-NEXT:    unreachable
; INLINE-LABEL: define i32 @two(
; INLINE:         %scopealloc.end = getelementptr i8, ptr %{{.*}}, i64 372
; INLINE:       then.canary.ok:
; INLINE-NEXT:    store atomic ptr %scopealloc.mark, ptr %scopealloc.pool monotonic, align 8
; INLINE-NEXT:    ret i32 1
; ASM-LABEL: two:
; ASM:         movq %fs:40, %[[R:[a-z]+]]
; ASM:         callq __stack_chk_fail
define i32 @two(i1 %c) sspstrong {
entry:
  %a = alloca [256 x i8], align 16
  %b = alloca [100 x i8], align 4
  call void @use(ptr %a)
  call void @use(ptr %b)
  br i1 %c, label %then, label %else
then:
  ret i32 1
else:
  ret i32 2
}

; Buffers with disjoint lifetimes still share bytes, and then their canary,
; but never a byte another buffer's canary needs (canaries live throughout).
; CHECK-LABEL: define void @disjoint(
; CHECK:         call nonnull align 16 ptr @__scopealloc_alloc(i64 8200, i64 16)
; CHECK-NEXT:    %first = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
; CHECK-NEXT:    %second = getelementptr inbounds i8, ptr %scopealloc.frame, i64 0
; CHECK-NEXT:    %third = getelementptr inbounds i8, ptr %scopealloc.frame, i64 4112
; CHECK-NEXT:    getelementptr inbounds i8, ptr %scopealloc.frame, i64 4096
; CHECK-NEXT:    getelementptr inbounds i8, ptr %scopealloc.frame, i64 8192
; CHECK-NEXT:    load volatile i64
; CHECK-NEXT:    store volatile
; CHECK-NEXT:    store volatile
; CHECK-NEXT:    call void @use(
define void @disjoint() ssp {
  %first = alloca [4096 x i8], align 16
  %second = alloca [4096 x i8], align 16
  %third = alloca [4080 x i8], align 16
  call void @llvm.lifetime.start.p0(i64 4096, ptr %first)
  call void @use(ptr %first)
  call void @llvm.lifetime.end.p0(i64 4096, ptr %first)
  call void @llvm.lifetime.start.p0(i64 4096, ptr %second)
  call void @use(ptr %second)
  call void @llvm.lifetime.end.p0(i64 4096, ptr %second)
  call void @llvm.lifetime.start.p0(i64 4080, ptr %third)
  call void @use(ptr %third)
  call void @llvm.lifetime.end.p0(i64 4080, ptr %third)
  ret void
}

; A musttail call must stay right before its ret: check, release, call.
; CHECK-LABEL: define i32 @tail(
; CHECK:         br i1 %{{.*}}, label %scopealloc.stack_chk_fail, label %[[OK:.*]], !prof
; CHECK:       [[OK]]:
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    %r = musttail call i32 @callee(i32 %x)
; CHECK-NEXT:    ret i32 %r
define i32 @tail(i32 %x) ssp {
  %buf = alloca [4096 x i8]
  call void @use(ptr %buf)
  %r = musttail call i32 @callee(i32 %x)
  ret i32 %r
}

; CHECK-LABEL: define void @unwinds(
; CHECK:       lpad:
; CHECK-NEXT:    %lp = landingpad { ptr, i32 }
; CHECK-NEXT:            cleanup
; CHECK:         br i1 %{{.*}}, label %scopealloc.stack_chk_fail, label %lpad.canary.ok
; CHECK:       lpad.canary.ok:
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    resume { ptr, i32 } %lp
define void @unwinds() sspreq personality ptr @__gxx_personality_v0 {
entry:
  %buf = alloca [4096 x i8]
  invoke void @use(ptr %buf) to label %ok unwind label %lpad
ok:
  ret void
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp
}

; CHECK-LABEL: define void @unprotected(
; CHECK:         call nonnull align 1 ptr @__scopealloc_alloc(i64 4096, i64 1)
; CHECK-NOT:     canary
; CHECK-NOT:     __stack_chk_fail
; CHECK:         ret void
define void @unprotected() {
  %buf = alloca [4096 x i8]
  call void @use(ptr %buf)
  ret void
}

; CHECK: attributes #[[NORETURN]] = { noreturn nounwind }

declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)
