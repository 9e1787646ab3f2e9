; A landing pad that catches but from which no path reaches a `ret` or comes
; back to the pad never lets the function go on: clang's terminate pad (`catch ptr null`
; calling __clang_call_terminate, emitted for every noexcept destructor that
; may throw), a throw() filter's __cxa_call_unexpected, the standard
; library's `catch (...) { clean up; throw; }`. Such a function has no resume
; point: its frame takes the inline fast path and it gets no expected-top
; slot (issue 23: re2's DFA::AddToQueue went through
; __scopealloc_mark/alloc/release on every call for a cold LogMessage).
; A catching pad that can go on (to a `ret`, or around a loop back to the
; pad) still keeps the calls and the slot.
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -scope-alloc-max-stack-alloca=0 -passes='scope-alloc,verify' -S %s \
; RUN:   | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)
declare i32 @__gxx_personality_v0(...)
declare void @__clang_call_terminate(ptr) noreturn nounwind
declare void @__cxa_call_unexpected(ptr) noreturn
declare ptr @__cxa_begin_catch(ptr)
declare void @__cxa_end_catch()
declare void @__cxa_rethrow()

; CHECK-LABEL: define void @terminate_pad(
; CHECK-NOT:     scopealloc.top
; CHECK-NOT:     call ptr @__scopealloc_mark()
; CHECK:         %scopealloc.fits = icmp ule
; CHECK:       terminate:
; CHECK-NEXT:    %lp = landingpad { ptr, i32 }
; CHECK-NEXT:            catch ptr null
; CHECK-NOT:     __scopealloc_release
; CHECK:         unreachable
; CHECK-NOT:     call void @__scopealloc_release
; CHECK:       {{^}}}
define void @terminate_pad() personality ptr @__gxx_personality_v0 {
entry:
  %buf = alloca [384 x i8], align 8
  invoke void @use(ptr %buf) to label %ok unwind label %terminate
ok:
  ret void
terminate:
  %lp = landingpad { ptr, i32 } catch ptr null
  %exn = extractvalue { ptr, i32 } %lp, 0
  call void @__clang_call_terminate(ptr %exn)
  unreachable
}

; CHECK-LABEL: define void @unexpected_filter(
; CHECK-NOT:     scopealloc.top
; CHECK:         %scopealloc.fits = icmp ule
; CHECK-NOT:     call void @__scopealloc_release
; CHECK:       {{^}}}
define void @unexpected_filter() personality ptr @__gxx_personality_v0 {
entry:
  %buf = alloca [384 x i8], align 8
  invoke void @use(ptr %buf) to label %ok unwind label %filter
ok:
  ret void
filter:
  %lp = landingpad { ptr, i32 } filter [0 x ptr] zeroinitializer
  %exn = extractvalue { ptr, i32 } %lp, 0
  call void @__cxa_call_unexpected(ptr %exn)
  unreachable
}

; A terminate pad beside a cleanup pad that resumes: still no resume point;
; the cleanup path releases before `resume` with a store.
; CHECK-LABEL: define void @terminate_and_cleanup(
; CHECK-NOT:     scopealloc.top
; CHECK:         %scopealloc.fits = icmp ule
; CHECK:       cleanup:
; CHECK:         store atomic ptr %scopealloc.mark, ptr {{%scopealloc.pool|@__scopealloc_tls_pool}} monotonic
; CHECK-NEXT:    resume
define void @terminate_and_cleanup() personality ptr @__gxx_personality_v0 {
entry:
  %buf = alloca [384 x i8], align 8
  invoke void @use(ptr %buf) to label %next unwind label %cleanup
next:
  invoke void @use(ptr %buf) to label %ok unwind label %terminate
ok:
  ret void
cleanup:
  %c = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %c
terminate:
  %lp = landingpad { ptr, i32 } catch ptr null
  %exn = extractvalue { ptr, i32 } %lp, 0
  call void @__clang_call_terminate(ptr %exn)
  unreachable
}

; A catch-all pad that goes on (here to the return) is a resume point.
; CHECK-LABEL: define void @catch_that_goes_on(
; CHECK:         %scopealloc.top = alloca ptr
; CHECK-NOT:     scopealloc.fits
; CHECK:         call nonnull align 8 ptr @__scopealloc_alloc(i64 384, i64 8)
; CHECK:       lpad:
; CHECK-NEXT:    %lp = landingpad { ptr, i32 }
; CHECK-NEXT:            catch ptr null
; CHECK-NEXT:    %scopealloc.top.reload = load volatile ptr, ptr %scopealloc.top
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.top.reload)
define void @catch_that_goes_on() personality ptr @__gxx_personality_v0 {
entry:
  %buf = alloca [384 x i8], align 8
  invoke void @use(ptr %buf) to label %ok unwind label %lpad
ok:
  ret void
lpad:
  %lp = landingpad { ptr, i32 } catch ptr null
  br label %ok
}

; catch (...) { clean up; throw; }, as in std::deque and std::unordered_map:
; the clean-up may loop (freeing nodes) as long as it never comes back to the
; pad.
; CHECK-LABEL: define void @catch_and_rethrow(
; CHECK-NOT:     scopealloc.top
; CHECK:         %scopealloc.fits = icmp ule
; CHECK:       lpad:
; CHECK-NEXT:    %lp = landingpad { ptr, i32 }
; CHECK-NEXT:            catch ptr null
; CHECK-NOT:     __scopealloc_release
; CHECK:         invoke void @__cxa_rethrow()
; CHECK:       cleanup:
; CHECK:         store atomic ptr %scopealloc.mark, ptr {{%scopealloc.pool|@__scopealloc_tls_pool}} monotonic
; CHECK-NEXT:    resume
define void @catch_and_rethrow() personality ptr @__gxx_personality_v0 {
entry:
  %buf = alloca [384 x i8], align 8
  invoke void @use(ptr %buf) to label %ok unwind label %lpad
ok:
  ret void
lpad:
  %lp = landingpad { ptr, i32 } catch ptr null
  %exn = extractvalue { ptr, i32 } %lp, 0
  %caught = call ptr @__cxa_begin_catch(ptr %exn)
  br label %free
free:
  %i = phi i32 [ 0, %lpad ], [ %i.next, %free ]
  call void @use(ptr %buf)
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, 8
  br i1 %more, label %free, label %rethrow
rethrow:
  invoke void @__cxa_rethrow() to label %never unwind label %cleanup
cleanup:
  %c = landingpad { ptr, i32 } cleanup
  invoke void @__cxa_end_catch() to label %resume unwind label %terminate
resume:
  resume { ptr, i32 } %c
never:
  unreachable
terminate:
  %t = landingpad { ptr, i32 } catch ptr null
  %texn = extractvalue { ptr, i32 } %t, 0
  call void @__clang_call_terminate(ptr %texn)
  unreachable
}

; A handler that goes back around a loop without reaching a `ret` (a server
; loop) is a resume point: each throw's skipped frames would pile up.
; CHECK-LABEL: define void @catch_in_endless_loop(
; CHECK:         %scopealloc.top = alloca ptr
; CHECK-NOT:     scopealloc.fits
; CHECK:       lpad:
; CHECK-NEXT:    %lp = landingpad { ptr, i32 }
; CHECK-NEXT:            catch ptr null
; CHECK-NEXT:    %scopealloc.top.reload = load volatile ptr, ptr %scopealloc.top
; CHECK-NEXT:    call void @__scopealloc_release(ptr %scopealloc.top.reload)
define void @catch_in_endless_loop() personality ptr @__gxx_personality_v0 {
entry:
  %buf = alloca [384 x i8], align 8
  br label %loop
loop:
  invoke void @use(ptr %buf) to label %loop unwind label %lpad
lpad:
  %lp = landingpad { ptr, i32 } catch ptr null
  br label %loop
}
