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
; Inline, the top moves by the frame rounded up to the pool's 16-byte
; granule; the slow path gets the frame as it is.
; INLINE-LABEL: define i32 @two(
; INLINE:         %scopealloc.end = getelementptr i8, ptr %{{.*}}, i64 384
; INLINE:         call { ptr, ptr } asm sideeffect "mov -8(%rsp), %r11\0A\09call *__scopealloc_frame_thunk_regs@GOTPCREL(%rip)\0A\09mov %r11, -8(%rsp)"{{.*}}(i64 372, i64 16)
; INLINE:       then.canary.ok:
; (LLVM 15 has no llvm.threadlocal.address: the pool global is its own address.)
; INLINE-NEXT:    store atomic ptr %scopealloc.mark, ptr {{%scopealloc.pool|@__scopealloc_tls_pool}} monotonic, align 8
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

; A dynamic allocation gets a canary after its bytes too. A slot per site
; holds the site's latest canary: a redirected stackrestore checks it when
; it frees it (allocated at or above the mark) and forgets it; an exit
; checks what is left. An empty slot compares the guard with its copy.
; CHECK-LABEL: define void @vla_loop(
; CHECK:       entry:
; CHECK-NEXT:    %scopealloc.guard.copy = alloca i64
; CHECK-NEXT:    %scopealloc.canary.slot = alloca ptr
; CHECK:         store i64 %{{.*}}, ptr %scopealloc.guard.copy
; CHECK-NEXT:    store ptr null, ptr %scopealloc.canary.slot
; CHECK:       body:
; CHECK:         %sp = call ptr @__scopealloc_mark()
; CHECK-NEXT:    %[[BYTES:.*]] = mul i64 %n, 4
; CHECK-NEXT:    %[[WITH:.*]] = add i64 %[[BYTES]], 8
; CHECK-NEXT:    %vla = call nonnull align 4 ptr @__scopealloc_alloc(i64 %[[WITH]], i64 4)
; CHECK-NEXT:    %[[CANARY:.*]] = getelementptr inbounds i8, ptr %vla, i64 %[[BYTES]]
; CHECK-NEXT:    %[[G:.*]] = load volatile i64, ptr addrspace(257) inttoptr (i32 40 to ptr addrspace(257))
; CHECK-NEXT:    store volatile i64 %[[G]], ptr %[[CANARY]], align 1
; CHECK-NEXT:    store ptr %[[CANARY]], ptr %scopealloc.canary.slot
; CHECK-NEXT:    call void @use(ptr %vla)
; CHECK-NEXT:    %[[G2:.*]] = load volatile i64
; CHECK-NEXT:    %[[LAST:.*]] = load ptr, ptr %scopealloc.canary.slot
; CHECK-NEXT:    %[[SOME:.*]] = icmp ne ptr %[[LAST]], null
; CHECK-NEXT:    %[[ABOVE:.*]] = icmp uge ptr %[[LAST]], %sp
; CHECK-NEXT:    %[[FREED:.*]] = and i1 %[[SOME]], %[[ABOVE]]
; CHECK-NEXT:    %[[KEPT:.*]] = select i1 %[[FREED]], ptr null, ptr %[[LAST]]
; CHECK-NEXT:    %[[ADDR:.*]] = select i1 %[[FREED]], ptr %[[LAST]], ptr %scopealloc.guard.copy
; CHECK-NEXT:    %[[C:.*]] = load volatile i64, ptr %[[ADDR]], align 1
; CHECK-NEXT:    %[[X:.*]] = xor i64 %[[C]], %[[G2]]
; CHECK-NEXT:    %[[S:.*]] = icmp ne i64 %[[X]], 0
; CHECK-NEXT:    br i1 %[[S]], label %scopealloc.stack_chk_fail, label %body.canary.ok
; CHECK:       body.canary.ok:
; CHECK-NEXT:    store ptr %[[KEPT]], ptr %scopealloc.canary.slot
; CHECK-NEXT:    call void @__scopealloc_release(ptr %sp)
; CHECK:       exit:
; CHECK:         %[[LAST2:.*]] = load ptr, ptr %scopealloc.canary.slot
; CHECK-NEXT:    %[[SOME2:.*]] = icmp ne ptr %[[LAST2]], null
; CHECK-NEXT:    select i1 %[[SOME2]], ptr %[[LAST2]], ptr %scopealloc.guard.copy
; CHECK:         br i1 %{{.*}}, label %scopealloc.stack_chk_fail, label %exit.canary.ok
; CHECK:       exit.canary.ok:
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    ret void
define void @vla_loop(i64 %n) sspstrong {
entry:
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %sp = call ptr @llvm.stacksave()
  %vla = alloca i32, i64 %n, align 4
  call void @use(ptr %vla)
  call void @llvm.stackrestore(ptr %sp)
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, 10
  br i1 %done, label %exit, label %body
exit:
  ret void
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

declare ptr @llvm.stacksave()
declare void @llvm.stackrestore(ptr)
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)
