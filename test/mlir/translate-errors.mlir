// A scopealloc.scope that is not a non-empty string, an unknown scopealloc.*
// attribute, or a scope on an op that does not become an alloca or a call is
// an error naming the op (its location and its name); no IR is written.
// RUN: %sa_translate --mlir-to-llvmir --split-input-file --verify-diagnostics %s -o /dev/null
// Without --verify-diagnostics: exit status 1, the message on stderr, no IR.
// RUN: not %sa_translate --mlir-to-llvmir %s -o %t.ll 2> %t.err
// RUN: FileCheck %s --check-prefix=TEXT < %t.err
// RUN: not test -s %t.ll
// TEXT: translate-errors.mlir:14:8: error: 'llvm.alloca' op attribute 'scopealloc.scope' must be a string naming a scope (e.g. "global.npu_sram"), got 42 : i64

llvm.func @integer() -> f32 {
  %c = llvm.mlir.constant(16 : i64) : i64
  // expected-error @+1 {{'llvm.alloca' op attribute 'scopealloc.scope' must be a string naming a scope (e.g. "global.npu_sram"), got 42 : i64}}
  %p = llvm.alloca %c x f32 {scopealloc.scope = 42} : (i64) -> !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> f32
  llvm.return %v : f32
}

// -----

llvm.func @array() -> f32 {
  %c = llvm.mlir.constant(16 : i64) : i64
  // expected-error @+1 {{'llvm.alloca' op attribute 'scopealloc.scope' must be a string naming a scope (e.g. "global.npu_sram"), got ["global.npu_sram"]}}
  %p = llvm.alloca %c x f32 {scopealloc.scope = ["global.npu_sram"]} : (i64) -> !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> f32
  llvm.return %v : f32
}

// -----

llvm.func @symbol() -> f32 {
  %c = llvm.mlir.constant(16 : i64) : i64
  // expected-error @+1 {{'llvm.alloca' op attribute 'scopealloc.scope' must be a string naming a scope (e.g. "global.npu_sram"), got @npu_sram}}
  %p = llvm.alloca %c x f32 {scopealloc.scope = @npu_sram} : (i64) -> !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> f32
  llvm.return %v : f32
}

// -----

llvm.func @empty() -> f32 {
  %c = llvm.mlir.constant(16 : i64) : i64
  // expected-error @+1 {{'llvm.alloca' op attribute 'scopealloc.scope' is an empty string}}
  %p = llvm.alloca %c x f32 {scopealloc.scope = ""} : (i64) -> !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> f32
  llvm.return %v : f32
}

// -----

llvm.func @unknown_attribute() -> f32 {
  %c = llvm.mlir.constant(16 : i64) : i64
  // expected-error @+1 {{'llvm.alloca' op has unknown ScopeAlloc attribute 'scopealloc.pool' (the only one is 'scopealloc.scope')}}
  %p = llvm.alloca %c x f32 {scopealloc.pool = "npu_sram"} : (i64) -> !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> f32
  llvm.return %v : f32
}

// -----

llvm.func @not_an_alloca(%p: !llvm.ptr) {
  %v = llvm.mlir.constant(1.0 : f32) : f32
  // expected-error @+1 {{'llvm.store' op carries 'scopealloc.scope', but only llvm.alloca and llvm.call take a scope into LLVM IR}}
  llvm.store %v, %p {scopealloc.scope = "global.npu_sram"} : f32, !llvm.ptr
  llvm.return
}
