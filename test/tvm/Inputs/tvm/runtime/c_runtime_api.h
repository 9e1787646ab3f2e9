/* Stand-in for TVM's tvm/runtime/c_runtime_api.h (and dlpack.h): just the
 * types the generated C host code in this directory uses, with TVM's
 * layouts, so that the code compiles as TVM emits it without TVM installed. */
#ifndef SCOPEALLOC_TEST_TVM_C_RUNTIME_API_H
#define SCOPEALLOC_TEST_TVM_C_RUNTIME_API_H

#include <stddef.h>
#include <stdint.h>

#define TVM_DLL __attribute__((visibility("default")))

typedef enum { kDLCPU = 1, kDLCUDA = 2 } DLDeviceType;
typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;
typedef struct {
  uint8_t code; /* 0 int, 1 uint, 2 float */
  uint8_t bits;
  uint16_t lanes;
} DLDataType;
typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} DLTensor;

typedef union {
  int64_t v_int64;
  double v_float64;
  void *v_handle;
  const char *v_str;
  DLDataType v_type;
  DLDevice v_device;
} TVMValue;

#define kTVMDLTensorHandle 7

TVM_DLL void TVMAPISetLastError(const char *msg);

#endif
