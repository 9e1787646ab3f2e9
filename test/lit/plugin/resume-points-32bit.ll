; On 32-bit targets a pointer is 4-aligned: the resume-point slot and every
; load and store the pass emits use the data layout's alignment, never a
; hard-coded 8 (an 8-aligned access to a 4-aligned slot claims more than the
; slot guarantees). Frames with setjmp and with a catching landing pad, and
; the inline fast path, for armv7 and i686.
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -scope-alloc-count-inline-frames -passes='scope-alloc,verify' -S %s \
; RUN:   -mtriple=armv7-unknown-linux-gnueabihf \
; RUN:   -data-layout='e-m:e-p:32:32-Fi8-i64:64-v128:64:128-a:0:32-n32-S64' \
; RUN:   | FileCheck %s --check-prefixes=CHECK,ARM
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -scope-alloc-count-inline-frames -passes='scope-alloc,verify' -S %s \
; RUN:   -mtriple=i686-unknown-linux-gnu \
; RUN:   -data-layout='e-m:e-p:32:32-p270:32:32-p271:32:32-p272:64:64-i128:128-f64:32:64-f80:32-n8:16:32-S128' \
; RUN:   | FileCheck %s --check-prefixes=CHECK,X86
; No access to the slot or the pool claims 8-byte alignment on either target
; (the only 8-aligned accesses are armv7's i64 counter, whose i64 is 8-aligned).
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -scope-alloc-count-inline-frames -passes='scope-alloc,verify' -S %s \
; RUN:   -mtriple=i686-unknown-linux-gnu \
; RUN:   -data-layout='e-m:e-p:32:32-p270:32:32-p271:32:32-p272:64:64-i128:128-f64:32:64-f80:32-n8:16:32-S128' \
; RUN:   | FileCheck %s --check-prefix=NO8
; NO8-NOT: {{(load|store).*}}, align 8

declare void @use(ptr)
declare i32 @__gxx_personality_v0(...)
declare i32 @_setjmp(ptr) returns_twice
declare ptr @__cxa_begin_catch(ptr)
declare void @__cxa_end_catch()

; CHECK-LABEL: define void @setjmp_frame(
; CHECK:         %scopealloc.top = alloca ptr, align 4
; CHECK:         store volatile ptr {{%.*}}, ptr %scopealloc.top, align 4
; CHECK:         call nonnull align 16 ptr @__scopealloc_alloc(i32 4096, i32 16)
; CHECK:         store volatile ptr {{%.*}}, ptr %scopealloc.top, align 4
; CHECK:         %r = call i32 @_setjmp(
; CHECK-NEXT:    %scopealloc.top.reload = load volatile ptr, ptr %scopealloc.top, align 4
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.top.reload)
; CHECK:         store volatile ptr %scopealloc.mark, ptr %scopealloc.top, align 4
; CHECK-NEXT:    ret void
define void @setjmp_frame(ptr %env) {
entry:
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  %r = call i32 @_setjmp(ptr %env)
  call void @use(ptr %buf)
  ret void
}

; CHECK-LABEL: define void @catching_frame(
; CHECK:         %scopealloc.top = alloca ptr, align 4
; CHECK:         store volatile ptr {{%.*}}, ptr %scopealloc.top, align 4
; CHECK:       lpad:
; CHECK-NEXT:    %lp = landingpad
; CHECK-NEXT:      catch ptr null
; CHECK-NEXT:    %scopealloc.top.reload = load volatile ptr, ptr %scopealloc.top, align 4
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.top.reload)
define void @catching_frame() personality ptr @__gxx_personality_v0 {
entry:
  %buf = alloca [4096 x i8], align 8
  invoke void @use(ptr %buf) to label %ok unwind label %lpad
ok:
  ret void
lpad:
  %lp = landingpad { ptr, i32 } catch ptr null
  %exn = extractvalue { ptr, i32 } %lp, 0
  %c = call ptr @__cxa_begin_catch(ptr %exn)
  call void @__cxa_end_catch()
  ret void
}

; The inline bump reads and writes the pool's pointers 4-aligned; its i64
; allocation counter (-scope-alloc-count-inline-frames) has the target's i64
; alignment (8 on armv7, 4 on i686).
; (LLVM 15 has no llvm.threadlocal.address: the pool global is its own address.)
; CHECK-LABEL: define void @inline_frame(
; CHECK:         %scopealloc.cur = load atomic ptr, ptr {{%scopealloc.pool|@__scopealloc_tls_pool}} unordered, align 4
; CHECK:         %scopealloc.bound = load atomic ptr, ptr {{.*}} unordered, align 4
; CHECK:       scopealloc.fast:
; CHECK-NEXT:    store atomic ptr %scopealloc.end, ptr {{%scopealloc.pool|@__scopealloc_tls_pool}} monotonic, align 4
; ARM:           %scopealloc.allocs = load i64, ptr {{.*}}, align 8
; X86:           %scopealloc.allocs = load i64, ptr {{.*}}, align 4
; CHECK:         store atomic ptr %scopealloc.mark, ptr {{%scopealloc.pool|@__scopealloc_tls_pool}} monotonic, align 4
; CHECK-NEXT:    ret void
define void @inline_frame() {
entry:
  %buf = alloca [4096 x i8], align 4
  call void @use(ptr %buf)
  ret void
}
