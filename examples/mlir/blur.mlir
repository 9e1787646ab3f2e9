// A 3-tap horizontal blur over an H x 4096 image, one row at a time through a
// 16 KiB line buffer. The line buffer is memory an accelerator (or a DMA
// engine) must reach, so it comes from the application's pool `npu_sram`:
// scope global.npu_sram, whatever the stack policy says.
func.func @blur(%in: memref<?x4096xf32>, %out: memref<?x4096xf32>)
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4095 = arith.constant 4095 : index
  %third = arith.constant 0.333333343 : f32
  %h = memref.dim %in, %c0 : memref<?x4096xf32>
  %line = memref.alloca() {alignment = 64 : i64, scopealloc.scope = "global.npu_sram"} : memref<4096xf32>
  scf.for %y = %c0 to %h step %c1 {
    // "DMA" the row into the line buffer.
    scf.for %x = %c0 to %c4095 step %c1 {
      %v = memref.load %in[%y, %x] : memref<?x4096xf32>
      memref.store %v, %line[%x] : memref<4096xf32>
    }
    %last = memref.load %in[%y, %c4095] : memref<?x4096xf32>
    memref.store %last, %line[%c4095] : memref<4096xf32>
    // out[y][x] = (line[x-1] + line[x] + line[x+1]) / 3, edges copied.
    %first = memref.load %line[%c0] : memref<4096xf32>
    memref.store %first, %out[%y, %c0] : memref<?x4096xf32>
    memref.store %last, %out[%y, %c4095] : memref<?x4096xf32>
    scf.for %x = %c1 to %c4095 step %c1 {
      %xm = arith.subi %x, %c1 : index
      %xp = arith.addi %x, %c1 : index
      %a = memref.load %line[%xm] : memref<4096xf32>
      %b = memref.load %line[%x] : memref<4096xf32>
      %c = memref.load %line[%xp] : memref<4096xf32>
      %ab = arith.addf %a, %b : f32
      %abc = arith.addf %ab, %c : f32
      %r = arith.mulf %abc, %third : f32
      memref.store %r, %out[%y, %x] : memref<?x4096xf32>
    }
  }
  return
}
