// Tiled matmul C = A * B in linalg on tensors: each 128x128 tile of C is a
// tensor.empty filled with zeros and accumulated by linalg.matmul, then
// copied into C. one-shot-bufferize makes the tile a 64 KiB memref.alloc in
// the body of the tile loop, promote-buffers-to-stack (with its limit raised
// to 64 KiB) a memref.alloca; it has no scopealloc.scope (bufferization
// creates it), so scopealloc-memref-scopes{default-scope=...} gives it one.
func.func @matmul_linalg(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %A, %c0 : memref<?x?xf32>
  scf.for %ii = %c0 to %n step %c128 {
    scf.for %jj = %c0 to %n step %c128 {
      %a = memref.subview %A[%ii, 0] [128, %n] [1, 1] : memref<?x?xf32> to memref<128x?xf32, strided<[?, 1], offset: ?>>
      %b = memref.subview %B[0, %jj] [%n, 128] [1, 1] : memref<?x?xf32> to memref<?x128xf32, strided<[?, 1], offset: ?>>
      %c = memref.subview %C[%ii, %jj] [128, 128] [1, 1] : memref<?x?xf32> to memref<128x128xf32, strided<[?, 1], offset: ?>>
      %at = bufferization.to_tensor %a restrict : memref<128x?xf32, strided<[?, 1], offset: ?>> to tensor<128x?xf32>
      %bt = bufferization.to_tensor %b restrict : memref<?x128xf32, strided<[?, 1], offset: ?>> to tensor<?x128xf32>
      %ct = bufferization.to_tensor %c restrict writable : memref<128x128xf32, strided<[?, 1], offset: ?>> to tensor<128x128xf32>
      %empty = tensor.empty() : tensor<128x128xf32>
      %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x128xf32>) -> tensor<128x128xf32>
      %tile = linalg.matmul ins(%at, %bt : tensor<128x?xf32>, tensor<?x128xf32>) outs(%init : tensor<128x128xf32>) -> tensor<128x128xf32>
      %r = linalg.copy ins(%tile : tensor<128x128xf32>) outs(%ct : tensor<128x128xf32>) -> tensor<128x128xf32>
      bufferization.materialize_in_destination %r in restrict writable %c : (tensor<128x128xf32>, memref<128x128xf32, strided<[?, 1], offset: ?>>) -> ()
    }
  }
  return
}
