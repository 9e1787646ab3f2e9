// scf.for (like scf.parallel, scf.forall, affine.for) is an allocation
// scope: a memref.alloca in its body is freed at the end of each iteration.
// MLIR 22 lowers the loop without saving and restoring the stack pointer, so
// the buffer takes new stack every iteration:
// RUN: %mlir_opt %s --pass-pipeline='builtin.module(%mlir_lower)' | %mlir_translate --mlir-to-llvmir | FileCheck %s --check-prefix=UPSTREAM
// UPSTREAM-LABEL: define float @per_iteration
// UPSTREAM-NOT: stacksave
// UPSTREAM: alloca float, i64 16384
// UPSTREAM-NOT: stackrestore
// UPSTREAM-LABEL: define void @nested
//
// scopealloc-loop-alloca-scopes brackets such bodies with
// llvm.intr.stacksave / llvm.intr.stackrestore (what memref.alloca_scope
// lowers to), so the lowering frees the buffer every iteration, on the stack
// and, once ScopeAlloc moved it, in the pool.
// RUN: %mlir_opt %s %mlirplugin --pass-pipeline='builtin.module(scopealloc-loop-alloca-scopes)' -verify-diagnostics | FileCheck %s
// RUN: %mlir_opt %s %mlirplugin --pass-pipeline='builtin.module(scopealloc-loop-alloca-scopes,%mlir_lower)' | %mlir_translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR

// CHECK-LABEL: func.func @per_iteration
// CHECK: scf.for
// CHECK-NEXT: %[[SP:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: memref.alloca() {scopealloc.scope = "global.mlir_sram"} : memref<128x128xf32>
// CHECK: llvm.intr.stackrestore %[[SP]] : !llvm.ptr
// CHECK-NEXT: scf.yield
// IR-LABEL: define float @per_iteration
// IR: %[[SP:.*]] = call ptr @llvm.stacksave.p0()
// IR-NEXT: alloca float, i64 16384
// IR: call void @llvm.stackrestore.p0(ptr %[[SP]])
func.func @per_iteration(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> f32 {
    %t = memref.alloca() {scopealloc.scope = "global.mlir_sram"} : memref<128x128xf32>
    memref.store %acc, %t[%c0, %c0] : memref<128x128xf32>
    %v = memref.load %t[%c0, %c0] : memref<128x128xf32>
    scf.yield %v : f32
  }
  return %r : f32
}

// Only the loop whose body allocates (the inner one here, its alloca under an
// scf.if) is bracketed; function-level allocas and memref.alloca_scope, which
// lower with their own save and restore, are left alone.
// CHECK-LABEL: func.func @nested
// CHECK: memref.alloca() : memref<16xf32>
// CHECK-NEXT: scf.for
// CHECK-NOT: llvm.intr.stacksave
// CHECK: scf.for
// CHECK-NEXT: llvm.intr.stacksave
// CHECK: scf.if
// CHECK: memref.alloca() : memref<64xf32>
// CHECK: llvm.intr.stackrestore
// CHECK-NEXT: }
// CHECK: }
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.alloca_scope
// CHECK-NOT: llvm.intr.stack
// CHECK: return
func.func @nested(%n: index, %f: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %entry = memref.alloca() : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %z, %entry[%c0] : memref<16xf32>
    scf.for %j = %c0 to %n step %c1 {
      scf.if %f {
        %t = memref.alloca() : memref<64xf32>
        memref.store %z, %t[%c0] : memref<64xf32>
      }
    }
  }
  scf.for %i = %c0 to %n step %c1 {
    memref.alloca_scope {
      %t = memref.alloca() : memref<64xf32>
      memref.store %z, %t[%c0] : memref<64xf32>
    }
  }
  return
}

// scf.parallel and affine.for bodies too.
// CHECK-LABEL: func.func @other_loops
// CHECK: scf.parallel
// CHECK-NEXT: llvm.intr.stacksave
// CHECK: llvm.intr.stackrestore
// CHECK-NEXT: scf.reduce
// CHECK: affine.for
// CHECK-NEXT: llvm.intr.stacksave
// CHECK: llvm.intr.stackrestore
// CHECK-NEXT: }
func.func @other_loops(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %t = memref.alloca() : memref<64xf32>
    memref.store %z, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 10 {
    %t = memref.alloca() : memref<64xf32>
    memref.store %z, %t[%i] : memref<64xf32>
  }
  return
}

// A body that hands a buffer of the iteration on is left alone: restoring
// the stack would free memory still in use.
// CHECK-LABEL: func.func @escapes
// CHECK-NOT: llvm.intr.stack
// CHECK: return
func.func @escapes(%n: index, %init: memref<4xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-warning @+1 {{memref.alloca in this loop's body is not freed every iteration: the body yields a memref made in the iteration}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%m = %init) -> memref<4xf32> {
    %t = memref.alloca() : memref<4xf32>
    scf.yield %t : memref<4xf32>
  }
  return %r : memref<4xf32>
}
