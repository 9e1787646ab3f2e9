# Configures, builds and runs the downstream project against an installed
# ScopeAlloc at PREFIX. Run with cmake -P.
file(REMOVE_RECURSE ${BINARY_DIR})
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BINARY_DIR} -G Ninja
          -DCMAKE_PREFIX_PATH=${PREFIX}
          -DCMAKE_C_COMPILER=${PREFIX}/bin/scopealloc-clang
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the downstream project failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY_DIR} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the downstream project failed")
endif()
execute_process(COMMAND ${BINARY_DIR}/downstream RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "downstream printed:\n${out}${err}")
if(rc OR NOT out MATCHES "workspace allocs > 0, peak >= 4096")
  message(FATAL_ERROR "the downstream program did not use the workspace pool (exit ${rc})")
endif()
