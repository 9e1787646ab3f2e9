; Under LTO the frames are built at the link, after cross-module inlining:
; a compile step's pipeline (the LTO pre-link pipelines; clang marks their
; modules with the "ThinLTO"/"EnableSplitLTOUnit" flags) decides nothing. It
; records the -scope-alloc-* policy options on every function (the policy
; file's path made absolute), keeps the allocas' IR names, and leaves a
; reference to __scopealloc_lto_link_without_pass_plugin that only the pass
; at the link removes. The LTO backends' pipelines (ThinLTO's post-link
; optimiser, full LTO's last extension point) then decide with those options.
; RUN: rm -rf %t && mkdir %t && cd %t && cp %S/Inputs/policy.yaml .
; RUN: %opt %loadplugin -passes='thinlto-pre-link<O2>' -scope-alloc-frame-budget=100 -scope-alloc-policy=policy.yaml -scope-alloc-target=board -pass-remarks=scope-alloc %s -o %t/thin.bc 2>&1 | count 0
; RUN: %opt %loadplugin -passes='lto-pre-link<O2>' -scope-alloc-frame-budget=100 -scope-alloc-policy=policy.yaml -scope-alloc-target=board -pass-remarks=scope-alloc %s -o %t/full.bc 2>&1 | count 0
; RUN: llvm-dis %t/thin.bc -o - | FileCheck %s --check-prefix=PRELINK -DDIR=%t
; RUN: llvm-dis %t/full.bc -o - | FileCheck %s --check-prefix=PRELINK -DDIR=%t

; PRELINK: @__scopealloc_lto_link_without_pass_plugin = external global i8
; PRELINK: @scopealloc.lto.deferred = private constant ptr @__scopealloc_lto_link_without_pass_plugin
; PRELINK: @llvm.used = {{.*}}@scopealloc.lto.deferred
; PRELINK: define {{.*}}@frame({{.*}} #[[ATTRS:[0-9]+]]
; PRELINK-NEXT: %buf = alloca [800 x i8]{{.*}}!scope-alloc.name ![[NAME:[0-9]+]]
; PRELINK-NOT: __scopealloc_alloc
; PRELINK: attributes #[[ATTRS]] = {{.*}}"scope-alloc-compile-options"="frame-budget=100;target=board;policy=[[DIR]]/policy.yaml"
; PRELINK: ![[NAME]] = !{!"buf"}

; The link step's pipelines need no options (and run elsewhere): the
; recorded ones apply, and remarks name them. The marker is gone.
; RUN: cd / && %opt %loadplugin -scope-alloc-remark-sources -passes='thinlto<O2>' -pass-remarks=scope-alloc %t/thin.bc -S -o %t/thin.ll 2>&1 | FileCheck %s --check-prefix=REMARK -DDIR=%t
; RUN: cd / && %opt %loadplugin -scope-alloc-remark-sources -passes='lto<O2>' -pass-remarks=scope-alloc %t/full.bc -S -o %t/full.ll 2>&1 | FileCheck %s --check-prefix=REMARK -DDIR=%t
; RUN: FileCheck %s --check-prefix=LINKED < %t/thin.ll
; RUN: FileCheck %s --check-prefix=LINKED < %t/full.ll
; REMARK-DAG: '%buf' in 'frame' (800 bytes, {{.*}}) moved to pool 'workspace': 800 bytes exceed the limit 512 bytes (target 'board' of policy file [[DIR]]/policy.yaml (-scope-alloc-target))
; REMARK-DAG: '%flag' in 'frame' (64 bytes, {{.*}}) stays on the stack: {{.*}} fits the frame budget 100 bytes (command line)
; REMARK-DAG: '%key' in 'frame' (64 bytes, {{.*}}) moved to pool 'workspace': {{.*}} but the frame budget 100 bytes (command line) is spent
; LINKED-NOT: scopealloc.lto.deferred
; LINKED-NOT: __scopealloc_lto_link_without_pass_plugin
; LINKED: define {{.*}}@frame(
; LINKED: __scopealloc_frame_thunk

; The plugin loaded twice into the link decides once.
; RUN: %opt %loadplugin %loadplugin -passes='thinlto<O2>' -pass-remarks=scope-alloc %t/thin.bc -disable-output 2>&1 | FileCheck %s --check-prefix=ONCE
; ONCE-COUNT-1: '%flag'
; ONCE-NOT: '%flag'

; Other -scope-alloc-* options cannot reach the link: the compile step says so.
; RUN: %opt %loadplugin -passes='thinlto-pre-link<O2>' -scope-alloc-inline-fast-path=false -scope-alloc-max-stack-alloca=0 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOST
; LOST: warning: scope-alloc: -scope-alloc-inline-fast-path does not reach the LTO link, which decides where buffers live (lld cannot take the plugin's options): the link uses its default
; LOST-NOT: max-stack-alloca

; Without LTO nothing changes: the default pipeline decides at once.
; RUN: sed -e '/^!llvm.module.flags/d' %s | %opt %loadplugin -passes='default<O2>' -scope-alloc-max-stack-alloca=0 -S | FileCheck %s --check-prefix=DEFAULT
; DEFAULT-NOT: scope-alloc-compile-options
; DEFAULT-NOT: __scopealloc_lto
; DEFAULT: __scopealloc_frame_thunk

; A function that no ScopeAlloc compile step deferred (a library compiled
; without the plugin) is left alone at the link, as it would be without LTO.
; RUN: %opt -passes='thinlto-pre-link<O2>' %s -o %t/plain.bc
; RUN: %opt %loadplugin -passes='thinlto<O2>' -scope-alloc-max-stack-alloca=0 %t/plain.bc -S | FileCheck %s --check-prefix=PLAIN
; PLAIN-NOT: __scopealloc

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @use(ptr)

define void @frame() {
  %buf = alloca [800 x i8], align 16
  %flag = alloca [64 x i8], align 16
  %key = alloca [64 x i8], align 16
  call void @use(ptr %buf)
  call void @use(ptr %flag)
  call void @use(ptr %flag)
  call void @use(ptr %key)
  ret void
}

!llvm.module.flags = !{!0}
!0 = !{i32 1, !"EnableSplitLTOUnit", i32 0}
