#!/usr/bin/env bash
# One older LLVM of the support matrix (docs/llvm-versions.md), as the
# ctest tests llvm<N>-build, llvm<N>-lit and llvm<N>-unit run it:
#
#   llvm-matrix.sh build <major> <source-dir> <build-dir>
#       configures <build-dir> for /usr/lib/llvm-<major> (the runtime stays
#       built with clang 19) and builds what the plugin-focused suites use:
#       ScopeAlloc.so, scopealloc-bound, the runtime, the unit tests
#   llvm-matrix.sh lit <major> <source-dir> <build-dir>
#       the lit suite of the pass (test/lit) with LLVM <major>'s opt/clang
#   llvm-matrix.sh unit <major> <source-dir> <build-dir>
#       the unit tests (GoogleTest, label unit)
#
# Exits 77 (ctest: skipped) when LLVM <major> is not installed.
set -euo pipefail
step=$1 major=$2 src=$3 build=$4
llvm=/usr/lib/llvm-$major
if [ ! -f "$llvm/lib/cmake/llvm/LLVMConfig.cmake" ] || [ ! -x "$llvm/bin/clang" ]; then
  echo "llvm-matrix: LLVM $major is not installed (Debian: llvm-$major-dev clang-$major lld-$major); skipped"
  exit 77
fi
case $step in
build)
  if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$src" -B "$build" -G Ninja -DLLVM_DIR="$llvm/lib/cmake/llvm" \
      -DCMAKE_C_COMPILER=/usr/lib/llvm-19/bin/clang -DCMAKE_BUILD_TYPE=Release \
      -DSCOPEALLOC_ENABLE_MLIR=OFF >/dev/null
  fi
  # Two jobs: the machines the suite runs on have two cores.
  cmake --build "$build" -j 2 --target ScopeAlloc scopealloc-bound scopealloc_rt scopealloc_unit_tests
  ;;
lit)
  exec /usr/bin/python3 "$llvm/build/utils/lit/lit.py" -sv "$build/test/lit"
  ;;
unit)
  exec ctest --test-dir "$build" -L unit -j 2 --output-on-failure
  ;;
*)
  echo "llvm-matrix: unknown step '$step' (build, lit or unit)" >&2
  exit 2
  ;;
esac
