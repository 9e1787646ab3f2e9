// A Halide 14 pipeline for ScopeAlloc's Halide client suite (test/halide).
//
//   blur_generator <pipeline.bc> <halide_runtime.o>
//
// writes the pipeline `halide_blur` as LLVM bitcode WITHOUT the Halide
// runtime (target feature no_runtime), and the Halide runtime as a separate
// object (compile_standalone_runtime), so that only pipeline code goes
// through the ScopeAlloc pass. Fixed target x86-64-linux (SSE2 only), so the
// bitcode is the same on every x86-64 machine.
//
// The pipeline: a 3x3 box blur of a 16-bit image (blur_x, blur_y), two
// float detail layers (fine, coarse) and a 256-entry tone curve. out is
// tiled 128x32 and its rows of tiles (yo) run in parallel: the loop body
// becomes a closure, halide_blur_par_for_out_s0_y_yo, that halide_do_par_for
// runs on Halide's worker threads. What Halide's CodeGen_Posix::
// create_allocation makes of each Func's buffer (constant size, 16 KiB rule):
//
//   blur_x  130x34 u16 = 8840 B  per tile, <= 16 KiB: entry-block alloca in the
//   closure blur_y  130x32 u16 = 8320 B  per tile, <= 16 KiB: entry-block
//   alloca in the closure fine    130x32 f32 = 16640 B per tile, > 16 KiB:
//   halide_malloc(16652) in the closure coarse  130x32 f32 = 16640 B per tile,
//   > 16 KiB: halide_malloc(16652) in the closure
//                                 (+12 B: Halide pads heap buffers by 3
//                                 elements)
//   curve   256 u16 = 512 B, compute_root, store_in(MemoryType::Heap):
//                                 halide_malloc(518) in halide_blur (main
//                                 thread)
//   gate    scalar per tile: calls the extern tile_gate() (the driver's
//           barrier) while the tile's buffers are live.
//
// Halide's loop partitioning (for the repeat_edge boundary) makes 3 copies of
// the tile loop; they share the two allocas, each has its own halide_malloc
// calls for fine and coarse.
#include <Halide.h>

using namespace Halide;

// Implemented by the driver (driver.c): returns 0.
HalideExtern_1(int32_t, tile_gate, int32_t);

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <pipeline.bc> <halide_runtime.o>\n", argv[0]);
    return 2;
  }
  ImageParam input(UInt(16), 2, "input");
  Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), i("i");

  Func clamped = BoundaryConditions::repeat_edge(input);
  Func blur_x("blur_x"), blur_y("blur_y"), fine("fine"), coarse("coarse");
  Func curve("curve"), gate("gate"), out("out");

  Expr centre = cast<uint32_t>(clamped(x, y));
  blur_x(x, y) = cast<uint16_t>(
      (cast<uint32_t>(clamped(x - 1, y)) + centre + clamped(x + 1, y)) / 3);
  blur_y(x, y) = cast<uint16_t>(
      (cast<uint32_t>(blur_x(x, y - 1)) + blur_x(x, y) + blur_x(x, y + 1)) / 3);
  fine(x, y) = cast<float>(clamped(x, y)) - cast<float>(blur_x(x, y));
  coarse(x, y) = cast<float>(blur_x(x, y)) - cast<float>(blur_y(x, y));
  curve(i) = cast<uint16_t>(min(65535.0f, 4096.0f * sqrt(cast<float>(i))));
  gate() = tile_gate(0);

  Expr sharp = cast<float>(blur_y(x, y)) +
               0.25f * (fine(x - 1, y) + fine(x + 1, y)) + fine(x, y) +
               0.5f * (coarse(x - 1, y) + coarse(x + 1, y));
  Expr v = cast<int32_t>(clamp(sharp, 0.0f, 65535.0f));
  out(x, y) = curve(clamp(v >> 8, 0, 255)) ^ cast<uint16_t>(v & 255) ^
              cast<uint16_t>(gate());

  out.tile(x, y, xo, yo, xi, yi, 128, 32).parallel(yo).vectorize(xi, 8);
  blur_x.compute_at(out, xo).vectorize(x, 8);
  blur_y.compute_at(out, xo).vectorize(x, 8);
  fine.compute_at(out, xo).vectorize(x, 8);
  coarse.compute_at(out, xo).vectorize(x, 8);
  gate.compute_at(out, xo);
  curve.compute_root().store_in(MemoryType::Heap);

  Target pipeline_target("x86-64-linux-no_runtime");
  out.compile_to_bitcode(argv[1], {input}, "halide_blur", pipeline_target);
  compile_standalone_runtime(argv[2], Target("x86-64-linux"));
  return 0;
}
