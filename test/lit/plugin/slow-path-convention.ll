; -scope-alloc-slow-path picks the inline fast path's slow call on x86-64
; and AArch64: preserve-most calls __scopealloc_frame_slow (which only a
; runtime built by clang >= 17 defines), standard calls __scopealloc_mark
; and __scopealloc_alloc (any runtime, GCC's too). The fast path is the same
; bump either way. A function attribute recorded by an LTO compile step
; (lto/slow-path-recorded.ll) wins over the option; a bad value of either
; is diagnosed.
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -passes=scope-alloc -scope-alloc-slow-path=preserve-most -S %s | FileCheck %s --check-prefixes=COMMON,PM
; RUN: %opt %loadplugin -scope-alloc-fast-path=checked -passes=scope-alloc -scope-alloc-slow-path=standard -S %s | FileCheck %s --check-prefixes=COMMON,STD
; RUN: sed -e 's/^target datalayout.*//' -e 's/x86_64-unknown-linux-gnu/aarch64-unknown-linux-gnu/' %s \
; RUN:   | %opt %loadplugin -scope-alloc-fast-path=checked -passes=scope-alloc -scope-alloc-slow-path=standard -S | FileCheck %s --check-prefixes=COMMON,STD
; AArch64 before LLVM 18 ignores nonlazybind: standard whatever the option
; (slow-path-aarch64-before-18.ll).
; RUN: %if aarch64-nonlazybind %{ sed -e 's/^target datalayout.*//' -e 's/x86_64-unknown-linux-gnu/aarch64-unknown-linux-gnu/' %s \
; RUN:   | %opt %loadplugin -scope-alloc-fast-path=checked -passes=scope-alloc -scope-alloc-slow-path=preserve-most -S | FileCheck %s --check-prefixes=COMMON,PM %}
; RUN: sed 's/^;ATTR: //' %s | %opt %loadplugin -scope-alloc-fast-path=checked -passes=scope-alloc -scope-alloc-slow-path=preserve-most -S \
; RUN:   | FileCheck %s --check-prefixes=COMMON,STD
; RUN: sed 's/^;BADATTR: //' %s | %opt %loadplugin -scope-alloc-fast-path=checked -passes=scope-alloc -scope-alloc-slow-path=preserve-most \
; RUN:   -S -o %t.ll 2>&1 | FileCheck %s --check-prefix=BADATTR-WARN
; RUN: FileCheck %s --check-prefixes=COMMON,STD < %t.ll
; RUN: not %opt %loadplugin -scope-alloc-fast-path=checked -passes=scope-alloc -scope-alloc-slow-path=preservemost -S %s 2>&1 \
; RUN:   | FileCheck %s --check-prefix=BAD

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define void @big() #0 {
entry:
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  ret void
}

; COMMON-LABEL: define void @big()
; COMMON:       %scopealloc.fits = icmp ule ptr %scopealloc.end, %scopealloc.bound
; COMMON:     scopealloc.fast:
; COMMON-NEXT:  store atomic ptr %scopealloc.end, ptr {{.*}} monotonic
; COMMON:     scopealloc.slow:
; PM-NEXT:      %[[F:.*]] = call preserve_mostcc { ptr, ptr } @__scopealloc_frame_slow(i64 4096, i64 16)
; PM-NOT:       @__scopealloc_mark
; PM-NOT:       @__scopealloc_alloc(
; STD-NOT:      @__scopealloc_frame_slow
; STD-NEXT:     %[[M:.*]] = call ptr @__scopealloc_mark()
; STD-NEXT:     %[[A:.*]] = call {{.*}}ptr @__scopealloc_alloc(i64 4096, i64 16)
; STD-NOT:      @__scopealloc_frame_slow
; COMMON:     scopealloc.frame.ready:

; BADATTR-WARN: warning: scope-alloc: in function 'big': unknown "scope-alloc-slow-path"="fast": the slow path uses the standard convention
; BAD: for the {{-+}}scope-alloc-slow-path option: Cannot find option named 'preservemost'!

;ATTR: attributes #0 = { "scope-alloc-slow-path"="standard" }
;BADATTR: attributes #0 = { "scope-alloc-slow-path"="fast" }
