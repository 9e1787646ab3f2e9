; Where execution can resume after frames were skipped (a landing pad that
; catches, a second return from setjmp), the default pool is restored to the
; top this frame expects, kept in a volatile slot that every alloc and
; release of the frame updates. Frames that move nothing get it too; cleanup
; landing pads do not need it (they end in resume).
; RUN: %opt %loadplugin -passes='scope-alloc,verify' -S %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)
declare void @may_throw()
declare i32 @__gxx_personality_v0(...)
declare i32 @_setjmp(ptr) returns_twice
declare ptr @__cxa_begin_catch(ptr)
declare void @__cxa_end_catch()

; CHECK-LABEL: define void @catches_without_buffers(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %scopealloc.top = alloca ptr, align 8
; CHECK-NEXT:    [[TOP:%.*]] = call ptr @__scopealloc_mark()
; CHECK-NEXT:    store volatile ptr [[TOP]], ptr %scopealloc.top, align 8
; CHECK:       lpad:
; CHECK-NEXT:    %lp = landingpad { ptr, i32 }
; CHECK-NEXT:            catch ptr null
; CHECK-NEXT:    %scopealloc.top.reload = load volatile ptr, ptr %scopealloc.top, align 8
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.top.reload)
define void @catches_without_buffers() personality ptr @__gxx_personality_v0 {
entry:
  invoke void @may_throw() to label %ok unwind label %lpad
ok:
  ret void
lpad:
  %lp = landingpad { ptr, i32 } catch ptr null
  %exn = extractvalue { ptr, i32 } %lp, 0
  %c = call ptr @__cxa_begin_catch(ptr %exn)
  call void @__cxa_end_catch()
  ret void
}

; The frame's own buffer and VLA stay: the slot follows every alloc.
; CHECK-LABEL: define void @catches_with_buffers(
; CHECK:         %scopealloc.frame = call nonnull align 1 ptr @__scopealloc_alloc(i64 4096, i64 1)
; CHECK-NEXT:    [[T1:%.*]] = call ptr @__scopealloc_mark()
; CHECK-NEXT:    store volatile ptr [[T1]], ptr %scopealloc.top
; CHECK:         %vla = call nonnull align 1 ptr @__scopealloc_alloc(i64 %n, i64 1)
; CHECK-NEXT:    [[T2:%.*]] = call ptr @__scopealloc_mark()
; CHECK-NEXT:    store volatile ptr [[T2]], ptr %scopealloc.top
; CHECK:       lpad:
; CHECK-NEXT:    landingpad
; CHECK-NEXT:            catch ptr null
; CHECK-NEXT:    [[R:%.*]] = load volatile ptr, ptr %scopealloc.top
; CHECK-NEXT:    call void @__scopealloc_release(ptr [[R]])
define void @catches_with_buffers(i64 %n) personality ptr @__gxx_personality_v0 {
entry:
  %buf = alloca [4096 x i8]
  call void @use(ptr %buf)
  %vla = alloca i8, i64 %n
  invoke void @use(ptr %vla) to label %ok unwind label %lpad
ok:
  ret void
lpad:
  %lp = landingpad { ptr, i32 } catch ptr null
  ret void
}

; A release (stackrestore) moves the expected top down to its mark.
; CHECK-LABEL: define void @restores(
; CHECK:         call void @__scopealloc_release(ptr %sp)
; CHECK-NEXT:    store volatile ptr %sp, ptr %scopealloc.top
define void @restores(i64 %n) personality ptr @__gxx_personality_v0 {
entry:
  %sp = call ptr @llvm.stacksave()
  %vla = alloca i8, i64 %n
  call void @use(ptr %vla)
  call void @llvm.stackrestore(ptr %sp)
  invoke void @may_throw() to label %ok unwind label %lpad
ok:
  ret void
lpad:
  %lp = landingpad { ptr, i32 } catch ptr null
  ret void
}

; CHECK-LABEL: define i32 @jumps_back(
; CHECK:         %r = call i32 @_setjmp(ptr %env)
; CHECK-NEXT:    [[R2:%.*]] = load volatile ptr, ptr %scopealloc.top
; CHECK-NEXT:    call void @__scopealloc_release(ptr [[R2]])
define i32 @jumps_back(ptr %env) {
  %r = call i32 @_setjmp(ptr %env)
  ret i32 %r
}

; CHECK-LABEL: define void @cleanup_only(
; CHECK-NOT:     scopealloc.top
; CHECK-NOT:     __scopealloc
; CHECK:         resume
define void @cleanup_only() personality ptr @__gxx_personality_v0 {
entry:
  invoke void @may_throw() to label %ok unwind label %lpad
ok:
  ret void
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp
}

declare ptr @llvm.stacksave()
declare void @llvm.stackrestore(ptr)
