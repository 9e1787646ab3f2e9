// TVM's C host codegen keeps each workspace pointer in a local variable and
// checks it for NULL; clang leaves that variable in a stack slot until SROA.
// Promotion looks through it (mem2reg in the functions that make workspace
// calls), so the small constant workspace becomes a stack buffer at -O2, and
// after the optimiser no call, load or store of it is left.
// RUN: %clang %clangplugin -O2 -S -emit-llvm %s -o - -Rpass=scope-alloc 2> %t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// At -O0 nothing is promoted (and nothing breaks).
// RUN: %clang %clangplugin -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=O0
#include <stddef.h>
#include <stdint.h>

void *TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                               int dtype_code_hint, int dtype_bits_hint);
int TVMBackendFreeWorkspace(int device_type, int device_id, void *ptr);

// REMARK: remark: workspace call '{{.*}}' in '{{[^']*}}' (TVMBackendAllocWorkspace, scope none) promoted: 64 bytes within the limit
// CHECK-LABEL: define {{.*}} @fused_add(
// CHECK-NOT:     TVMBackend
// CHECK:         ret i32 0
// O0-LABEL: define {{.*}} @fused_add(
// O0:           call ptr @TVMBackendAllocWorkspace(i32 noundef 1, i32 noundef 0, i64 noundef 64
// O0:           call i32 @TVMBackendFreeWorkspace(
int32_t fused_add(float *out, const float *a, const float *b) {
  void *T_tmp = TVMBackendAllocWorkspace(1, 0, (uint64_t)64, 2, 32);
  if (T_tmp == NULL) {
    return -1;
  }
  for (int32_t i = 0; i < 16; ++i)
    ((float *)T_tmp)[i] = a[i] + b[i];
  for (int32_t i = 0; i < 16; ++i)
    out[i] = ((float *)T_tmp)[15 - i] * 2.0f;
  if (TVMBackendFreeWorkspace(1, 0, T_tmp) != 0) {
    return -1;
  }
  return 0;
}
