// The application's pool for the Halide intermediates: a shared pool of 4
// partitions of 32 KiB, one for each thread that runs tiles (the calling
// thread and Halide's 3 workers). A thread takes at most 17,264 bytes of its
// partition: a tile's blur_x and blur_y (17,168), plus, on the calling
// thread under limit 0, halide_blur's 88-byte frame.
//
// Every thread that runs a tile uses the pool at the same time (driver.c's
// tile_gate), which a plain SCOPEALLOC_DEFINE_POOL, one thread's LIFO arena,
// cannot serve: the run would abort with "pool 'halide_sram': in use by
// another thread".
#include <scopealloc/scopealloc.h>

SCOPEALLOC_DEFINE_POOL_SHARED(halide_sram, 4 * 32768, 32768);
