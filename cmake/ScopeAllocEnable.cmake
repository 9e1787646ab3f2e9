# scopealloc_enable(): compile a target's C and C++ sources through the
# ScopeAlloc pass and link the runtime. Included by ScopeAllocConfig.cmake;
# usage is documented there.

# The policy settings' keywords (generated from the settings table).
include("${CMAKE_CURRENT_LIST_DIR}/ScopeAllocSettings.cmake")

# Each `-mllvm <option>` pair is one SHELL: item, so that CMake's option
# de-duplication cannot drop the second `-mllvm`.
function(_scopealloc_add_mllvm target option)
  target_compile_options(${target} PRIVATE
    "$<$<COMPILE_LANGUAGE:C,CXX>:SHELL:-mllvm \"${option}\">")
endfunction()

# The plugin only loads into the clang it was built against.
function(_scopealloc_check_compilers target)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  set(checked FALSE)
  foreach(lang IN ITEMS C CXX)
    if(NOT lang IN_LIST languages)
      continue()
    endif()
    set(checked TRUE)
    set(id "${CMAKE_${lang}_COMPILER_ID}")
    set(version "${CMAKE_${lang}_COMPILER_VERSION}")
    string(REGEX MATCH "^[0-9]+" major "${version}")
    if(lang STREQUAL "C")
      set(suggest clang)
      set(wrapper "${SCOPEALLOC_CLANG}")
    else()
      set(suggest clang++)
      set(wrapper "${SCOPEALLOC_CLANGXX}")
    endif()
    if(NOT id STREQUAL "Clang" OR NOT major STREQUAL "${SCOPEALLOC_LLVM_MAJOR}")
      message(FATAL_ERROR
        "scopealloc_enable(${target}): the ${lang} compiler ${CMAKE_${lang}_COMPILER} "
        "is ${id} ${version}, but the ScopeAlloc plugin (${SCOPEALLOC_PLUGIN}) only "
        "loads into clang ${SCOPEALLOC_LLVM_MAJOR}. Configure with "
        "-DCMAKE_${lang}_COMPILER=${suggest}-${SCOPEALLOC_LLVM_MAJOR} "
        "or with the wrapper ${wrapper}.")
    endif()
  endforeach()
  if(NOT checked)
    message(FATAL_ERROR "scopealloc_enable(${target}): the project enables neither C nor CXX")
  endif()
endfunction()

# ccache hashes the compile command, not the plugin or the policy file the
# command names, so it would serve an object built with an old policy or
# plugin: when the target's compiler launcher (or the compiler itself) is
# ccache, the launcher becomes `env CCACHE_EXTRAFILES=<files> <launcher>`,
# which makes ccache hash the files' contents too. A target that writes
# reports also gets CCACHE_RECACHE=1 (compile, then store), since a cache hit
# would write no report.
function(_scopealloc_ccache_launcher target files report)
  if(NOT SCOPEALLOC_ENV_PROGRAM)
    find_program(SCOPEALLOC_ENV_PROGRAM env)
  endif()
  if(SCOPEALLOC_ENV_PROGRAM)
    set(env "${SCOPEALLOC_ENV_PROGRAM}")
  else()
    set(env "${CMAKE_COMMAND}" -E env)
  endif()
  string(REPLACE ";" ":" extra_files "${files}")
  list(APPEND env "CCACHE_EXTRAFILES=${extra_files}")
  if(report)
    list(APPEND env "CCACHE_RECACHE=1")
  endif()
  foreach(lang IN ITEMS C CXX)
    if(NOT CMAKE_${lang}_COMPILER)
      continue()
    endif()
    get_target_property(launcher ${target} ${lang}_COMPILER_LAUNCHER)
    if(NOT launcher)
      set(launcher "")
    endif()
    set(ccache FALSE)
    if(launcher)
      list(GET launcher 0 first)
      get_filename_component(first "${first}" NAME)
      if(first MATCHES "^ccache")
        set(ccache TRUE)
      endif()
    endif()
    get_filename_component(compiler "${CMAKE_${lang}_COMPILER}" REALPATH)
    get_filename_component(compiler "${compiler}" NAME)
    if(compiler MATCHES "^ccache")
      set(ccache TRUE)
    endif()
    if(ccache)
      set_property(TARGET ${target} PROPERTY ${lang}_COMPILER_LAUNCHER ${env} ${launcher})
    endif()
  endforeach()
endfunction()

# LTO (-flto, -flto=thin): the compile steps leave the pass's decisions to
# the link, which must run it: lld with the plugin loaded. Added when the
# target is compiled with LTO: its INTERPROCEDURAL_OPTIMIZATION(_<CONFIG>)
# property, or -flto in CMAKE_<LANG>_FLAGS(_<CONFIG>) or the target's
# compile options (those set before scopealloc_enable()). A static or object
# library passes them on to the links that use it. (The scopealloc-clang
# wrappers add them themselves when the link line has -flto.)
function(_scopealloc_lto_condition target out)
  set(flagged 0)
  set(lto_flag "(^|[ ;])-flto(=thin|=full|=auto|=jobserver)?($|[ ;])")
  set(configs ${CMAKE_CONFIGURATION_TYPES} ${CMAKE_BUILD_TYPE} Debug Release
              RelWithDebInfo MinSizeRel)
  foreach(lang IN ITEMS C CXX)
    foreach(config IN ITEMS "" ${configs})
      if(config)
        string(TOUPPER "_${config}" config)
      endif()
      if(CMAKE_${lang}_FLAGS${config} MATCHES "${lto_flag}")
        set(flagged 1)
      endif()
    endforeach()
  endforeach()
  get_target_property(options ${target} COMPILE_OPTIONS)
  if(options MATCHES "${lto_flag}")
    set(flagged 1)
  endif()
  set(ipo "$<TARGET_PROPERTY:${target},INTERPROCEDURAL_OPTIMIZATION>")
  set(ipo_config "$<TARGET_PROPERTY:${target},INTERPROCEDURAL_OPTIMIZATION_$<UPPER_CASE:$<CONFIG>>>")
  set(${out} "$<OR:${flagged},$<BOOL:${ipo}>,$<BOOL:${ipo_config}>>" PARENT_SCOPE)
endfunction()

# Link options of an LTO target, on its links (and, for a static or object
# library, on the links that use it); nothing without LTO.
function(_scopealloc_lto_link_flags target type)
  _scopealloc_lto_condition(${target} lto)
  set(scopes PRIVATE)
  if(type STREQUAL "STATIC_LIBRARY" OR type STREQUAL "OBJECT_LIBRARY")
    set(scopes INTERFACE)
  endif()
  set(flags)
  foreach(flag IN LISTS ARGN)
    list(APPEND flags "$<${lto}:${flag}>")
  endforeach()
  target_link_options(${target} ${scopes} ${flags})
endfunction()

function(_scopealloc_lto_link_options target type)
  _scopealloc_lto_link_flags(${target} ${type}
    -fuse-ld=lld "-Wl,--load-pass-plugin=${SCOPEALLOC_PLUGIN}"
    # The link's code generator writes the frame sizes scopealloc-bound reads.
    -Wl,-mllvm,-stack-size-section)
endfunction()

# Whether the project's toolchain builds for something else than the host
# runtimes: a toolchain file, a compiler target, another pointer size, or a
# target flag in the compile flags.
function(_scopealloc_foreign_toolchain out)
  set(foreign FALSE)
  if(CMAKE_CROSSCOMPILING OR CMAKE_C_COMPILER_TARGET OR CMAKE_CXX_COMPILER_TARGET
     OR NOT CMAKE_SIZEOF_VOID_P EQUAL SCOPEALLOC_HOST_SIZEOF_VOID_P
     OR " ${CMAKE_C_FLAGS} ${CMAKE_CXX_FLAGS}" MATCHES " (--target|-target|-m32|-m16|-mx32)")
    set(foreign TRUE)
  endif()
  set(${out} ${foreign} PARENT_SCOPE)
endfunction()

# The language whose compiler answers questions about the target (C, else
# CXX) into `lang_out`, and that compiler's target and flags into
# `flags_out`, as the wrapper would pass them.
function(_scopealloc_compiler_and_flags lang_out flags_out)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  set(lang C)
  if(NOT "C" IN_LIST languages)
    set(lang CXX)
  endif()
  set(flags)
  if(CMAKE_${lang}_COMPILER_TARGET)
    list(APPEND flags "--target=${CMAKE_${lang}_COMPILER_TARGET}")
  endif()
  separate_arguments(more UNIX_COMMAND "${CMAKE_${lang}_FLAGS}")
  list(APPEND flags ${more})
  set(${lang_out} ${lang} PARENT_SCOPE)
  set(${flags_out} ${flags} PARENT_SCOPE)
endfunction()

# The runtime of a cross or bare-metal toolchain is the one scopealloc-clang
# links for the toolchain's target and flags (--scopealloc-print-runtime),
# so that the wrapper and this function always agree. Sets <out> to
# ScopeAlloc::runtime_freestanding (a bare-metal archive, imported once) or
# to "host"; stops with the wrapper's message when the target has none.
function(_scopealloc_toolchain_runtime target kind out)
  set(where "scopealloc_enable(${target})")
  _scopealloc_compiler_and_flags(lang flags)
  if(kind STREQUAL "STATIC")
    list(APPEND flags -static)
  endif()
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env --unset=SCOPEALLOC_RUNTIME --unset=SCOPEALLOC_FLAGS
            --unset=SCOPEALLOC_FLAGS_FILE "${SCOPEALLOC_CLANG}" ${flags} --scopealloc-print-runtime
    RESULT_VARIABLE rc OUTPUT_VARIABLE runtime ERROR_VARIABLE err
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  # Messages print lists joined, not as CMake's ";"-separated strings.
  list(JOIN flags " " flags_text)
  if(rc)
    string(REPLACE "scopealloc-clang: " "  " err "${err}")
    string(REPLACE "SCOPEALLOC_RUNTIME=none" "RUNTIME NONE" err "${err}")
    message(FATAL_ERROR "${where}: the toolchain's target (${flags_text}) has no ScopeAlloc runtime:\n${err}")
  endif()
  if(NOT runtime MATCHES "/lib/baremetal/")
    set(${out} host PARENT_SCOPE)
    return()
  endif()
  if(kind STREQUAL "SHARED")
    message(FATAL_ERROR "${where}: RUNTIME SHARED, but the toolchain's target (${flags_text}) is "
                        "bare metal: its runtime is the static ${runtime}")
  endif()
  if(NOT TARGET ScopeAlloc::runtime_freestanding)
    add_library(ScopeAlloc::runtime_freestanding STATIC IMPORTED GLOBAL)
    set_target_properties(ScopeAlloc::runtime_freestanding PROPERTIES
      IMPORTED_LOCATION "${runtime}"
      INTERFACE_INCLUDE_DIRECTORIES "${SCOPEALLOC_PREFIX}/include")
    message(STATUS "ScopeAlloc: freestanding runtime ${runtime}")
  endif()
  get_target_property(imported ScopeAlloc::runtime_freestanding IMPORTED_LOCATION)
  if(NOT imported STREQUAL runtime)
    message(FATAL_ERROR "${where}: needs the runtime ${runtime}, but the project "
                        "already links ${imported} (one runtime per project)")
  endif()
  set(${out} ScopeAlloc::runtime_freestanding PARENT_SCOPE)
endfunction()

# The link of an executable with a POLICY is checked against the bounds the
# policy declares for its target ('stack-bound', 'entries', 'pool-sizes' of
# TARGET_TAG's target, else of the one whose triples match the compiler's
# triple): scopealloc-bound --check runs after the link (POST_BUILD) and,
# when a bound does not hold, prints the entry or pool, the bound and the
# critical chain, deletes the image and fails the build. A policy that
# declares no bound makes the command do nothing. SCOPEALLOC_BOUND_CHECK
# (ON, WARN: report only, OFF: no command) is read when configuring.
function(_scopealloc_bound_check target policy tag)
  if(DEFINED SCOPEALLOC_BOUND_CHECK)
    string(TOUPPER "${SCOPEALLOC_BOUND_CHECK}" mode)
  else()
    set(mode ON)
  endif()
  if(mode STREQUAL "OFF")
    return()
  elseif(NOT mode MATCHES "^(ON|WARN)$")
    message(FATAL_ERROR "scopealloc_enable(${target}): SCOPEALLOC_BOUND_CHECK must be "
                        "ON, WARN or OFF, not '${SCOPEALLOC_BOUND_CHECK}'")
  endif()
  set(command "${SCOPEALLOC_PREFIX}/bin/scopealloc-bound" --check "--policy=${policy}")
  if(tag)
    list(APPEND command "--target=${tag}")
  endif()
  # The triple the pass sees, as the wrapper asks for it.
  _scopealloc_compiler_and_flags(lang flags)
  execute_process(COMMAND "${CMAKE_${lang}_COMPILER}" ${flags} "-###" -c -x c /dev/null
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc AND out MATCHES "\"-triple\" \"([^\"]+)\"")
    list(APPEND command "--triple=${CMAKE_MATCH_1}")
  endif()
  if(mode STREQUAL "WARN")
    list(APPEND command --warn-only)
  else()
    list(APPEND command --delete-on-failure)
  endif()
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${command} "$<TARGET_FILE:${target}>"
    VERBATIM)
endfunction()

# REMARKS [PASSED] [MISSED] [ANALYSIS]: clang's -Rpass*=scope-alloc flags
# into `out`.
function(_scopealloc_remark_flags target kinds out)
  set(flags)
  foreach(kind IN LISTS kinds)
    if(kind STREQUAL "PASSED")
      list(APPEND flags -Rpass=scope-alloc)
    elseif(kind STREQUAL "MISSED")
      list(APPEND flags -Rpass-missed=scope-alloc)
    elseif(kind STREQUAL "ANALYSIS")
      list(APPEND flags -Rpass-analysis=scope-alloc)
    else()
      message(FATAL_ERROR "scopealloc_enable(${target}): REMARKS takes PASSED, MISSED "
                          "or ANALYSIS (none: PASSED), not '${kind}'")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES flags)
  set(${out} ${flags} PARENT_SCOPE)
endfunction()

# OPTIONS are LLVM options of the pass, each given to clang as
# `-mllvm <option>`: a clang flag there would only fail in every compile
# with "Unknown command line argument", so it stops the configuration
# naming what to write instead.
function(_scopealloc_check_options target options)
  set(where "scopealloc_enable(${target})")
  set(how "OPTIONS passes each value to the pass as -mllvm <value>")
  foreach(option IN LISTS options)
    if(option MATCHES "^-mllvm")
      message(FATAL_ERROR "${where}: OPTIONS ${option}: ${how}; give the "
                          "option without -mllvm (OPTIONS -scope-alloc-...)")
    elseif(option MATCHES "^-Rpass(-missed|-analysis)?=")
      message(FATAL_ERROR "${where}: OPTIONS ${option}: a clang flag, but ${how}; "
                          "for the pass's remarks write REMARKS (REMARKS MISSED, "
                          "REMARKS ANALYSIS for the others), for other passes "
                          "target_compile_options(${target} PRIVATE ${option})")
    elseif(option MATCHES "^-(R|W|Xclang|D|I|O[0-3sz]?$)")
      message(FATAL_ERROR "${where}: OPTIONS ${option}: a clang flag, but ${how}; "
                          "write target_compile_options(${target} PRIVATE ${option})")
    elseif(NOT option MATCHES "^-")
      message(FATAL_ERROR "${where}: OPTIONS ${option}: not an option; ${how} "
                          "(OPTIONS -scope-alloc-...)")
    endif()
  endforeach()
endfunction()

function(scopealloc_enable target)
  # The policy settings' keywords come from the settings table
  # (ScopeAllocSettings.cmake, generated from analysis/PolicySettings.def).
  set(one_value ${SCOPEALLOC_SETTINGS} REPORT_DIR RUNTIME)
  cmake_parse_arguments(PARSE_ARGV 1 SA "" "${one_value}" "OPTIONS;REMARKS")
  set(where "scopealloc_enable(${target})")
  if(NOT TARGET ${target})
    message(FATAL_ERROR "${where}: no target named '${target}'")
  endif()
  if(SA_UNPARSED_ARGUMENTS)
    list(JOIN SA_UNPARSED_ARGUMENTS ", " unknown)
    list(JOIN one_value ", " known)
    message(FATAL_ERROR "${where}: unknown arguments: ${unknown} "
                        "(known: ${known}, REMARKS, OPTIONS)")
  endif()
  # REMARKS alone asks for the remarks of what the pass did.
  if("REMARKS" IN_LIST SA_KEYWORDS_MISSING_VALUES)
    list(REMOVE_ITEM SA_KEYWORDS_MISSING_VALUES REMARKS)
    set(SA_REMARKS PASSED)
  endif()
  foreach(key IN LISTS SA_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${where}: ${key} needs a value")
  endforeach()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
    message(FATAL_ERROR "${where}: '${target}' is a ${type} target; it compiles nothing")
  endif()
  get_target_property(done ${target} SCOPEALLOC_ENABLED)
  if(done)
    message(FATAL_ERROR "${where}: ScopeAlloc is already enabled for '${target}'")
  endif()
  _scopealloc_check_compilers(${target})

  # Values are checked here so that a typo fails at configure time, naming
  # the argument, rather than in every compile.
  foreach(key IN LISTS SCOPEALLOC_SETTINGS)
    if(NOT DEFINED SA_${key})
      continue()
    endif()
    set(value "${SA_${key}}")
    set(kind ${SCOPEALLOC_SETTING_VALUE_${key}})
    if(kind STREQUAL "Bytes" AND NOT value MATCHES "^[0-9]+$")
      message(FATAL_ERROR "${where}: ${key} must be a number of bytes, not '${value}'")
    elseif(kind STREQUAL "Rule" AND NOT value MATCHES "^(keep|demote|reject)$")
      message(FATAL_ERROR "${where}: ${key} must be keep, demote or reject, not '${value}'")
    elseif(kind STREQUAL "Conflict" AND NOT value MATCHES "^(error|warn)$")
      message(FATAL_ERROR "${where}: ${key} must be error or warn, not '${value}'")
    elseif(kind STREQUAL "Pool" AND NOT value MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "${where}: ${key} must be a C identifier, not '${value}'")
    endif()
  endforeach()
  _scopealloc_remark_flags(${target} "${SA_REMARKS}" remark_flags)
  _scopealloc_check_options(${target} "${SA_OPTIONS}")
  if(DEFINED SA_RUNTIME AND NOT SA_RUNTIME MATCHES "^(SHARED|STATIC|NONE)$")
    message(FATAL_ERROR "${where}: RUNTIME must be SHARED, STATIC or NONE, not '${SA_RUNTIME}'")
  endif()
  set(depends "${SCOPEALLOC_PLUGIN}")
  if(DEFINED SA_POLICY)
    get_filename_component(policy "${SA_POLICY}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${policy}" OR IS_DIRECTORY "${policy}")
      message(FATAL_ERROR "${where}: policy file '${policy}' does not exist")
    endif()
    list(APPEND depends "${policy}")
  endif()

  # The scopealloc-clang wrappers already load the plugin; loading it twice
  # would run the pass twice.
  set(wrapped TRUE)
  foreach(lang IN ITEMS C CXX)
    if(CMAKE_${lang}_COMPILER AND NOT CMAKE_${lang}_COMPILER MATCHES "/scopealloc-clang(\\+\\+)?$")
      set(wrapped FALSE)
    endif()
  endforeach()
  if(NOT wrapped)
    # clang 22 loads -fpass-plugin= before it parses -mllvm; older clang
    # needs -fplugin= too for the plugin's -mllvm options.
    if(SCOPEALLOC_LLVM_MAJOR GREATER_EQUAL 22)
      target_compile_options(${target} PRIVATE
        "$<$<COMPILE_LANGUAGE:C,CXX>:SHELL:\"-fpass-plugin=${SCOPEALLOC_PLUGIN}\">")
    else()
      target_compile_options(${target} PRIVATE
        "$<$<COMPILE_LANGUAGE:C,CXX>:SHELL:\"-fpass-plugin=${SCOPEALLOC_PLUGIN}\" \"-fplugin=${SCOPEALLOC_PLUGIN}\">")
    endif()
    # What scopealloc-bound reads, as the wrappers add it: machine frame
    # sizes and the pass's facts (.scopealloc_facts), asked for through
    # -Xclang so that no assembler job (-save-temps) sees the option.
    target_compile_options(${target} PRIVATE
      "$<$<COMPILE_LANGUAGE:C,CXX>:-fstack-size-section>"
      "$<$<COMPILE_LANGUAGE:C,CXX>:SHELL:-Xclang -mllvm -Xclang -scope-alloc-facts>")
    _scopealloc_lto_link_options(${target} ${type})
  endif()
  foreach(key IN LISTS SCOPEALLOC_SETTINGS)
    if(key STREQUAL "POLICY")
      set(value "${policy}") # made absolute above
    else()
      set(value "${SA_${key}}")
    endif()
    if(DEFINED SA_${key})
      _scopealloc_add_mllvm(${target} "-scope-alloc-${SCOPEALLOC_SETTING_KEY_${key}}=${value}")
    endif()
  endforeach()
  # Reports and remarks name variables by their IR value names, which clang
  # drops without -fno-discard-value-names (remarks would say '%3').
  target_compile_options(${target} PRIVATE
    "$<$<COMPILE_LANGUAGE:C,CXX>:-fno-discard-value-names>")
  if(DEFINED SA_REPORT_DIR)
    # The trailing slash selects the plugin's directory mode: one uniquely
    # named JSON report per compiled file.
    get_filename_component(report_dir "${SA_REPORT_DIR}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    _scopealloc_add_mllvm(${target} "-scope-alloc-report=${report_dir}/")
  endif()
  foreach(option IN LISTS SA_OPTIONS)
    _scopealloc_add_mllvm(${target} "${option}")
  endforeach()
  if(remark_flags)
    # Under LTO the pass decides at the link, so its remarks come from there.
    foreach(flag IN LISTS remark_flags)
      target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:C,CXX>:${flag}>")
    endforeach()
    _scopealloc_lto_link_flags(${target} ${type} ${remark_flags})
  endif()

  # Properties rather than target_link_libraries(), which would clash with a
  # project that uses its keyword-less form for the same target. The shared
  # runtime by default: executables and shared/module libraries of one
  # process must share one runtime, or each keeps its own arena per thread.
  set(runtime ScopeAlloc::runtime)
  if(SA_RUNTIME STREQUAL "STATIC")
    set(runtime ScopeAlloc::runtime_static)
  endif()
  # Cross and bare-metal toolchains: the target's runtime, or none.
  _scopealloc_foreign_toolchain(foreign)
  if(SA_RUNTIME STREQUAL "NONE")
    set(runtime)
  elseif(foreign)
    _scopealloc_toolchain_runtime(${target} "${SA_RUNTIME}" toolchain_runtime)
    if(NOT toolchain_runtime STREQUAL "host")
      set(runtime ${toolchain_runtime})
    endif()
  endif()
  if(runtime)
    set_property(TARGET ${target} APPEND PROPERTY LINK_LIBRARIES ${runtime})
  endif()
  if(runtime AND (type STREQUAL "STATIC_LIBRARY" OR type STREQUAL "OBJECT_LIBRARY"))
    set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_LIBRARIES
                 "$<LINK_ONLY:${runtime}>")
  endif()

  # A new policy or plugin must recompile the target's objects, as a changed
  # header would: clang lists them in each object's depfile (the one Ninja
  # and Makefiles read), so this holds for this target only and for sources
  # added later. (OBJECT_DEPENDS is per source file and directory, so it
  # would also rebuild other targets compiling the same file.)
  foreach(file IN LISTS depends)
    target_compile_options(${target} PRIVATE
      "$<$<COMPILE_LANGUAGE:C,CXX>:SHELL:-Xclang \"-fdepfile-entry=${file}\">")
  endforeach()
  set(report FALSE)
  if(DEFINED SA_REPORT_DIR)
    set(report TRUE)
  endif()
  _scopealloc_ccache_launcher(${target} "${depends}" ${report})
  if(DEFINED SA_POLICY AND type STREQUAL "EXECUTABLE")
    _scopealloc_bound_check(${target} "${policy}" "${SA_TARGET_TAG}")
  endif()
  set_target_properties(${target} PROPERTIES SCOPEALLOC_ENABLED TRUE)
endfunction()
