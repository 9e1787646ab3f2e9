; the coroutine intrinsics of the input are LLVM 19 IR (22's coro.end
; returns void: presplit-coroutine-22.ll).
; UNSUPPORTED: llvm-15, llvm-16, llvm-22
; A coroutine before coro-split (presplitcoroutine) keeps its allocas: its
; ramp returns at the first suspension while the coroutine lives on, so pool
; memory released at that return would be gone when it resumes (`buf` lives
; across the co_await). coro-split puts such allocas in the coroutine frame;
; the functions it makes are ordinary and are handled when scope-alloc runs
; after it, as in clang's pipelines. Its catching landing pads (the body's
; catch for unhandled_exception) still free what the frames an exception
; skipped took: the expected top is taken after coro.begin and again after
; every suspension (when the coroutine resumes, on whatever stack), in a slot
; that coro-split moves to the coroutine frame.
;
; From clang-19 (co.cpp below) with
;   clang++ -std=c++20 -O1 -emit-llvm -S -Xclang -disable-llvm-passes co.cpp
;   opt -passes='coro-early,cgscc(inline),function(sroa,early-cse,instcombine,simplifycfg),globaldce,strip-dead-prototypes'
; (still presplit: coro-split has not run):
;   void fill(char *p, int n);
;   void use(const char *p);
;   struct Task { struct promise_type { ... suspend_never initial_suspend,
;     suspend_always final_suspend ... }; std::coroutine_handle<promise_type> h; };
;   Task worker(int n) {
;     char buf[4096]; // lives across the co_await
;     fill(buf, n);
;     co_await std::suspend_always{};
;     use(buf);
;   }
;
; RUN: %opt %loadplugin -passes='scope-alloc,verify' -scope-alloc-max-stack-alloca=0 -S %s \
; RUN:   -pass-remarks-missed=scope-alloc 2>%t.remarks | FileCheck %s --check-prefix=PRESPLIT
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %opt %loadplugin -passes='scope-alloc,cgscc(coro-split),coro-cleanup,verify' -scope-alloc-max-stack-alloca=0 -S %s \
; RUN:   | FileCheck %s --check-prefix=BEFORE-SPLIT
; RUN: %opt %loadplugin -passes='cgscc(coro-split),scope-alloc,coro-cleanup,verify' -scope-alloc-max-stack-alloca=0 -S %s \
; RUN:   | FileCheck %s --check-prefix=AFTER-SPLIT

; PRESPLIT-LABEL: define dso_local ptr @_Z6workeri(
; PRESPLIT-NEXT:    %scopealloc.top = alloca ptr, align 8
; PRESPLIT:         alloca [4096 x i8], align 16
; PRESPLIT-NOT:     @__scopealloc_alloc
; PRESPLIT:         call ptr @llvm.coro.begin(
; PRESPLIT-NEXT:    [[TOP0:%.*]] = call ptr @__scopealloc_mark()
; PRESPLIT-NEXT:    store volatile ptr [[TOP0]], ptr %scopealloc.top, align 8
; PRESPLIT-NOT:     @__scopealloc_alloc
; PRESPLIT:         call i8 @llvm.coro.suspend(
; PRESPLIT-NEXT:    [[TOP1:%.*]] = call ptr @__scopealloc_mark()
; PRESPLIT-NEXT:    store volatile ptr [[TOP1]], ptr %scopealloc.top, align 8
; PRESPLIT:         landingpad
; PRESPLIT-NEXT:      catch ptr null
; PRESPLIT-NEXT:    %scopealloc.top.reload = load volatile ptr, ptr %scopealloc.top, align 8
; PRESPLIT-NEXT:    call void @__scopealloc_release(ptr %scopealloc.top.reload)
; PRESPLIT-NOT:     @__scopealloc_alloc
; PRESPLIT:       {{^}}}
; REMARK: remark: <unknown>:0:0: '%3' in 'worker(int)' (4096 bytes, align 16, scope none) cannot leave the stack: the function is a coroutine that coro-split has not split yet (its allocas that live across a suspension go to the coroutine frame; run scope-alloc after coro-split to handle the split functions) [rule cannot-move]

; scope-alloc before coro-split: the buffer is in the coroutine frame, no
; function of the coroutine allocates from the pool (the awaiters' helpers
; are ordinary functions), and the resume function restores the top it found
; when it was called at its catching landing pad.
; BEFORE-SPLIT: %_Z6workeri.Frame = type { {{.*}}[4096 x i8] }
; BEFORE-SPLIT-LABEL: define dso_local ptr @_Z6workeri(
; BEFORE-SPLIT-NOT:   {{@__scopealloc_alloc|@__scopealloc_frame_slow|@__scopealloc_tls_pool}}
; BEFORE-SPLIT:       {{^}}}
; BEFORE-SPLIT-LABEL: define internal fastcc void @_Z6workeri.resume(
; BEFORE-SPLIT-NOT:   {{@__scopealloc_alloc|@__scopealloc_frame_slow|@__scopealloc_tls_pool}}
; BEFORE-SPLIT:         [[TOP:%.*]] = call ptr @__scopealloc_mark()
; BEFORE-SPLIT-NEXT:    store volatile ptr [[TOP]], ptr [[SLOT:%.*]], align 8
; BEFORE-SPLIT-NOT:   {{@__scopealloc_alloc|@__scopealloc_frame_slow|@__scopealloc_tls_pool}}
; BEFORE-SPLIT:         landingpad
; BEFORE-SPLIT-NEXT:      catch ptr null
; BEFORE-SPLIT-NEXT:    [[RELOAD:%.*]] = load volatile ptr, ptr [[SLOT]], align 8
; BEFORE-SPLIT-NEXT:    call void @__scopealloc_release(ptr [[RELOAD]])
; BEFORE-SPLIT-NOT:   {{@__scopealloc_alloc|@__scopealloc_frame_slow|@__scopealloc_tls_pool}}
; BEFORE-SPLIT:       {{^}}}
; BEFORE-SPLIT-LABEL: define internal fastcc void @_Z6workeri.destroy(
; BEFORE-SPLIT-NOT:   {{@__scopealloc_alloc|@__scopealloc_frame_slow|@__scopealloc_tls_pool}}
; BEFORE-SPLIT:       {{^}}}
; BEFORE-SPLIT-LABEL: define internal fastcc void @_Z6workeri.cleanup(
; BEFORE-SPLIT-NOT:   {{@__scopealloc_alloc|@__scopealloc_frame_slow|@__scopealloc_tls_pool}}
; BEFORE-SPLIT:       {{^}}}

; After coro-split the ramp, resume and destroy functions are ordinary:
; their own allocas may move, and their catching landing pads restore the pool.
; AFTER-SPLIT: %_Z6workeri.Frame = type { {{.*}}[4096 x i8] }
; AFTER-SPLIT-LABEL: define internal fastcc void @_Z6workeri.resume(
; AFTER-SPLIT:         %scopealloc.top = alloca ptr
; AFTER-SPLIT:         landingpad
; AFTER-SPLIT-NEXT:      catch ptr null
; AFTER-SPLIT-NEXT:    %scopealloc.top.reload = load volatile ptr, ptr %scopealloc.top
; AFTER-SPLIT-NEXT:    call void @__scopealloc_release(ptr %scopealloc.top.reload)

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%"struct.Task::promise_type" = type { i8 }
%"struct.std::__n4861::suspend_always" = type { i8 }
%"struct.std::__n4861::coroutine_handle" = type { ptr }

$_ZNSt7__n486116coroutine_handleIN4Task12promise_typeEE12from_addressEPv = comdat any

$_ZNKSt7__n486116coroutine_handleIN4Task12promise_typeEEcvNS0_IvEEEv = comdat any

$_ZNKSt7__n486114suspend_always13await_suspendENS_16coroutine_handleIvEE = comdat any

; Function Attrs: mustprogress presplitcoroutine uwtable
define dso_local ptr @_Z6workeri(i32 noundef %0) #0 personality ptr @__gxx_personality_v0 {
  %2 = alloca %"struct.Task::promise_type", align 1
  %3 = alloca [4096 x i8], align 16
  %4 = alloca %"struct.std::__n4861::suspend_always", align 1
  %5 = alloca %"struct.std::__n4861::suspend_always", align 1
  %6 = call token @llvm.coro.id(i32 16, ptr nonnull %2, ptr nonnull @_Z6workeri, ptr null)
  %7 = call i1 @llvm.coro.alloc(token %6)
  br i1 %7, label %8, label %11

8:                                                ; preds = %1
  %9 = call i64 @llvm.coro.size.i64()
  %10 = call noalias noundef nonnull ptr @_Znwm(i64 noundef %9) #12
  br label %11

11:                                               ; preds = %8, %1
  %12 = phi ptr [ null, %1 ], [ %10, %8 ]
  %13 = call ptr @llvm.coro.begin(token %6, ptr %12) #13
  call void @llvm.lifetime.start.p0(i64 1, ptr nonnull %2) #2
  call void @llvm.lifetime.start.p0(i64 4096, ptr nonnull %3) #2
  invoke void @_Z4fillPci(ptr noundef nonnull %3, i32 noundef %0)
          to label %14 unwind label %17

14:                                               ; preds = %11
  call void @llvm.lifetime.start.p0(i64 1, ptr nonnull %4) #2
  %15 = call token @llvm.coro.save(ptr null)
  call void @llvm.coro.await.suspend.void(ptr nonnull %4, ptr %13, ptr nonnull @_Z6workeri.__await_suspend_wrapper__await) #2
  %16 = call i8 @llvm.coro.suspend(token %15, i1 false)
  switch i8 %16, label %38 [
    i8 0, label %21
    i8 1, label %22
  ]

17:                                               ; preds = %24, %11
  %18 = landingpad { ptr, i32 }
          catch ptr null
  %19 = extractvalue { ptr, i32 } %18, 0
  call void @llvm.lifetime.end.p0(i64 4096, ptr nonnull %3) #2
  %20 = call ptr @__cxa_begin_catch(ptr %19) #2
  invoke void @__cxa_end_catch()
          to label %27 unwind label %30

21:                                               ; preds = %14
  br label %22

22:                                               ; preds = %14, %21
  %23 = phi i32 [ 0, %21 ], [ 2, %14 ]
  call void @llvm.lifetime.end.p0(i64 1, ptr nonnull %4) #2
  %cond19 = icmp eq i32 %23, 0
  br i1 %cond19, label %24, label %25

24:                                               ; preds = %22
  invoke void @_Z3usePKc(ptr noundef nonnull %3)
          to label %25 unwind label %17

25:                                               ; preds = %24, %22
  %26 = phi i32 [ %23, %22 ], [ 0, %24 ]
  call void @llvm.lifetime.end.p0(i64 4096, ptr nonnull %3) #2
  %cond20 = icmp eq i32 %26, 0
  br i1 %cond20, label %27, label %34

27:                                               ; preds = %17, %25
  call void @llvm.lifetime.start.p0(i64 1, ptr nonnull %5) #2
  %28 = call token @llvm.coro.save(ptr null)
  call void @llvm.coro.await.suspend.void(ptr nonnull %5, ptr %13, ptr nonnull @_Z6workeri.__await_suspend_wrapper__final) #2
  %29 = call i8 @llvm.coro.suspend(token %28, i1 true) #13
  switch i8 %29, label %38 [
    i8 0, label %33
    i8 1, label %33
  ]

30:                                               ; preds = %17
  %31 = landingpad { ptr, i32 }
          cleanup
  %32 = call i1 @llvm.coro.end(ptr null, i1 true, token none)
  br i1 %32, label %45, label %41

33:                                               ; preds = %27, %27
  call void @llvm.lifetime.end.p0(i64 1, ptr nonnull %5) #2
  br label %34

34:                                               ; preds = %33, %25
  call void @llvm.lifetime.end.p0(i64 1, ptr nonnull %2) #2
  %35 = call ptr @llvm.coro.free(token %6, ptr %13)
  %.not18 = icmp eq ptr %35, null
  br i1 %.not18, label %38, label %36

36:                                               ; preds = %34
  %37 = call i64 @llvm.coro.size.i64()
  call void @_ZdlPvm(ptr noundef nonnull %35, i64 noundef %37) #2
  br label %38

38:                                               ; preds = %34, %36, %27, %14
  %39 = getelementptr inbounds i8, ptr %2, i64 -16
  %40 = call i1 @llvm.coro.end(ptr null, i1 false, token none) #13
  ret ptr %39

41:                                               ; preds = %30
  call void @llvm.lifetime.end.p0(i64 1, ptr nonnull %2) #2
  %42 = call ptr @llvm.coro.free(token %6, ptr %13)
  %.not = icmp eq ptr %42, null
  br i1 %.not, label %45, label %43

43:                                               ; preds = %41
  %44 = call i64 @llvm.coro.size.i64()
  call void @_ZdlPvm(ptr noundef nonnull %42, i64 noundef %44) #2
  br label %45

45:                                               ; preds = %41, %43, %30
  resume { ptr, i32 } %31
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: read)
declare token @llvm.coro.id(i32, ptr readnone, ptr nocapture readonly, ptr) #1

; Function Attrs: nounwind
declare i1 @llvm.coro.alloc(token) #2

; Function Attrs: nobuiltin allocsize(0)
declare noundef nonnull ptr @_Znwm(i64 noundef) #3

; Function Attrs: nounwind memory(none)
declare i64 @llvm.coro.size.i64() #4

; Function Attrs: nounwind
declare ptr @llvm.coro.begin(token, ptr writeonly) #2

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #5

declare i32 @__gxx_personality_v0(...)

; Function Attrs: nomerge nounwind
declare token @llvm.coro.save(ptr) #6

; Function Attrs: mustprogress nounwind uwtable
define linkonce_odr dso_local ptr @_ZNSt7__n486116coroutine_handleIN4Task12promise_typeEE12from_addressEPv(ptr noundef %0) #7 comdat align 2 {
  ret ptr %0
}

; Function Attrs: mustprogress nounwind uwtable
define linkonce_odr dso_local ptr @_ZNKSt7__n486116coroutine_handleIN4Task12promise_typeEEcvNS0_IvEEEv(ptr noundef nonnull align 8 dereferenceable(8) %0) #7 comdat align 2 {
  %2 = load ptr, ptr %0, align 8, !tbaa !5
  ret ptr %2
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #5

declare void @llvm.coro.await.suspend.void(ptr, ptr, ptr)

; Function Attrs: nounwind
declare i8 @llvm.coro.suspend(token, i1) #2

declare void @_Z4fillPci(ptr noundef, i32 noundef) #8

; Function Attrs: alwaysinline mustprogress
define private void @_Z6workeri.__await_suspend_wrapper__await(ptr noundef nonnull %0, ptr noundef %1) #9 {
  %3 = alloca %"struct.std::__n4861::coroutine_handle", align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %3) #2
  %4 = call ptr @_ZNSt7__n486116coroutine_handleIN4Task12promise_typeEE12from_addressEPv(ptr noundef %1) #2
  store ptr %4, ptr %3, align 8
  %5 = call ptr @_ZNKSt7__n486116coroutine_handleIN4Task12promise_typeEEcvNS0_IvEEEv(ptr noundef nonnull align 8 dereferenceable(8) %3) #2
  call void @_ZNKSt7__n486114suspend_always13await_suspendENS_16coroutine_handleIvEE(ptr noundef nonnull align 1 dereferenceable(1) %0, ptr %5) #2
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %3) #2
  ret void
}

; Function Attrs: mustprogress nounwind uwtable
define linkonce_odr dso_local void @_ZNKSt7__n486114suspend_always13await_suspendENS_16coroutine_handleIvEE(ptr noundef nonnull align 1 dereferenceable(1) %0, ptr %1) #7 comdat align 2 {
  ret void
}

declare void @_Z3usePKc(ptr noundef) #8

declare ptr @__cxa_begin_catch(ptr)

declare void @__cxa_end_catch()

; Function Attrs: alwaysinline mustprogress
define private void @_Z6workeri.__await_suspend_wrapper__final(ptr noundef nonnull %0, ptr noundef %1) #9 {
  %3 = alloca %"struct.std::__n4861::coroutine_handle", align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr nonnull %3) #2
  %4 = call ptr @_ZNSt7__n486116coroutine_handleIN4Task12promise_typeEE12from_addressEPv(ptr noundef %1) #2
  store ptr %4, ptr %3, align 8
  %5 = call ptr @_ZNKSt7__n486116coroutine_handleIN4Task12promise_typeEEcvNS0_IvEEEv(ptr noundef nonnull align 8 dereferenceable(8) %3) #2
  call void @_ZNKSt7__n486114suspend_always13await_suspendENS_16coroutine_handleIvEE(ptr noundef nonnull align 1 dereferenceable(1) %0, ptr %5) #2
  call void @llvm.lifetime.end.p0(i64 8, ptr nonnull %3) #2
  ret void
}

; Function Attrs: nounwind
declare i1 @llvm.coro.end(ptr, i1, token) #2

; Function Attrs: nobuiltin nounwind
declare void @_ZdlPvm(ptr noundef, i64 noundef) #10

; Function Attrs: nounwind memory(argmem: read)
declare ptr @llvm.coro.free(token, ptr nocapture readonly) #11

attributes #0 = { mustprogress presplitcoroutine uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: read) }
attributes #2 = { nounwind }
attributes #3 = { nobuiltin allocsize(0) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind memory(none) }
attributes #5 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #6 = { nomerge nounwind }
attributes #7 = { mustprogress nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #8 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #9 = { alwaysinline mustprogress "min-legal-vector-width"="0" }
attributes #10 = { nobuiltin nounwind "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #11 = { nounwind memory(argmem: read) }
attributes #12 = { allocsize(0) }
attributes #13 = { noduplicate }

!llvm.linker.options = !{}
!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!5 = !{!6, !7, i64 0}
!6 = !{!"_ZTSNSt7__n486116coroutine_handleIN4Task12promise_typeEEE", !7, i64 0}
!7 = !{!"any pointer", !8, i64 0}
!8 = !{!"omnipotent char", !9, i64 0}
!9 = !{!"Simple C++ TBAA"}
