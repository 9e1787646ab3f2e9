// MLIR 22's finalize-memref-to-llvm drops discardable attributes of
// memref.alloca. scopealloc-memref-scopes (ScopeAllocMLIRPlugin.so in
// mlir-opt-22) lowers the memref.alloca ops that carry scopealloc.scope as
// upstream does and keeps the attribute on the llvm.alloca; the others are
// left to finalize-memref-to-llvm.
//
// The upstream lowering alone loses the scope:
// RUN: %mlir_opt %s --pass-pipeline='builtin.module(%mlir_lower)' | FileCheck %s --check-prefix=UPSTREAM
// UPSTREAM-NOT: scopealloc
//
// RUN: %mlir_opt %s %mlirplugin --pass-pipeline='builtin.module(scopealloc-memref-scopes)' | FileCheck %s --check-prefix=PASS
// RUN: %mlir_opt %s %mlirplugin --pass-pipeline='builtin.module(scopealloc-memref-scopes,%mlir_lower)' | FileCheck %s --check-prefix=LLVM
// RUN: %mlir_opt %s %mlirplugin --pass-pipeline='builtin.module(scopealloc-memref-scopes,%mlir_lower)' | %sa_translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR
// The same descriptor, count and alignment as upstream: with the scopes
// taken out again, both lowerings translate to the same LLVM IR (the MLIR
// differs only in the order of constants).
// RUN: sed -e 's/ {scopealloc.scope = "[^"]*"}//' -e 's/, scopealloc.scope = "[^"]*"//' %s > %t.plain.mlir
// RUN: %mlir_opt %s %mlirplugin --pass-pipeline='builtin.module(scopealloc-memref-scopes,%mlir_lower)' | sed -e 's/ {scopealloc.scope = "[^"]*"}//' -e 's/, scopealloc.scope = "[^"]*"//' | %mlir_translate --mlir-to-llvmir -o %t.ours.ll
// RUN: %mlir_opt %t.plain.mlir --pass-pipeline='builtin.module(%mlir_lower)' | %mlir_translate --mlir-to-llvmir -o %t.upstream.ll
// RUN: diff %t.upstream.ll %t.ours.ll
//
// default-scope=<scope> gives every memref.alloca without a scope that one
// (the buffers promote-buffers-to-stack makes have no attribute):
// RUN: %mlir_opt %s %mlirplugin --pass-pipeline='builtin.module(scopealloc-memref-scopes{default-scope=global.mlir_sram},%mlir_lower)' | FileCheck %s --check-prefix=DEFAULT

// PASS-LABEL: func.func @tile
// PASS: %[[N:.*]] = llvm.mlir.constant(16384 : index) : i64
// PASS: %[[P:.*]] = llvm.alloca %[[N]] x f32 {alignment = 64 : i64, scopealloc.scope = "global.npu_sram"} : (i64) -> !llvm.ptr
// PASS: %[[D:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<128x128xf32>
// PASS: memref.load %[[D]]
// LLVM-LABEL: llvm.func @tile
// LLVM: llvm.alloca %{{.*}} x f32 {alignment = 64 : i64, scopealloc.scope = "global.npu_sram"} : (i64) -> !llvm.ptr
// IR-LABEL: define float @tile
// IR: alloca float, i64 16384, align 64, !scope ![[NPU:[0-9]+]]
// DEFAULT-LABEL: llvm.func @tile
// DEFAULT: llvm.alloca %{{.*}} x f32 {alignment = 64 : i64, scopealloc.scope = "global.npu_sram"}
func.func @tile(%i: index) -> f32 {
  %t = memref.alloca() {alignment = 64 : i64, scopealloc.scope = "global.npu_sram"} : memref<128x128xf32>
  %v = memref.load %t[%i, %i] : memref<128x128xf32>
  return %v : f32
}

// Dynamic sizes: the count is computed as upstream does.
// PASS-LABEL: func.func @dynamic
// PASS: llvm.alloca %{{.*}} x i32 {scopealloc.scope = "global.workspace"} : (i64) -> !llvm.ptr
// IR-LABEL: define i32 @dynamic
// IR: %[[C:.*]] = mul i64 %{{.*}}, %{{.*}}
// IR: alloca i32, i64 %[[C]], align 4, !scope ![[WS:[0-9]+]]
func.func @dynamic(%n: index, %m: index) -> i32 {
  %t = memref.alloca(%n, %m) {scopealloc.scope = "global.workspace"} : memref<?x?xi32>
  %c0 = arith.constant 0 : index
  %v = memref.load %t[%c0, %c0] : memref<?x?xi32>
  return %v : i32
}

// Only scoped allocas are this pass's; the rest is left to the lowering.
// PASS-LABEL: func.func @mixed
// PASS: memref.alloca() : memref<4xf32>
// PASS: llvm.alloca %{{.*}} x f32 {scopealloc.scope = "local"}
// IR-LABEL: define float @mixed
// IR: alloca float, i64 4, align 4{{$}}
// IR: alloca float, i64 4, align 4, !scope ![[LOCAL:[0-9]+]]
// DEFAULT-LABEL: llvm.func @mixed
// DEFAULT: llvm.alloca %{{.*}} x f32 {scopealloc.scope = "global.mlir_sram"}
// DEFAULT: llvm.alloca %{{.*}} x f32 {scopealloc.scope = "local"}
func.func @mixed(%i: index) -> f32 {
  %a = memref.alloca() : memref<4xf32>
  %b = memref.alloca() {scopealloc.scope = "local"} : memref<4xf32>
  %x = memref.load %a[%i] : memref<4xf32>
  %y = memref.load %b[%i] : memref<4xf32>
  %s = arith.addf %x, %y : f32
  return %s : f32
}

// In an alloca_scope and in a loop: the stack save and restore the lowering
// puts around them are untouched.
// IR-LABEL: define float @scoped_loop
// IR: call ptr @llvm.stacksave.p0()
// IR: alloca float, i64 256, align 4, !scope ![[NPU]]
// IR: call void @llvm.stackrestore.p0(ptr
func.func @scoped_loop(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> f32 {
    %v = memref.alloca_scope -> f32 {
      %t = memref.alloca() {scopealloc.scope = "global.npu_sram"} : memref<256xf32>
      memref.store %acc, %t[%c0] : memref<256xf32>
      %l = memref.load %t[%c0] : memref<256xf32>
      memref.alloca_scope.return %l : f32
    }
    scf.yield %v : f32
  }
  return %r : f32
}

// IR-DAG: ![[NPU]] = !{!"global.npu_sram"}
// IR-DAG: ![[WS]] = !{!"global.workspace"}
// IR-DAG: ![[LOCAL]] = !{!"local"}
