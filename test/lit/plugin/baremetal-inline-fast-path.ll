; Arm bare metal (issue 48): the default pool's frame is bumped inline from
; the fixed pool 'workspace', whose fields hold the running task's arena
; (the task switch copies its state in place): load cur and bound, add,
; compare, store; the release is a store. The slow path is one call of
; __scopealloc_alloc, whose frame is its own mark (one value live through
; the function; more than 8 of alignment still takes __scopealloc_mark) (a new peak, a task's first frame, an RTOS identity word, a
; frame of another task: the runtime sets bound to NULL, see
; runtime/src/internal.h, sa_default_bound). The top is a multiple of 8 on
; bare metal (the runtime rounds to SCOPEALLOC_MIN_ALIGN, as scopealloc-bound
; counts bumps), so the size rounds to 8 and a frame aligned to at most 8
; starts at cur. Plain loads and stores (Cortex-M0 has no atomics), with
; compiler barriers that keep the frame's accesses between the claim and
; the release for interrupt handlers.
;
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=256 -passes='scope-alloc,verify' -S %s | FileCheck %s --check-prefix=IR
;
; The generated code, and its fast path against the stack frame's: within 8
; instructions on Cortex-M4 (thumbv7em) and Cortex-M0 (thumbv6m).
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=256 -passes=scope-alloc %s | llc -O2 -o %t.v7em.s
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=65536 -passes=scope-alloc %s | llc -O2 -o %t.v7em.stack.s
; RUN: FileCheck %s --check-prefix=V7EM < %t.v7em.s
; RUN: awk -v fn=frame -v budget=8 -f %S/Inputs/fast-path-count.awk %t.v7em.stack.s %t.v7em.s | FileCheck %s --check-prefix=COUNT-V7EM
; RUN: sed -e 's/thumbv7em-none-unknown-eabi/thumbv6m-none-unknown-eabi/' %s > %t.v6m.ll
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=256 -passes=scope-alloc %t.v6m.ll | llc -O2 -o %t.v6m.s
; RUN: %opt %loadplugin -scope-alloc-max-stack-alloca=65536 -passes=scope-alloc %t.v6m.ll | llc -O2 -o %t.v6m.stack.s
; RUN: FileCheck %s --check-prefix=V6M < %t.v6m.s
; RUN: awk -v fn=frame -v budget=8 -f %S/Inputs/fast-path-count.awk %t.v6m.stack.s %t.v6m.s | FileCheck %s --check-prefix=COUNT-V6M

target datalayout = "e-m:e-p:32:32-Fi8-i64:64-v128:64:128-a:0:32-n32-S64"
target triple = "thumbv7em-none-unknown-eabi"

declare void @use(ptr)

; IR-LABEL: define void @frame(
; IR:         %scopealloc.cur = load ptr, ptr @__scopealloc_pool_workspace, align 4
; IR-NEXT:    %scopealloc.bound = load ptr, ptr getelementptr inbounds {{.*}}(%scopealloc.pool, ptr @__scopealloc_pool_workspace, i32 0, i32 4), align 4
; IR-NEXT:    %scopealloc.end = getelementptr i8, ptr %scopealloc.cur, i32 4096
; IR-NEXT:    %scopealloc.fits = icmp ule ptr %scopealloc.end, %scopealloc.bound
; IR-NOT:     @__scopealloc_mark
; IR:       scopealloc.fast:
; IR-NEXT:    store ptr %scopealloc.end, ptr @__scopealloc_pool_workspace, align 4
; IR-NEXT:    fence syncscope("singlethread") seq_cst
; IR:       scopealloc.slow:
; IR-NEXT:    %[[SLOW:[0-9]+]] = call nonnull align 8 ptr @__scopealloc_alloc(i32 4096, i32 8)
; IR:         %scopealloc.mark = phi ptr [ %scopealloc.cur, %scopealloc.fast ], [ %[[SLOW]], %scopealloc.slow ]
; IR:         call void @use(
; IR-NEXT:    fence syncscope("singlethread") seq_cst
; IR-NEXT:    store ptr %scopealloc.mark, ptr @__scopealloc_pool_workspace, align 4
; IR-NEXT:    ret void
;
; V7EM-LABEL: frame:
; V7EM:         push {{{.*}}lr}
; V7EM-NEXT:    movw [[POOL:r[0-9]+]], :lower16:__scopealloc_pool_workspace
; V7EM-NEXT:    movt [[POOL]], :upper16:__scopealloc_pool_workspace
; V7EM-NEXT:    ldr [[CUR:r[0-9]+]], {{\[}}[[POOL]]]
; V7EM-NEXT:    ldr [[BOUND:r[0-9]+]], {{\[}}[[POOL]], #16]
; V7EM-NEXT:    add.w [[END:r[0-9]+]], [[CUR]], #4096
; V7EM-NEXT:    cmp [[END]], [[BOUND]]
; V7EM-NEXT:    bhi [[SLOW:.LBB[0-9_]+]]
; V7EM:         str [[END]], {{\[}}[[POOL]]]
; V7EM:         bl use
; V7EM:         str [[CUR]], {{\[}}[[POOL]]]
; V7EM-NEXT:    pop {{{.*}}pc}
; V7EM:       [[SLOW]]:
; V7EM-NOT:     __scopealloc_mark
; V7EM:         bl __scopealloc_alloc
; V7EM-NOT:     __scopealloc_release
; V7EM:       .Lfunc_end0:
; LLVM 22: 6 and 13 (+7) on thumbv7em, 8 and 14 (+6) on thumbv6m.
; COUNT-V7EM: stack frame: {{[0-9]+}} instructions; demoted frame: {{[0-9]+}}; +{{[0-8]}} within 8
;
; V6M-LABEL: frame:
; V6M:          ldr [[POOL:r[0-9]+]], .LCPI0_0
; V6M-NEXT:     ldr [[CUR:r[0-9]+]], {{\[}}[[POOL]]]
; V6M:          ldr [[BOUND:r[0-9]+]], {{\[}}[[POOL]], #16]
; V6M-NEXT:     cmp r{{[0-9]+}}, [[BOUND]]
; V6M-NEXT:     bhi [[SLOW:.LBB[0-9_]+]]
; V6M:          str r{{[0-9]+}}, {{\[}}[[POOL]]]
; V6M:          bl use
; V6M:          str [[CUR]], {{\[}}[[POOL]]]
; V6M-NEXT:     pop {{{.*}}pc}
; V6M:        [[SLOW]]:
; V6M-NOT:      __scopealloc_mark
; V6M:          bl __scopealloc_alloc
; V6M-NOT:      __scopealloc_release
; V6M:          .long __scopealloc_pool_workspace
; COUNT-V6M: stack frame: {{[0-9]+}} instructions; demoted frame: {{[0-9]+}}; +{{[0-8]}} within 8
define void @frame() {
  %buf = alloca [4096 x i8], align 4
  call void @use(ptr %buf)
  ret void
}

; An odd size rounds up to 8; more than 8 of alignment aligns cur first.
; IR-LABEL: define void @odd_aligned(
; IR:         %scopealloc.cur = load ptr, ptr @__scopealloc_pool_workspace
; IR:         call ptr @llvm.ptrmask.p0.i32(ptr {{.*}}, i32 -32)
; IR:         getelementptr i8, ptr %{{.*}}, i32 304
; IR:         call ptr @__scopealloc_mark()
; IR-NEXT:    call nonnull align 32 ptr @__scopealloc_alloc(i32 301, i32 32)
define void @odd_aligned() {
  %buf = alloca [301 x i8], align 32
  call void @use(ptr %buf)
  ret void
}
