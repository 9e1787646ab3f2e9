# Binutils named after the drivers: <P>/bin/scopealloc-llvm-ar, -ranlib,
# -nm, ... are symbolic links to LLVM 19's tools (those of the clang the
# drivers wrap), so that an archive of -flto bitcode objects gets a symbol
# index that LLVM 19 can read, and libtool's nm sees their symbols.
#
# CMake finds them without being told: CMakeFindBinUtils takes the toolchain
# prefix from the compiler's name (scopealloc-clang -> "scopealloc-") and
# searches <prefix>llvm-ar before llvm-ar, first in the compiler's directory;
# Compiler/Clang-FindBinUtils does the same for CMAKE_<LANG>_COMPILER_AR and
# _RANLIB, which INTERPROCEDURAL_OPTIMIZATION uses. Without these names it
# falls back to the llvm-ar in PATH, which on Debian 12 is LLVM 14's and
# cannot read LLVM 19 bitcode ("Opaque pointers are only supported in
# -opaque-pointers mode"). Meson and autotools do not derive tool names from
# the compiler's: they take AR, NM and RANLIB from the environment (Meson
# also from a native file), so the short names scopealloc-ar, -ranlib and
# -nm are there to set them to.
#
# llvm-ar picks its mode from the name it is called by (*ranlib -> ranlib),
# so every name is a link, not a copy or a script.
set(scopealloc_binutils
  # installed name           LLVM tool
  scopealloc-llvm-ar         llvm-ar
  scopealloc-llvm-ranlib     llvm-ranlib
  scopealloc-llvm-nm         llvm-nm
  scopealloc-llvm-objcopy    llvm-objcopy
  scopealloc-llvm-objdump    llvm-objdump
  scopealloc-llvm-readelf    llvm-readelf
  scopealloc-llvm-strip      llvm-strip
  scopealloc-llvm-addr2line  llvm-addr2line
  scopealloc-ar              llvm-ar
  scopealloc-ranlib          llvm-ranlib
  scopealloc-nm              llvm-nm)
set(scopealloc_binutils_dir ${CMAKE_CURRENT_BINARY_DIR}/binutils)
file(MAKE_DIRECTORY ${scopealloc_binutils_dir})
while(scopealloc_binutils)
  list(POP_FRONT scopealloc_binutils name tool)
  if(NOT EXISTS ${SCOPEALLOC_LLVM_BIN}/${tool})
    message(FATAL_ERROR "${SCOPEALLOC_LLVM_BIN}/${tool} not found (Debian: llvm-${SCOPEALLOC_LLVM_MAJOR})")
  endif()
  file(CREATE_LINK ${SCOPEALLOC_LLVM_BIN}/${tool} ${scopealloc_binutils_dir}/${name} SYMBOLIC)
  install(FILES ${scopealloc_binutils_dir}/${name} DESTINATION bin)
endwhile()
