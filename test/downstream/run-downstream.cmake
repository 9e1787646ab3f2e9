# Configures, builds and runs the downstream project against an installed
# ScopeAlloc at PREFIX, with CLANG/CLANGXX (clang 19) as compilers; then
# edits the policy file and checks the rebuild, and checks that the error
# cases stop the configuration. Run with cmake -P.
file(REMOVE_RECURSE ${BINARY_DIR})
# A copy, so that the test can edit the policy without touching the sources.
set(src ${BINARY_DIR}/src)
file(COPY ${SOURCE_DIR}/ DESTINATION ${src})
set(build ${BINARY_DIR}/build)

function(configure dir)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${src} -B ${dir} -G Ninja
            -DCMAKE_PREFIX_PATH=${PREFIX} ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc ${rc} PARENT_SCOPE)
  # CMake wraps long messages; one line is easier to match.
  string(REGEX REPLACE "[ \n]+" " " out "${out}${err}")
  string(REGEX MATCH "CMake Error.*" error "${out}")
  set(out "${out}" PARENT_SCOPE)
  set(error "${error}" PARENT_SCOPE)
endfunction()

function(build_and_run_all)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${build}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "building the downstream project failed:\n${out}${err}")
  endif()
  set(build_log "${out}" PARENT_SCOPE)
  foreach(program IN ITEMS downstream with_policy without)
    execute_process(COMMAND ${build}/${program} RESULT_VARIABLE rc
                    OUTPUT_VARIABLE out ERROR_VARIABLE err)
    message(STATUS "${program} printed:\n${out}${err}")
    if(rc)
      message(FATAL_ERROR "${program} exited with ${rc}")
    endif()
    set(${program}_out "${out}" PARENT_SCOPE)
  endforeach()
endfunction()

# REPORT_DIR needs a plugin with -scope-alloc-report (directory mode).
get_filename_component(llvm_bin ${CLANG} DIRECTORY)
execute_process(COMMAND ${llvm_bin}/opt -load-pass-plugin ${PREFIX}/lib/ScopeAlloc.so
                        -help-hidden OUTPUT_VARIABLE opt_help ERROR_QUIET)
set(report_args)
if(opt_help MATCHES "-scope-alloc-report=")
  set(report_args -DDOWNSTREAM_REPORT_DIR=reports)
endif()
configure(${build} -DCMAKE_C_COMPILER=${CLANG} -DCMAKE_CXX_COMPILER=${CLANGXX} ${report_args})
if(rc)
  message(FATAL_ERROR "configuring the downstream project failed:\n${out}")
endif()
build_and_run_all()
if(report_args)
  file(GLOB reports RELATIVE ${build}/reports ${build}/reports/*.json)
  list(SORT reports)
  message(STATUS "REPORT_DIR reports: ${reports}")
  if(NOT reports MATCHES "^buffers-[^;]*\\.json;kernel-[^;]*\\.json$")
    message(FATAL_ERROR "REPORT_DIR: expected one report per source of with_policy, got '${reports}'")
  endif()
else()
  message(STATUS "REPORT_DIR not tested: the plugin has no -scope-alloc-report option")
endif()

# downstream: MAX_STACK_ALLOCA 256 moved its 4 KiB buffer.
if(NOT downstream_out MATCHES "workspace allocs > 0, peak >= 4096")
  message(FATAL_ERROR "downstream did not use the workspace pool")
endif()
# with_policy: both buffers (C 512 B, C++ 600 B) from the pool, one frame
# at a time; without: none.
string(REGEX MATCH "checksum [0-9]+" with_sum "${with_policy_out}")
string(REGEX MATCH "checksum [0-9]+" without_sum "${without_out}")
if(NOT with_sum OR NOT with_sum STREQUAL without_sum)
  message(FATAL_ERROR "with_policy and without compute different results")
endif()
# allocs counts the thread's first frame, and with checked frames also the
# second one, which sets a new peak; a guarded frame is not counted.
if(NOT with_policy_out MATCHES "workspace allocs [12] peak (6[0-9][0-9]) current 0")
  message(FATAL_ERROR "with_policy: the policy file's 256-byte limit was not applied")
endif()
if(NOT without_out MATCHES "workspace allocs 0 peak 0 current 0")
  message(FATAL_ERROR "without: buffers came from the pool although the pass is not enabled")
endif()

# Raising the policy's limit recompiles with_policy (its objects depend on
# the policy file), and only it; its buffers now stay on the stack.
file(READ ${src}/downstream-policy.yaml policy)
string(REPLACE "max-stack-alloca: 256" "max-stack-alloca: 4096" policy "${policy}")
file(WRITE ${src}/downstream-policy.yaml "${policy}")
build_and_run_all()
message(STATUS "rebuild after the policy change:\n${build_log}")
if(NOT build_log MATCHES "with_policy.dir/buffers.c.o" OR NOT build_log MATCHES "with_policy.dir/kernel.cpp.o")
  message(FATAL_ERROR "changing the policy file did not recompile with_policy")
endif()
if(build_log MATCHES "without.dir|downstream.dir")
  message(FATAL_ERROR "changing the policy file recompiled targets that do not use it")
endif()
if(NOT with_policy_out MATCHES "workspace allocs 0 peak 0 current 0")
  message(FATAL_ERROR "with_policy: the raised limit of the edited policy was not applied")
endif()

# Error cases stop the configuration with a message naming the problem.
configure(${BINARY_DIR}/missing-policy -DCMAKE_C_COMPILER=${CLANG}
          -DCMAKE_CXX_COMPILER=${CLANGXX} -DDOWNSTREAM_ERROR=missing-policy)
message(STATUS "missing policy file: ${error}")
if(NOT rc OR NOT out MATCHES "scopealloc_enable\\(broken\\): policy file '[^']*/no-such-policy.yaml' does not exist")
  message(FATAL_ERROR "a missing policy file did not fail the configuration with its name")
endif()
configure(${BINARY_DIR}/bad-value -DCMAKE_C_COMPILER=${CLANG}
          -DCMAKE_CXX_COMPILER=${CLANGXX} -DDOWNSTREAM_ERROR=bad-value)
message(STATUS "bad value: ${error}")
if(NOT rc OR NOT out MATCHES "scopealloc_enable\\(broken\\): DYNAMIC must be keep, demote or reject, not 'sometimes'")
  message(FATAL_ERROR "a malformed DYNAMIC did not fail the configuration")
endif()
find_program(GCC gcc)
if(GCC)
  configure(${BINARY_DIR}/gcc -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++)
  message(STATUS "gcc as compiler: ${error}")
  if(NOT rc OR NOT out MATCHES "is GNU [0-9.]+, but the ScopeAlloc plugin")
    message(FATAL_ERROR "a non-clang compiler did not fail the configuration")
  endif()
endif()

# With the scopealloc-clang wrappers as compilers, scopealloc_enable() adds
# the options but not the plugin, which the wrappers load already (twice
# would run the pass twice). The policy's 256-byte limit is back.
file(COPY ${SOURCE_DIR}/downstream-policy.yaml DESTINATION ${src})
configure(${BINARY_DIR}/wrappers -DCMAKE_C_COMPILER=${PREFIX}/bin/scopealloc-clang
          -DCMAKE_CXX_COMPILER=${PREFIX}/bin/scopealloc-clang++)
if(rc)
  message(FATAL_ERROR "configuring with the wrappers failed: ${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY_DIR}/wrappers --target with_policy
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "building with the wrappers failed:\n${out}${err}")
endif()
file(READ ${BINARY_DIR}/wrappers/build.ninja ninja)
if(ninja MATCHES "fpass-plugin")
  message(FATAL_ERROR "with the wrappers, scopealloc_enable() loaded the plugin a second time")
endif()
execute_process(COMMAND ${BINARY_DIR}/wrappers/with_policy OUTPUT_VARIABLE out)
message(STATUS "with_policy built by the wrappers printed:\n${out}")
if(NOT out MATCHES "workspace allocs [12] peak (6[0-9][0-9]) current 0")
  message(FATAL_ERROR "with_policy built by the wrappers: the policy file was not applied")
endif()
