# 64-bit bare metal with the scopealloc-clang wrapper as the compiler (the
# wrapper's own path comes from SCOPEALLOC_TEST_WRAPPER in the environment):
# the wrapper and scopealloc_enable() both pick lib/baremetal/aarch64-none-elf.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER $ENV{SCOPEALLOC_TEST_WRAPPER})
set(CMAKE_C_COMPILER_TARGET aarch64-none-elf)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
