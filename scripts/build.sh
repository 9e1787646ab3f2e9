#!/usr/bin/env bash
# Installs what is missing, configures (once) and builds ScopeAlloc with
# Ninja in build/, then installs it into build/install (the layout of the
# interface contract: lib/ScopeAlloc.so, lib/libscopealloc_rt.a and the shared
# runtime lib/libscopealloc_rt.so.<ABI>,
# include/scopealloc/, bin/scopealloc-clang{,++}, lib/cmake/ScopeAlloc), and
# makes build/venv with the client code generators from PyPI.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SCOPEALLOC_BUILD_DIR:-$root/build}

bash "$root/scripts/setup.sh"
bash "$root/scripts/setup-venv.sh" "$build/venv" # the clients from PyPI (TVM)
cc=/usr/lib/llvm-22/bin/clang # the runtime's compiler (see CMakeLists.txt)
# A build directory configured with another C compiler is configured afresh.
if [ -f "$build/CMakeCache.txt" ] &&
  ! grep -q "^CMAKE_C_COMPILER:[A-Z]*=$cc\$" "$build/CMakeCache.txt"; then
  rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles" "$build/build.ninja"
fi
if [ ! -f "$build/CMakeCache.txt" ] || [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_C_COMPILER=$cc \
    -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build"
cmake --install "$build" --prefix "$build/install" >/dev/null
