// <scopealloc/scopealloc.h> ties the pool field indices of abi_constants.h
// (what the pass's %scopealloc.pool addresses) to struct scopealloc_pool with
// static assertions, in C and C++, on LP64 and ILP32 targets.
// RUN: %clang -fsyntax-only -std=c11 -I%rtinc %s
// RUN: %clang -fsyntax-only -x c++ -std=c++11 -I%rtinc %s
// RUN: %clang -fsyntax-only -std=c11 -ffreestanding --target=i386-none-elf -I%rtinc %s
// RUN: %clang -fsyntax-only -x c++ -ffreestanding --target=i386-none-elf -I%rtinc %s
// RUN: %clang -fsyntax-only -std=c11 -ffreestanding --target=armv7m-none-eabi -I%rtinc %s
// RUN: %clang -fsyntax-only -std=c11 -ffreestanding --target=riscv32-none-elf -I%rtinc %s
// RUN: %clang -fsyntax-only -std=c11 -ffreestanding --target=aarch64-none-elf -I%rtinc %s
// A wrong index is caught:
// RUN: not %clang -fsyntax-only -std=c11 -DWRONG -I%rtinc %s 2>&1 | FileCheck %s
// CHECK: static assertion failed{{.*}}scopealloc_pool.high
#ifdef WRONG
#include <scopealloc/abi_constants.h>
#undef SCOPEALLOC_POOL_FIELD_HIGH
#define SCOPEALLOC_POOL_FIELD_HIGH 3
#endif
#include <scopealloc/scopealloc.h>
