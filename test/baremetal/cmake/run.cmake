# Configures and builds the firmware project (this directory) with a CMake
# toolchain file for a 32-bit Arm target (thumbv7em-none-eabihf.cmake, plain
# clang of LLVM_BIN) and a 64-bit bare-metal one (aarch64-none-elf.cmake, the
# scopealloc-clang wrapper), against the ScopeAlloc installed at PREFIX:
# find_package accepts both, scopealloc_enable() links the target's
# freestanding runtime (no pthread, no host runtime), the buffer is demoted,
# and the image runs on QEMU when it is installed. Then a target without a
# runtime (Armv7-A) stops the configuration naming its triple, unless
# RUNTIME NONE asks for none.
#   cmake -DSOURCE_DIR=<this dir> -DBINARY_DIR=<dir> -DPREFIX=<P>
#         -DLLVM_BIN=<the plugin's LLVM bin directory> -P run.cmake
file(REMOVE_RECURSE ${BINARY_DIR})
set(llvm ${LLVM_BIN})
set(ENV{SCOPEALLOC_TEST_WRAPPER} ${PREFIX}/bin/scopealloc-clang)
foreach(var IN ITEMS SCOPEALLOC_RUNTIME SCOPEALLOC_FLAGS SCOPEALLOC_FLAGS_FILE SCOPEALLOC_REPORT_DIR)
  unset(ENV{${var}})
endforeach()

function(configure name toolchain)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BINARY_DIR}/${name} -G Ninja
            -DCMAKE_TOOLCHAIN_FILE=${toolchain} -DCMAKE_PREFIX_PATH=${PREFIX}
            -DSCOPEALLOC_TEST_LLVM_BIN=${llvm} ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc ${rc} PARENT_SCOPE)
  set(out "${out}${err}" PARENT_SCOPE)
endfunction()

# name | toolchain file | runtime directory | QEMU system | machine | ROM | RAM
foreach(config IN ITEMS
    "thumbv7em-hf|thumbv7em-none-eabihf.cmake|thumbv7em-none-eabihf|arm|mps2-an386|0x00000000|0x20000000"
    "aarch64|aarch64-none-elf.cmake|aarch64-none-elf|aarch64|virt|0x40000000|0x40100000")
  string(REPLACE "|" ";" config "${config}")
  list(GET config 0 name)
  list(GET config 1 toolchain)
  list(GET config 2 dir)
  list(GET config 3 system)
  list(GET config 4 machine)
  list(GET config 5 rom)
  list(GET config 6 ram)
  set(runtime ${PREFIX}/lib/baremetal/${dir}/libscopealloc_rt.a)
  set(build ${BINARY_DIR}/${name})

  configure(${name} ${SOURCE_DIR}/${toolchain} -DFIRMWARE_ROM=${rom} -DFIRMWARE_RAM=${ram})
  if(rc)
    message(FATAL_ERROR "${name}: configuring with ${toolchain} failed:\n${out}")
  endif()
  if(NOT out MATCHES "ScopeAlloc: freestanding runtime ${runtime}")
    message(FATAL_ERROR "${name}: scopealloc_enable() did not pick ${runtime}:\n${out}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} -- -v
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "${name}: building the firmware failed:\n${out}${err}")
  endif()
  # The link command: the freestanding runtime, nothing of the host's.
  string(REGEX MATCH "[^\n]*-o firmware [^\n]*" link "${out}")
  message(STATUS "${name} link: ${link}")
  string(FIND "${link}" "${runtime}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${name}: the link does not have ${runtime}")
  endif()
  if(link MATCHES "pthread|libscopealloc_rt\\.so|-lscopealloc_rt|${PREFIX}/lib/libscopealloc_rt\\.a")
    message(FATAL_ERROR "${name}: the link has pthread or the host runtime")
  endif()
  execute_process(COMMAND ${llvm}/llvm-nm ${build}/firmware OUTPUT_VARIABLE symbols)
  execute_process(COMMAND ${llvm}/llvm-nm -u ${build}/firmware OUTPUT_VARIABLE undefined)
  string(REGEX REPLACE "[^\n]* w [^\n]*\n" "" undefined "${undefined}")
  if(NOT symbols MATCHES " T __scopealloc_alloc\n" OR undefined OR symbols MATCHES "pthread")
    message(FATAL_ERROR "${name}: the image lacks the runtime or has undefined symbols: ${undefined}")
  endif()
  execute_process(COMMAND ${llvm}/llvm-objdump -d --no-show-raw-insn ${build}/firmware
                  OUTPUT_VARIABLE disasm)
  string(REGEX MATCH "<histogram>:\n([^\n]+\n)+" histogram "${disasm}")
  if(NOT histogram MATCHES "<__scopealloc_alloc>")
    message(FATAL_ERROR "${name}: MAX_STACK_ALLOCA 256 did not demote histogram's buffer")
  endif()

  find_program(qemu_${system} qemu-system-${system})
  if(NOT qemu_${system})
    message(STATUS "${name}: qemu-system-${system} not found, not run")
    continue()
  endif()
  set(cpu)
  if(system STREQUAL "aarch64")
    set(cpu -cpu cortex-a53)
  endif()
  execute_process(
    COMMAND ${qemu_${system}} -M ${machine} ${cpu} -display none -serial null -monitor none
            -nic none -semihosting-config enable=on,target=native -kernel ${build}/firmware
    TIMEOUT 60 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message(STATUS "${name} on QEMU ${machine}:\n${out}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "\nok\n")
    message(FATAL_ERROR "${name}: the firmware failed on QEMU (${rc}): ${out}")
  endif()
endforeach()

# A bare-metal target without a runtime: the configuration stops, naming it.
file(WRITE ${BINARY_DIR}/armv7a.cmake "
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER ${llvm}/clang)
set(CMAKE_C_COMPILER_TARGET armv7a-none-eabi)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
")
configure(armv7a ${BINARY_DIR}/armv7a.cmake -DFIRMWARE_ROM=0 -DFIRMWARE_RAM=0x10000)
string(REGEX REPLACE "[ \n]+" " " out "${out}")
message(STATUS "armv7a-none-eabi: ${out}")
if(NOT rc OR NOT out MATCHES "scopealloc_enable\\(firmware\\): the toolchain's target \\(--target=armv7a-none-eabi\\) has no ScopeAlloc runtime: no ScopeAlloc runtime for armv7-unknown-none-eabi installed: .*thumbv7em-none-eabi")
  message(FATAL_ERROR "a target without a runtime did not stop the configuration with its name")
endif()
configure(armv7a-none ${BINARY_DIR}/armv7a.cmake -DFIRMWARE_ROM=0 -DFIRMWARE_RAM=0x10000
          -DFIRMWARE_RUNTIME=NONE)
if(rc)
  message(FATAL_ERROR "RUNTIME NONE: configuring for armv7a-none-eabi failed:\n${out}")
endif()
file(READ ${BINARY_DIR}/armv7a-none/build.ninja ninja)
if(ninja MATCHES "libscopealloc_rt|pthread")
  message(FATAL_ERROR "RUNTIME NONE: the firmware still links a runtime")
endif()
message(STATUS "armv7a-none-eabi with RUNTIME NONE: configured, links no runtime")
