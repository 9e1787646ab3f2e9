#!/usr/bin/env bash
# Installs what is missing, configures (once) and builds ScopeAlloc with
# Ninja in build/, then installs it into build/install (the layout of the
# interface contract: lib/ScopeAlloc.so, lib/libscopealloc_rt.a,
# include/scopealloc/, bin/scopealloc-clang{,++}, lib/cmake/ScopeAlloc).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SCOPEALLOC_BUILD_DIR:-$root/build}

bash "$root/scripts/setup.sh"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DLLVM_DIR=/usr/lib/llvm-19/lib/cmake/llvm -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build"
cmake --install "$build" --prefix "$build/install" >/dev/null
