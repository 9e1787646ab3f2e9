// Tiled matmul C = A * B (N x N, N a multiple of 128) with one 128x128 f32
// tile (64 KiB) as memref.alloca, in three places:
//   @matmul_entry  at function entry, reused by every tile;
//   @matmul_loop   in the body of the tile loop (scf.for is an allocation
//                  scope: MLIR frees it every iteration);
//   @matmul_scope  in a memref.alloca_scope inside the tile loop.
// The tile carries scopealloc.scope = "global.mlir_sram"; the upstream
// lowering drops it, scopealloc-memref-scopes keeps it.
// Shared by the mlir suite and examples/mlir.

// tile = A[ii:ii+128, :] * B[:, jj:jj+128]
func.func private @tile_compute(%A: memref<?x?xf32>, %B: memref<?x?xf32>,
                                %tile: memref<128x128xf32>, %ii: index, %jj: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %A, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %j = %c0 to %c128 step %c1 {
      memref.store %zero, %tile[%i, %j] : memref<128x128xf32>
    }
  }
  scf.for %k = %c0 to %n step %c1 {
    scf.for %i = %c0 to %c128 step %c1 {
      %ai = arith.addi %ii, %i : index
      %a = memref.load %A[%ai, %k] : memref<?x?xf32>
      scf.for %j = %c0 to %c128 step %c1 {
        %bj = arith.addi %jj, %j : index
        %b = memref.load %B[%k, %bj] : memref<?x?xf32>
        %t = memref.load %tile[%i, %j] : memref<128x128xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %t, %p : f32
        memref.store %s, %tile[%i, %j] : memref<128x128xf32>
      }
    }
  }
  return
}

// C[ii:ii+128, jj:jj+128] = tile
func.func private @tile_store(%tile: memref<128x128xf32>, %C: memref<?x?xf32>,
                              %ii: index, %jj: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %j = %c0 to %c128 step %c1 {
      %v = memref.load %tile[%i, %j] : memref<128x128xf32>
      %ci = arith.addi %ii, %i : index
      %cj = arith.addi %jj, %j : index
      memref.store %v, %C[%ci, %cj] : memref<?x?xf32>
    }
  }
  return
}

func.func @matmul_entry(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %n = memref.dim %C, %c0 : memref<?x?xf32>
  %tile = memref.alloca() {alignment = 64 : i64, scopealloc.scope = "global.mlir_sram"} : memref<128x128xf32>
  scf.for %ii = %c0 to %n step %c128 {
    scf.for %jj = %c0 to %n step %c128 {
      func.call @tile_compute(%A, %B, %tile, %ii, %jj)
        : (memref<?x?xf32>, memref<?x?xf32>, memref<128x128xf32>, index, index) -> ()
      func.call @tile_store(%tile, %C, %ii, %jj)
        : (memref<128x128xf32>, memref<?x?xf32>, index, index) -> ()
    }
  }
  return
}

func.func @matmul_loop(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %n = memref.dim %C, %c0 : memref<?x?xf32>
  scf.for %ii = %c0 to %n step %c128 {
    scf.for %jj = %c0 to %n step %c128 {
      %tile = memref.alloca() {alignment = 64 : i64, scopealloc.scope = "global.mlir_sram"} : memref<128x128xf32>
      func.call @tile_compute(%A, %B, %tile, %ii, %jj)
        : (memref<?x?xf32>, memref<?x?xf32>, memref<128x128xf32>, index, index) -> ()
      func.call @tile_store(%tile, %C, %ii, %jj)
        : (memref<128x128xf32>, memref<?x?xf32>, index, index) -> ()
    }
  }
  return
}

func.func @matmul_scope(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %n = memref.dim %C, %c0 : memref<?x?xf32>
  scf.for %ii = %c0 to %n step %c128 {
    scf.for %jj = %c0 to %n step %c128 {
      memref.alloca_scope {
        %tile = memref.alloca() {alignment = 64 : i64, scopealloc.scope = "global.mlir_sram"} : memref<128x128xf32>
        func.call @tile_compute(%A, %B, %tile, %ii, %jj)
          : (memref<?x?xf32>, memref<?x?xf32>, memref<128x128xf32>, index, index) -> ()
        func.call @tile_store(%tile, %C, %ii, %jj)
          : (memref<128x128xf32>, memref<?x?xf32>, index, index) -> ()
      }
    }
  }
  return
}
