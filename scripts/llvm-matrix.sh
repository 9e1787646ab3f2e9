#!/usr/bin/env bash
# One older LLVM of the support matrix (docs/llvm-versions.md), as the
# ctest tests llvm<N>-build, llvm<N>-lit and llvm<N>-unit run it:
#
#   llvm-matrix.sh build <major> <source-dir> <build-dir>
#       configures <build-dir> for /usr/lib/llvm-<major> (the runtime stays
#       built with clang 19), builds everything (the plugin, scopealloc-bound
#       and the wrappers on LLVM <major>'s clang Driver library, the
#       runtimes, the tests) and installs it into <build-dir>/test-install
#   llvm-matrix.sh lit <major> <source-dir> <build-dir>
#       the lit suite of the pass (test/lit) with LLVM <major>'s opt/clang
#   llvm-matrix.sh unit <major> <source-dir> <build-dir>
#       the unit tests (GoogleTest, label unit)
#   llvm-matrix.sh runtime <major> <source-dir> <build-dir>
#       the runtime's tests (label runtime; the GCC-built runtime's test is
#       the primary build's)
#   llvm-matrix.sh e2e <major> <source-dir> <build-dir>
#       the whole-program suite (test/e2e) through the installed wrappers
#       and LLVM <major>'s clang
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
  cmake --build "$build" -j 2
  cmake --install "$build" --prefix "$build/test-install" >/dev/null
  ;;
lit)
  exec /usr/bin/python3 "$llvm/build/utils/lit/lit.py" -sv "$build/test/lit"
  ;;
unit)
  exec ctest --test-dir "$build" -L unit -j 2 --output-on-failure
  ;;
runtime)
  exec ctest --test-dir "$build" -L runtime -E '^runtime\.gcc_built$' -j 2 --output-on-failure
  ;;
e2e)
  # The harness is LLVM 19's lit (the suite uses DEFINE:, which LLVM 15's
  # lit lacks); the compilers under test are LLVM <major>'s.
  exec /usr/bin/python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv "$build/test/e2e"
  ;;
*)
  echo "llvm-matrix: unknown step '$step' (build, lit, unit, runtime or e2e)" >&2
  exit 2
  ;;
esac
