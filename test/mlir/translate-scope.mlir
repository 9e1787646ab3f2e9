// scopealloc-mlir-translate --mlir-to-llvmir: `scopealloc.scope = "<scope>"`
// on llvm.alloca becomes `!scope !{!"<scope>"}` on the alloca, in every form
// the LLVM dialect has (constant and dynamic count, with alignment, in a
// loop); on llvm.call (a tagged workspace call) it goes on the call. The
// spelling is left to the pass: an unknown scope passes through unchanged.
// Everything else is translated exactly as mlir-translate-22 does.
// RUN: %sa_translate --mlir-to-llvmir %s | FileCheck %s
// RUN: %sa_translate --mlir-to-llvmir %s -o %t.ll
// RUN: %opt -passes=verify -disable-output %t.ll
// Without scopealloc attributes the output is mlir-translate-22's.
// RUN: sed -e 's/ {scopealloc.scope = "[^"]*"}//' -e 's/, scopealloc.scope = "[^"]*"//' %s > %t.plain.mlir
// RUN: %sa_translate --mlir-to-llvmir %t.plain.mlir -o %t.ours.ll
// RUN: %mlir_translate --mlir-to-llvmir %t.plain.mlir -o %t.upstream.ll
// RUN: diff %t.upstream.ll %t.ours.ll
// With debug info (locations as DILocations; LLVM 22 writes only debug
// records):
// RUN: %mlir_opt %t.plain.mlir --mlir-print-debuginfo --pass-pipeline='builtin.module(ensure-debug-info-scope-on-llvm-func)' -o %t.dbg.mlir
// RUN: %sa_translate --mlir-to-llvmir %t.dbg.mlir -o %t.ours.dbg.ll
// RUN: %mlir_translate --mlir-to-llvmir %t.dbg.mlir -o %t.upstream.dbg.ll
// RUN: diff %t.upstream.dbg.ll %t.ours.dbg.ll
// RUN: FileCheck %s --check-prefix=DBG < %t.ours.dbg.ll
// DBG: !DILocation(

// CHECK-LABEL: define float @constant_count()
// CHECK: %[[P:.*]] = alloca float, i64 16384, align 64, !scope ![[NPU:[0-9]+]]
llvm.func @constant_count() -> f32 {
  %c = llvm.mlir.constant(16384 : i64) : i64
  %p = llvm.alloca %c x f32 {alignment = 64 : i64, scopealloc.scope = "global.npu_sram"} : (i64) -> !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> f32
  llvm.return %v : f32
}

// CHECK-LABEL: define i8 @array_type()
// CHECK: alloca [4096 x i8], i64 1, align 16, !scope ![[WS:[0-9]+]]
llvm.func @array_type() -> i8 {
  %one = llvm.mlir.constant(1 : i64) : i64
  %p = llvm.alloca %one x !llvm.array<4096 x i8> {alignment = 16 : i64, scopealloc.scope = "global.workspace"} : (i64) -> !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> i8
  llvm.return %v : i8
}

// CHECK-LABEL: define i32 @dynamic_count(i64 %0)
// CHECK: alloca i32, i64 %0, align 4, !scope ![[LOCAL:[0-9]+]]
llvm.func @dynamic_count(%n: i64) -> i32 {
  %p = llvm.alloca %n x i32 {scopealloc.scope = "local"} : (i64) -> !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> i32
  llvm.return %v : i32
}

// Untagged allocas stay untagged; unknown spellings are the pass's to judge.
// CHECK-LABEL: define void @mixed()
// CHECK: alloca i32, i64 1, align 4{{$}}
// CHECK: alloca i32, i64 1, align 4, !scope ![[ODD:[0-9]+]]
llvm.func @mixed() {
  %one = llvm.mlir.constant(1 : i64) : i64
  %a = llvm.alloca %one x i32 : (i64) -> !llvm.ptr
  %b = llvm.alloca %one x i32 {scopealloc.scope = "global.not-a-pool!"} : (i64) -> !llvm.ptr
  llvm.call @use(%a, %b) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.return
}

// A workspace call tagged for promotion (README: Promotion of workspace calls).
// CHECK-LABEL: define void @workspace_call()
// CHECK: call ptr @__scopealloc_alloc(i64 256, i64 16), !scope ![[GLOBAL:[0-9]+]]
llvm.func @__scopealloc_alloc(i64, i64) -> !llvm.ptr
llvm.func @use(!llvm.ptr, !llvm.ptr)
llvm.func @workspace_call() {
  %n = llvm.mlir.constant(256 : i64) : i64
  %a = llvm.mlir.constant(16 : i64) : i64
  %p = llvm.call @__scopealloc_alloc(%n, %a) {scopealloc.scope = "global"} : (i64, i64) -> !llvm.ptr
  llvm.call @use(%p, %p) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.return
}

// CHECK-DAG: ![[NPU]] = !{!"global.npu_sram"}
// CHECK-DAG: ![[WS]] = !{!"global.workspace"}
// CHECK-DAG: ![[LOCAL]] = !{!"local"}
// CHECK-DAG: ![[ODD]] = !{!"global.not-a-pool!"}
// CHECK-DAG: ![[GLOBAL]] = !{!"global"}
