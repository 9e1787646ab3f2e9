"""Halide 21 (PyPI `halide`, its own Python API) version of
blur_generator.cpp, for ScopeAlloc's Halide 21 client suite (test/halide21).

  python blur_generator21.py <pipeline.bc> <halide_runtime.o>

The same pipeline and schedule: a 3x3 box blur of a 16-bit image (blur_x,
blur_y, per 128x32 tile, entry-block allocas of the parallel closure), two
float detail layers (fine, coarse: 16640 B per tile, over Halide's 16 KiB
stack rule, so halide_malloc), a 256-entry tone curve (store_in Heap:
halide_malloc(512) in halide_blur), rows of tiles in parallel. The gate,
which makes 4 threads hold a tile at once, is an extern stage here: the
Python API has no scalar extern call (driver.c -DHALIDE_EXTERN_STAGE_GATE).
Bitcode without the Halide runtime, for a fixed x86-64 target.
"""
import sys
import halide as hl
inp = hl.ImageParam(hl.UInt(16), 2, "input")
x, y, xo, yo, xi, yi, i = [hl.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi", "i")]
clamped = hl.BoundaryConditions.repeat_edge(inp)
blur_x, blur_y, fine, coarse = hl.Func("blur_x"), hl.Func("blur_y"), hl.Func("fine"), hl.Func("coarse")
curve, gate, out = hl.Func("curve"), hl.Func("gate"), hl.Func("out")
centre = hl.cast(hl.UInt(32), clamped[x, y])
blur_x[x, y] = hl.cast(hl.UInt(16), (hl.cast(hl.UInt(32), clamped[x - 1, y]) + centre + clamped[x + 1, y]) / 3)
blur_y[x, y] = hl.cast(hl.UInt(16), (hl.cast(hl.UInt(32), blur_x[x, y - 1]) + blur_x[x, y] + blur_x[x, y + 1]) / 3)
fine[x, y] = hl.cast(hl.Float(32), clamped[x, y]) - hl.cast(hl.Float(32), blur_x[x, y])
coarse[x, y] = hl.cast(hl.Float(32), blur_x[x, y]) - hl.cast(hl.Float(32), blur_y[x, y])
curve[i] = hl.cast(hl.UInt(16), hl.min(65535.0, 4096.0 * hl.sqrt(hl.cast(hl.Float(32), i))))
gate.define_extern("tile_gate", [], hl.Int(32), 0)
sharp = (hl.cast(hl.Float(32), blur_y[x, y]) + 0.25 * (fine[x - 1, y] + fine[x + 1, y]) + fine[x, y]
         + 0.5 * (coarse[x - 1, y] + coarse[x + 1, y]))
v = hl.cast(hl.Int(32), hl.clamp(sharp, 0.0, 65535.0))
out[x, y] = curve[hl.clamp(v >> 8, 0, 255)] ^ hl.cast(hl.UInt(16), v & 255) ^ hl.cast(hl.UInt(16), gate[()])
out.tile(x, y, xo, yo, xi, yi, 128, 32).parallel(yo).vectorize(xi, 8)
for f in (blur_x, blur_y, fine, coarse):
    f.compute_at(out, xo).vectorize(x, 8)
gate.compute_at(out, xo)
curve.compute_root().store_in(hl.MemoryType.Heap)
t = hl.Target("x86-64-linux-no_runtime")
out.compile_to_bitcode(sys.argv[1], [inp], "halide_blur", t)
hl.compile_standalone_runtime(sys.argv[2], hl.Target("x86-64-linux"))
