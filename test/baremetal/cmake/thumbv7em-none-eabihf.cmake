# Cortex-M4 with FPU, hard-float ABI, spelled as arm-none-eabi + flags:
# scopealloc_enable() links lib/baremetal/thumbv7em-none-eabihf.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER /usr/lib/llvm-19/bin/clang)
set(CMAKE_C_COMPILER_TARGET arm-none-eabi)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16")
# No libc, no crt0: CMake's checks compile but do not link.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
