// tvm target: c -keys=cpu
// Written the way TVM's C host code generator (codegen_c_host) emits a model:
// packed-API operator functions that take TVMValue/DLTensor arguments, get
// temporary buffers from TVMBackendAllocWorkspace (checked against NULL),
// free them with TVMBackendFreeWorkspace (checked against 0) in LIFO order,
// and an AOT-style __tvm_main__ that allocates the intermediate tensors and
// calls the operators. The one exception, marked below, frees out of order.
#define TVM_EXPORTS
#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/c_backend_api.h"
#include <math.h>
#include <stdbool.h>

// 1-D convolution (9 taps) + bias + ReLU over 2048 floats.
// data_pad (8224 bytes) is over TVM's 1024-byte stack limit: a workspace in
// any build. conv_local (256 bytes) is under it: the ScopeAlloc pass
// promotes that pair to an alloca.
#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_default_fused_nn_conv1d_add_nn_relu(void* args, int32_t* arg_type_ids, int32_t num_args, void* out_ret_value, int32_t* out_ret_tcode, void* resource_handle) {
  void* arg_p0 = (((TVMValue*)args)[0].v_handle);
  int32_t arg_p0_code = arg_type_ids[0];
  void* arg_p1 = (((TVMValue*)args)[1].v_handle);
  int32_t arg_p1_code = arg_type_ids[1];
  void* arg_T_relu = (((TVMValue*)args)[2].v_handle);
  int32_t arg_T_relu_code = arg_type_ids[2];
  void* p0 = (((DLTensor*)arg_p0)[0].data);
  int32_t dev_id = (((DLTensor*)arg_p0)[0].device.device_id);
  void* p1 = (((DLTensor*)arg_p1)[0].data);
  void* T_relu = (((DLTensor*)arg_T_relu)[0].data);
  if (!(num_args == 3)) {
    return -1;
  }
  if (!(arg_p0_code == kTVMDLTensorHandle && arg_p1_code == kTVMDLTensorHandle && arg_T_relu_code == kTVMDLTensorHandle)) {
    return -1;
  }
  void* data_pad = TVMBackendAllocWorkspace(1, dev_id, (uint64_t)8224, 2, 32);
  if (data_pad == NULL) {
    return -1;
  }
  void* conv_local = TVMBackendAllocWorkspace(1, dev_id, (uint64_t)256, 2, 32);
  if (conv_local == NULL) {
    return -1;
  }
  for (int32_t i0 = 0; i0 < 2056; ++i0) {
    ((float*)data_pad)[i0] = (((4 <= i0) && (i0 < 2052)) ? ((float*)p0)[(i0 - 4)] : 0.000000e+00f);
  }
  for (int32_t ax0_outer = 0; ax0_outer < 32; ++ax0_outer) {
    for (int32_t ax0_inner_init = 0; ax0_inner_init < 64; ++ax0_inner_init) {
      ((float*)conv_local)[ax0_inner_init] = 0.000000e+00f;
    }
    for (int32_t rk = 0; rk < 9; ++rk) {
      for (int32_t ax0_inner = 0; ax0_inner < 64; ++ax0_inner) {
        int32_t cse_var_1 = ((ax0_outer * 64) + ax0_inner);
        ((float*)conv_local)[ax0_inner] = (((float*)conv_local)[ax0_inner] + (((float*)data_pad)[(cse_var_1 + rk)] * ((float*)p1)[rk]));
      }
    }
    for (int32_t ax0_inner_1 = 0; ax0_inner_1 < 64; ++ax0_inner_1) {
      float v_ = ((float*)conv_local)[ax0_inner_1] + ((float*)p1)[9];
      ((float*)T_relu)[((ax0_outer * 64) + ax0_inner_1)] = ((v_) > (0.000000e+00f) ? (v_) : (0.000000e+00f));
    }
  }
  if (TVMBackendFreeWorkspace(1, dev_id, conv_local) != 0) {
    return -1;
  }
  if (TVMBackendFreeWorkspace(1, dev_id, data_pad) != 0) {
    return -1;
  }
  return 0;
}

// Row softmax over a [rows x 64] tensor. T_exp (256 bytes) is allocated and
// freed in every iteration of the row loop (promotable); T_sum is sized from
// the tensor's shape at run time (never promotable).
#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_default_fused_nn_softmax(void* args, int32_t* arg_type_ids, int32_t num_args, void* out_ret_value, int32_t* out_ret_tcode, void* resource_handle) {
  void* arg_p0 = (((TVMValue*)args)[0].v_handle);
  int32_t arg_p0_code = arg_type_ids[0];
  void* arg_T_softmax_norm = (((TVMValue*)args)[1].v_handle);
  int32_t arg_T_softmax_norm_code = arg_type_ids[1];
  void* p0 = (((DLTensor*)arg_p0)[0].data);
  void* tvmgen_default_fused_nn_softmax_p0_shape = (((DLTensor*)arg_p0)[0].shape);
  int32_t rows = ((int32_t)((int64_t*)tvmgen_default_fused_nn_softmax_p0_shape)[0]);
  int32_t dev_id = (((DLTensor*)arg_p0)[0].device.device_id);
  void* T_softmax_norm = (((DLTensor*)arg_T_softmax_norm)[0].data);
  if (!(num_args == 2)) {
    return -1;
  }
  if (!(arg_p0_code == kTVMDLTensorHandle && arg_T_softmax_norm_code == kTVMDLTensorHandle)) {
    return -1;
  }
  void* T_sum = TVMBackendAllocWorkspace(1, dev_id, ((uint64_t)4 * ((uint64_t)rows)), 2, 32);
  if (T_sum == NULL) {
    return -1;
  }
  for (int32_t i0 = 0; i0 < rows; ++i0) {
    void* T_exp = TVMBackendAllocWorkspace(1, dev_id, (uint64_t)256, 2, 32);
    if (T_exp == NULL) {
      return -1;
    }
    float T_max = -3.402823e+38f;
    for (int32_t k = 0; k < 64; ++k) {
      float v_ = ((float*)p0)[((i0 * 64) + k)];
      T_max = ((T_max) > (v_) ? (T_max) : (v_));
    }
    ((float*)T_sum)[i0] = 0.000000e+00f;
    for (int32_t i1 = 0; i1 < 64; ++i1) {
      ((float*)T_exp)[i1] = expf((((float*)p0)[((i0 * 64) + i1)] - T_max));
      ((float*)T_sum)[i0] = (((float*)T_sum)[i0] + ((float*)T_exp)[i1]);
    }
    for (int32_t i1_1 = 0; i1_1 < 64; ++i1_1) {
      ((float*)T_softmax_norm)[((i0 * 64) + i1_1)] = (((float*)T_exp)[i1_1] / ((float*)T_sum)[i0]);
    }
    if (TVMBackendFreeWorkspace(1, dev_id, T_exp) != 0) {
      return -1;
    }
  }
  if (TVMBackendFreeWorkspace(1, dev_id, T_sum) != 0) {
    return -1;
  }
  return 0;
}

// Transpose [32 x 64] -> [64 x 32] then add a per-row offset.
// NOT what LowerTVMBuiltin emits (it always frees in LIFO order): this
// operator frees A_T before the newer B_row, and takes C_tmp in between, the
// way a hand-written or differently lowered kernel may. All three are over
// the stack limit, so they reach the library in every build.
#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_default_fused_transpose_add(void* args, int32_t* arg_type_ids, int32_t num_args, void* out_ret_value, int32_t* out_ret_tcode, void* resource_handle) {
  void* arg_p0 = (((TVMValue*)args)[0].v_handle);
  void* arg_T_add = (((TVMValue*)args)[1].v_handle);
  void* p0 = (((DLTensor*)arg_p0)[0].data);
  int32_t dev_id = (((DLTensor*)arg_p0)[0].device.device_id);
  void* T_add = (((DLTensor*)arg_T_add)[0].data);
  if (!(num_args == 2)) {
    return -1;
  }
  void* A_T = TVMBackendAllocWorkspace(1, dev_id, (uint64_t)8192, 2, 32);
  if (A_T == NULL) {
    return -1;
  }
  void* B_row = TVMBackendAllocWorkspace(1, dev_id, (uint64_t)4096, 2, 32);
  if (B_row == NULL) {
    return -1;
  }
  for (int32_t ax0 = 0; ax0 < 64; ++ax0) {
    for (int32_t ax1 = 0; ax1 < 32; ++ax1) {
      ((float*)A_T)[((ax0 * 32) + ax1)] = ((float*)p0)[((ax1 * 64) + ax0)];
    }
  }
  for (int32_t ax0_1 = 0; ax0_1 < 64; ++ax0_1) {
    float acc = 0.000000e+00f;
    for (int32_t ax1_1 = 0; ax1_1 < 32; ++ax1_1) {
      acc = (acc + ((float*)A_T)[((ax0_1 * 32) + ax1_1)]);
    }
    for (int32_t ax1_2 = 0; ax1_2 < 16; ++ax1_2) {
      ((float*)B_row)[((ax0_1 * 16) + ax1_2)] = (acc * 3.125000e-02f);
    }
  }
  for (int32_t ax0_2 = 0; ax0_2 < 64; ++ax0_2) {
    for (int32_t ax1_3 = 0; ax1_3 < 32; ++ax1_3) {
      ((float*)T_add)[((ax0_2 * 32) + ax1_3)] = ((float*)A_T)[((ax0_2 * 32) + ax1_3)];
    }
  }
  // Out of order: A_T is not the newest workspace.
  if (TVMBackendFreeWorkspace(1, dev_id, A_T) != 0) {
    return -1;
  }
  void* C_tmp = TVMBackendAllocWorkspace(1, dev_id, (uint64_t)2048, 2, 32);
  if (C_tmp == NULL) {
    return -1;
  }
  for (int32_t ax0_3 = 0; ax0_3 < 64; ++ax0_3) {
    for (int32_t ax1_4 = 0; ax1_4 < 8; ++ax1_4) {
      ((float*)C_tmp)[((ax0_3 * 8) + ax1_4)] = ((float*)B_row)[((ax0_3 * 16) + ax1_4)];
    }
  }
  for (int32_t ax0_4 = 0; ax0_4 < 64; ++ax0_4) {
    for (int32_t ax1_5 = 0; ax1_5 < 32; ++ax1_5) {
      ((float*)T_add)[((ax0_4 * 32) + ax1_5)] = (((float*)T_add)[((ax0_4 * 32) + ax1_5)] + ((float*)C_tmp)[((ax0_4 * 8) + (ax1_5 & 7))]);
    }
  }
  if (TVMBackendFreeWorkspace(1, dev_id, C_tmp) != 0) {
    return -1;
  }
  if (TVMBackendFreeWorkspace(1, dev_id, B_row) != 0) {
    return -1;
  }
  return 0;
}

// AOT-style entry: intermediates sid_1 (conv output) and sid_2 (softmax
// output) live across operator calls, which take their own workspaces on
// top of them.
#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_default___tvm_main__(void* args, int32_t* arg_type_ids, int32_t num_args, void* out_ret_value, int32_t* out_ret_tcode, void* resource_handle) {
  void* arg_input = (((TVMValue*)args)[0].v_handle);
  void* arg_weight = (((TVMValue*)args)[1].v_handle);
  void* arg_output = (((TVMValue*)args)[2].v_handle);
  int32_t dev_id = (((DLTensor*)arg_input)[0].device.device_id);
  if (!(num_args == 3)) {
    return -1;
  }
  void* sid_1 = TVMBackendAllocWorkspace(1, dev_id, (uint64_t)8192, 0, 8);
  if (sid_1 == NULL) {
    return -1;
  }
  void* sid_2 = TVMBackendAllocWorkspace(1, dev_id, (uint64_t)8192, 0, 8);
  if (sid_2 == NULL) {
    return -1;
  }
  int64_t sid_1_shape[1] = {2048};
  int64_t sid_2_shape[2] = {32, 64};
  DLTensor sid_1_tensor = {sid_1, {kDLCPU, dev_id}, 1, {2, 32, 1}, sid_1_shape, NULL, 0};
  DLTensor sid_2_tensor = {sid_2, {kDLCPU, dev_id}, 2, {2, 32, 1}, sid_2_shape, NULL, 0};
  DLTensor sid_1_rows = {sid_1, {kDLCPU, dev_id}, 2, {2, 32, 1}, sid_2_shape, NULL, 0};
  TVMValue stack_value[3];
  int32_t stack_tcode[3];
  TVMValue ret_val;
  int32_t ret_tcode;
  (((TVMValue*)stack_value)[0].v_handle) = arg_input;
  ((int32_t*)stack_tcode)[0] = kTVMDLTensorHandle;
  (((TVMValue*)stack_value)[1].v_handle) = arg_weight;
  ((int32_t*)stack_tcode)[1] = kTVMDLTensorHandle;
  (((TVMValue*)stack_value)[2].v_handle) = &sid_1_tensor;
  ((int32_t*)stack_tcode)[2] = kTVMDLTensorHandle;
  if (tvmgen_default_fused_nn_conv1d_add_nn_relu(stack_value, stack_tcode, 3, &ret_val, &ret_tcode, NULL) != 0) {
    return -1;
  }
  (((TVMValue*)stack_value)[0].v_handle) = &sid_1_rows;
  (((TVMValue*)stack_value)[1].v_handle) = &sid_2_tensor;
  if (tvmgen_default_fused_nn_softmax(stack_value, stack_tcode, 2, &ret_val, &ret_tcode, NULL) != 0) {
    return -1;
  }
  (((TVMValue*)stack_value)[0].v_handle) = &sid_2_tensor;
  (((TVMValue*)stack_value)[1].v_handle) = arg_output;
  if (tvmgen_default_fused_transpose_add(stack_value, stack_tcode, 2, &ret_val, &ret_tcode, NULL) != 0) {
    return -1;
  }
  if (TVMBackendFreeWorkspace(1, dev_id, sid_2) != 0) {
    return -1;
  }
  if (TVMBackendFreeWorkspace(1, dev_id, sid_1) != 0) {
    return -1;
  }
  return 0;
}
