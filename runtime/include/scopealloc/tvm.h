/* ScopeAlloc for TVM: TVM's workspace ABI served by the ScopeAlloc arena.
 *
 * libscopealloc_tvm.a defines the two functions TVM-generated C and LLVM host
 * code calls for temporary buffers (tvm/runtime/c_backend_api.h), so that
 * code links against ScopeAlloc unchanged:
 *
 *   cc model.c app.c -lscopealloc_tvm -lscopealloc_rt -lpthread
 *   CMake: target_link_libraries(app PRIVATE ScopeAlloc::tvm)
 *
 * Link it instead of TVM's own definitions (libtvm_runtime, the CRT's
 * crt_backend_api.c), not with them.
 *
 * Behaviour:
 *  - Workspaces come from the calling thread's default pool (the per-thread
 *    arena of libscopealloc_rt), aligned to SCOPEALLOC_TVM_ALIGN (64 bytes,
 *    TVM's kAllocAlignment/kTempAllocaAlignment; the ScopeAlloc pass promotes
 *    small constant-size pairs to allocas of the same alignment).
 *  - Only device type 1 (kDLCPU) is served; device_id and the dtype hints are
 *    ignored. nbytes 0 yields a unique pointer (one byte is reserved).
 *  - Generated code frees in LIFO order, which costs one store. A free of a
 *    workspace that is not the newest marks it free; its memory returns when
 *    every newer workspace has been freed too. Memory that other code took
 *    from the arena after a workspace (frames of demoted functions) is never
 *    released by a free: the workspace then returns at the next call once
 *    those frames are gone.
 *  - Errors do not abort: TVMBackendAllocWorkspace returns NULL (the
 *    generated code then returns -1) when the device is not the CPU, the
 *    request does not fit in what is left of the thread's arena
 *    reservation (the per-thread cap: SCOPEALLOC_RESERVE, by default 8 x RLIMIT_STACK), or
 *    the library runs out of bookkeeping memory; TVMBackendFreeWorkspace returns -1 for
 *    a pointer that is not a live workspace of the calling thread (unknown,
 *    already freed, or allocated by another thread). Each error is printed
 *    to stderr as "scopealloc-tvm: ..." and, when the program also links
 *    TVM's runtime, passed to TVMAPISetLastError. (The arena's own
 *    exhaustion handler still runs if the system refuses to commit memory
 *    the reservation promised.)
 *  - Thread-safe by construction: workspaces and their bookkeeping are per
 *    thread, as TVM's parallel lambdas allocate and free in their own thread.
 */
#ifndef SCOPEALLOC_TVM_H
#define SCOPEALLOC_TVM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TVM's signatures, from tvm/runtime/c_backend_api.h. */
void *TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                               int dtype_code_hint, int dtype_bits_hint);
int TVMBackendFreeWorkspace(int device_type, int device_id, void *ptr);

/* Workspaces of the calling thread allocated and not yet freed (0 when the
 * generated code freed everything it took). */
size_t scopealloc_tvm_live_workspaces(void);

#ifdef __cplusplus
}
#endif

#endif /* SCOPEALLOC_TVM_H */
