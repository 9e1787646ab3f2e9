// The tiled matmul of matmul.mlir (@matmul_entry, @matmul_loop) with its
// tile in memref memory space 5 instead of a scopealloc.scope attribute: the
// memory-space route. The upstream lowering keeps the memory space on the
// type, so the tile becomes `alloca float, i64 16384, align 64, addrspace(5)`
// with stock mlir-opt-19/mlir-translate-19; the ScopeAlloc pass maps the
// address space to a scope (-scope-alloc-address-space-scopes=5:<scope>).

// tile = A[ii:ii+128, :] * B[:, jj:jj+128]
func.func private @tile_compute(%A: memref<?x?xf32>, %B: memref<?x?xf32>,
                                %tile: memref<128x128xf32, 5>, %ii: index, %jj: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %A, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %j = %c0 to %c128 step %c1 {
      memref.store %zero, %tile[%i, %j] : memref<128x128xf32, 5>
    }
  }
  scf.for %k = %c0 to %n step %c1 {
    scf.for %i = %c0 to %c128 step %c1 {
      %ai = arith.addi %ii, %i : index
      %a = memref.load %A[%ai, %k] : memref<?x?xf32>
      scf.for %j = %c0 to %c128 step %c1 {
        %bj = arith.addi %jj, %j : index
        %b = memref.load %B[%k, %bj] : memref<?x?xf32>
        %t = memref.load %tile[%i, %j] : memref<128x128xf32, 5>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %t, %p : f32
        memref.store %s, %tile[%i, %j] : memref<128x128xf32, 5>
      }
    }
  }
  return
}

// C[ii:ii+128, jj:jj+128] = tile
func.func private @tile_store(%tile: memref<128x128xf32, 5>, %C: memref<?x?xf32>,
                              %ii: index, %jj: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %j = %c0 to %c128 step %c1 {
      %v = memref.load %tile[%i, %j] : memref<128x128xf32, 5>
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
  %tile = memref.alloca() {alignment = 64 : i64} : memref<128x128xf32, 5>
  scf.for %ii = %c0 to %n step %c128 {
    scf.for %jj = %c0 to %n step %c128 {
      func.call @tile_compute(%A, %B, %tile, %ii, %jj)
        : (memref<?x?xf32>, memref<?x?xf32>, memref<128x128xf32, 5>, index, index) -> ()
      func.call @tile_store(%tile, %C, %ii, %jj)
        : (memref<128x128xf32, 5>, memref<?x?xf32>, index, index) -> ()
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
      %tile = memref.alloca() {alignment = 64 : i64} : memref<128x128xf32, 5>
      func.call @tile_compute(%A, %B, %tile, %ii, %jj)
        : (memref<?x?xf32>, memref<?x?xf32>, memref<128x128xf32, 5>, index, index) -> ()
      func.call @tile_store(%tile, %C, %ii, %jj)
        : (memref<128x128xf32, 5>, memref<?x?xf32>, index, index) -> ()
    }
  }
  return
}
