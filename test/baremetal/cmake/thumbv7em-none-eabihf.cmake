# Cortex-M4 with FPU, hard-float ABI, spelled as arm-none-eabi + flags, with
# plain clang:
# scopealloc_enable() links lib/baremetal/thumbv7em-none-eabihf.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
# The clang the plugin loads into (run.cmake passes SCOPEALLOC_TEST_LLVM_BIN).
set(CMAKE_C_COMPILER ${SCOPEALLOC_TEST_LLVM_BIN}/clang)
# clang 22 links bare-metal targets with the host's GNU ld unless told
# (clang 19 took ld.lld), which knows no Arm: any clang-22 firmware project
# says -fuse-ld=lld (or names its own arm-none-eabi linker).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_C_COMPILER_TARGET arm-none-eabi)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16")
# No libc, no crt0: CMake's checks compile but do not link.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
