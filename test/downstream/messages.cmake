# The configuration errors of scopealloc_enable() that name lists print them
# joined with ", ", not as CMake's ";"-separated strings. Configures only
# (no build), against the installed ScopeAlloc at PREFIX. Run with cmake -P.
set(dir ${BINARY_DIR}/unknown-arguments)
file(REMOVE_RECURSE ${dir})
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${dir} -G Ninja
          -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_C_COMPILER=${CLANG}
          -DCMAKE_CXX_COMPILER=${CLANGXX} -DDOWNSTREAM_ERROR=unknown-arguments
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
# CMake wraps long messages; one line is easier to match.
string(REGEX REPLACE "[ \n]+" " " out "${out}${err}")
string(REGEX MATCH "scopealloc_enable\\(broken\\): unknown arguments:[^)]*\\)" message "${out}")
message(STATUS "unknown arguments: ${message}")
if(NOT rc OR NOT message MATCHES "unknown arguments: LIMIT, 0, VERBOSE \\(known: MAX_STACK_ALLOCA, FRAME_BUDGET, ")
  message(FATAL_ERROR "unknown arguments were not listed joined with ', ':\n${out}")
endif()
if(message MATCHES ";")
  message(FATAL_ERROR "the message prints a CMake list with ';': ${message}")
endif()
