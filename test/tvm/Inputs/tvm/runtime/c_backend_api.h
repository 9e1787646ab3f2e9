/* Stand-in for TVM's tvm/runtime/c_backend_api.h: the workspace functions
 * generated host code calls (libscopealloc_tvm defines them). */
#ifndef SCOPEALLOC_TEST_TVM_C_BACKEND_API_H
#define SCOPEALLOC_TEST_TVM_C_BACKEND_API_H

#include "c_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif
TVM_DLL void *TVMBackendAllocWorkspace(int device_type, int device_id,
                                       uint64_t nbytes, int dtype_code_hint,
                                       int dtype_bits_hint);
TVM_DLL int TVMBackendFreeWorkspace(int device_type, int device_id, void *ptr);
#ifdef __cplusplus
}
#endif

#endif
