; The LTO link cannot take -scope-alloc-slow-path (lld parses -mllvm before
; loading the plugin), and its default is the installed runtime's. A
; compile step given the option explicitly knows better (it is building
; against another runtime, e.g. one built by GCC): it records the option on
; each function, without the "does not reach the LTO link" warning, and
; the link step follows it. Without the option nothing is recorded and the
; link uses its default.
; RUN: rm -rf %t && mkdir %t
; RUN: %opt %loadplugin -passes='lto-pre-link<O2>' -scope-alloc-slow-path=standard %s -o %t/std.bc 2>&1 | count 0
; RUN: %opt %loadplugin -passes='thinlto-pre-link<O2>' -scope-alloc-slow-path=standard %s -o %t/thin.bc 2>&1 | count 0
; RUN: %opt %loadplugin -passes='lto-pre-link<O2>' %s -o %t/default.bc
; RUN: llvm-dis %t/std.bc -o - | FileCheck %s --check-prefix=PRELINK
; RUN: llvm-dis %t/default.bc -o - | FileCheck %s --check-prefix=PRELINK-DEFAULT
; RUN: %opt %loadplugin -passes='lto<O2>' -scope-alloc-slow-path=preserve-most %t/std.bc -S | FileCheck %s --check-prefix=LINK-STD
; RUN: %opt %loadplugin -passes='thinlto<O2>' -scope-alloc-slow-path=preserve-most %t/thin.bc -S | FileCheck %s --check-prefix=LINK-STD
; RUN: %opt %loadplugin -passes='lto<O2>' -scope-alloc-slow-path=preserve-most %t/default.bc -S | FileCheck %s --check-prefix=LINK-PM

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define void @big() {
entry:
  %buf = alloca [4096 x i8], align 16
  call void @use(ptr %buf)
  ret void
}

; PRELINK: attributes #{{[0-9]+}} = {{.*}}"scope-alloc-slow-path"="standard"
; PRELINK-DEFAULT-NOT: scope-alloc-slow-path

; LINK-STD-NOT:  @__scopealloc_frame_slow
; LINK-STD:      call {{.*}}ptr @__scopealloc_mark()
; LINK-STD:      @__scopealloc_alloc(i64 4096, i64 16)
; LINK-STD-NOT:  @__scopealloc_frame_slow

; LINK-PM:       call preserve_mostcc { ptr, ptr } @__scopealloc_frame_slow(i64 4096, i64 16)

; What clang -flto adds, which marks a compile step of an LTO build.
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"EnableSplitLTOUnit", i32 0}
