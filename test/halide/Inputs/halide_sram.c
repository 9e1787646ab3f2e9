// The application's pool for the Halide intermediates: 128 KiB, room for a
// 32 KiB partition for each of the 4 threads that run tiles (each takes at
// most 17,264 bytes of it: a tile's blur_x and blur_y, plus the caller's
// 96-byte frame of halide_blur under limit 0).
//
// Every thread that runs a tile uses the pool at the same time (driver.c's
// tile_gate), which a named pool owned by one thread cannot serve: it
// reports "in use by another thread". Per-thread partitions of named pools
// are pending (branch h-pools); when they land, this definition gives the
// pool its partition size.
#include <scopealloc/scopealloc.h>

SCOPEALLOC_DEFINE_POOL(halide_sram, 4 * 32768);
