// The refused model: the gradient of a 4x4 max pooling over 8192 channels
// (stablehlo.select_and_scatter, the op of iree-org/iree#13205), in the
// linalg form IREE's StableHLO input conversion gives it: an argmax pooling
// (two outputs, value and index) fused into the scatter of the gradient.
// IREE 3.13 puts both into one dispatch and, not vectorizing the argmax,
// keeps its tile of both outputs in stack buffers. At IREE's own tile (4
// channels, stablehlo.select_and_scatter as it is) that is 192 bytes; the
// compilation_info (IREE's tuning attribute) sets the workgroup tile to all
// 8192 channels, which makes the two buffers 2 x 32 KiB, and IREE refuses:
//   'func.func' op exceeded stack allocation limit of 32768 bytes for
//   function. Got 65536 bytes
#ci = #iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<distribution = [1, 1, 1, 1, 8192]>, translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<Default>>>
func.func @maxpool_grad(%x: tensor<8x8x8192xf32>, %g: tensor<2x2x8192xf32>) -> tensor<2x4x2x4x8192xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %m1 = arith.constant -1 : i32
  %c4 = arith.constant 4 : index
  %e5 = tensor.empty() : tensor<2x4x2x4x8192xf32>
  %e6 = tensor.empty() : tensor<2x2x8192xi32>
  %e7 = tensor.empty() : tensor<2x2x8192xf32>
  %w = tensor.empty() : tensor<4x4xf32>
  %f6 = linalg.fill ins(%m1 : i32) outs(%e6 : tensor<2x2x8192xi32>) -> tensor<2x2x8192xi32>
  %f7 = linalg.fill ins(%cst : f32) outs(%e7 : tensor<2x2x8192xf32>) -> tensor<2x2x8192xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0 * 4 + d3, d1 * 4 + d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<8x8x8192xf32>, tensor<4x4xf32>) outs(%f7, %f6 : tensor<2x2x8192xf32>, tensor<2x2x8192xi32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32, %out_1: i32):
    %12 = arith.cmpf oge, %in, %out : f32
    %13 = arith.cmpi eq, %out_1, %m1 : i32
    %14 = arith.ori %12, %13 : i1
    %15 = linalg.index 3 : index
    %16 = linalg.index 4 : index
    %17 = arith.muli %15, %c4 : index
    %18 = arith.addi %17, %16 : index
    %19 = arith.index_cast %18 : index to i32
    %20 = arith.select %14, %19, %out_1 : i32
    %21 = arith.select %14, %in, %out : f32
    linalg.yield %21, %20 : f32, i32
  } -> (tensor<2x2x8192xf32>, tensor<2x2x8192xi32>)
  %s = linalg.generic {compilation_info = #ci, indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%r#1, %g : tensor<2x2x8192xi32>, tensor<2x2x8192xf32>) outs(%e5 : tensor<2x4x2x4x8192xf32>) {
  ^bb0(%in: i32, %in_0: f32, %out: f32):
    %13 = linalg.index 1 : index
    %14 = linalg.index 3 : index
    %15 = arith.muli %13, %c4 : index
    %16 = arith.addi %15, %14 : index
    %17 = arith.index_cast %16 : index to i32
    %18 = arith.cmpi eq, %17, %in : i32
    %19 = arith.select %18, %in_0, %cst : f32
    linalg.yield %19 : f32
  } -> tensor<2x4x2x4x8192xf32>
  return %s : tensor<2x4x2x4x8192xf32>
}
