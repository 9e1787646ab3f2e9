/* A named pool for the dispatch's demoted buffers, linked into the
   dispatch's shared object: one 64 KiB partition per IREE worker thread
   (up to 4), taken on the worker's first frame (docs/runtime-pools.md). */
#include <scopealloc/scopealloc.h>
SCOPEALLOC_DEFINE_POOL_SHARED(iree_ws, 4 * 65536, 65536);
