; A code generator may call the runtime itself. In a function that can
; resume (here after setjmp), the expected top also follows those calls of
; the default pool, as it follows the ones demotion made: otherwise a
; longjmp back would release the generator's buffer while it is in use.
; RUN: %opt %loadplugin -passes='scope-alloc,verify' -S %s | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)
declare i32 @_setjmp(ptr) returns_twice
declare ptr @__scopealloc_mark()
declare ptr @__scopealloc_alloc(i64, i64)
declare void @__scopealloc_release(ptr)

; CHECK-LABEL: define i32 @generated(
; CHECK:         %m = call ptr @__scopealloc_mark()
; CHECK:         %ws = call ptr @__scopealloc_alloc(i64 65536, i64 64)
; CHECK-NEXT:    [[T:%.*]] = call ptr @__scopealloc_mark()
; CHECK-NEXT:    store volatile ptr [[T]], ptr %scopealloc.top
; CHECK:         %r = call i32 @_setjmp(ptr %env)
; CHECK-NEXT:    [[R:%.*]] = load volatile ptr, ptr %scopealloc.top
; CHECK-NEXT:    call void @__scopealloc_release(ptr [[R]])
; CHECK:         call void @__scopealloc_release(ptr %m)
; CHECK-NEXT:    store volatile ptr %m, ptr %scopealloc.top
; CHECK-NEXT:    ret i32 %r
define i32 @generated(ptr %env) {
  %m = call ptr @__scopealloc_mark()
  %ws = call ptr @__scopealloc_alloc(i64 65536, i64 64)
  %r = call i32 @_setjmp(ptr %env)
  call void @use(ptr %ws)
  call void @__scopealloc_release(ptr %m)
  ret i32 %r
}

; The pass's own calls are followed once, with the generator's beside them.
; CHECK-LABEL: define i32 @both(
; CHECK:         %scopealloc.frame = call {{.*}} @__scopealloc_alloc(i64 4096, i64 16)
; CHECK-NEXT:    [[T1:%.*]] = call ptr @__scopealloc_mark()
; CHECK-NEXT:    store volatile ptr [[T1]], ptr %scopealloc.top
; CHECK-NOT:     store volatile ptr {{.*}}, ptr %scopealloc.top
; CHECK:         %ws = call ptr @__scopealloc_alloc(i64 256, i64 8)
; CHECK-NEXT:    [[T2:%.*]] = call ptr @__scopealloc_mark()
; CHECK-NEXT:    store volatile ptr [[T2]], ptr %scopealloc.top
; CHECK-NOT:     store volatile ptr {{.*}}, ptr %scopealloc.top
; CHECK:         call void @__scopealloc_release(ptr %scopealloc.mark)
; CHECK-NEXT:    store volatile ptr %scopealloc.mark, ptr %scopealloc.top
; CHECK-NEXT:    ret i32 %r
define i32 @both(ptr %env) {
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  %ws = call ptr @__scopealloc_alloc(i64 256, i64 8)
  call void @use(ptr %ws)
  %r = call i32 @_setjmp(ptr %env)
  ret i32 %r
}
