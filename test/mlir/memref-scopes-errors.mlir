// scopealloc-memref-scopes reports a malformed scope on the memref.alloca the
// user wrote (not later on an llvm.alloca), naming the op.
// RUN: %mlir_opt %s %mlirplugin --pass-pipeline='builtin.module(scopealloc-memref-scopes)' --split-input-file --verify-diagnostics

func.func @integer() -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.alloca' op attribute 'scopealloc.scope' must be a string naming a scope (e.g. "global.npu_sram"), got 7 : i64}}
  %t = memref.alloca() {scopealloc.scope = 7} : memref<4xf32>
  %v = memref.load %t[%c0] : memref<4xf32>
  return %v : f32
}

// -----

func.func @empty() -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.alloca' op attribute 'scopealloc.scope' is an empty string}}
  %t = memref.alloca() {scopealloc.scope = ""} : memref<4xf32>
  %v = memref.load %t[%c0] : memref<4xf32>
  return %v : f32
}
