#!/usr/bin/env bash
# One other LLVM of the support matrix (docs/llvm-versions.md), as the
# ctest tests llvm<N>-build and llvm<N>-<suite> run it:
#
#   llvm-matrix.sh build <major> <source-dir> <build-dir>
#       configures <build-dir> for /usr/lib/llvm-<major>, builds what its
#       suites need (the plugin, scopealloc-bound and the wrappers on LLVM
#       <major>'s clang Driver library, the runtimes, the tests; with
#       SCOPEALLOC_SUITE_FULL=1, set by scripts/test.sh --full, also the
#       benchmarks and the fuzzer from 17 on) and installs it into
#       <build-dir>/test-install. The runtime's compiler is LLVM <major>'s
#       clang from 17 on (CMakeLists.txt), LLVM 22's before.
#   llvm-matrix.sh lit <major> <source-dir> <build-dir>
#       the lit suite of the pass (test/lit) with LLVM <major>'s opt/clang
#   llvm-matrix.sh e2e <major> <source-dir> <build-dir>
#       the whole-program suite (test/e2e) through the installed wrappers
#       and LLVM <major>'s clang (15 and 16: one half each, unless
#       SCOPEALLOC_SUITE_FULL=1)
#   llvm-matrix.sh <label> <major> <source-dir> <build-dir>
#       any other ctest label of that tree (unit, runtime, realworld, ...):
#       its tests, but for those that label runtime also has (runtime runs
#       them); LLVM 15 and 16 leave out runtime.gcc_built (the primary
#       build's)
#
# Exits 77 (ctest: skipped) when LLVM <major> is not installed.
set -euo pipefail
step=$1 major=$2 src=$3 build=$4
llvm=/usr/lib/llvm-$major
if [ ! -f "$llvm/lib/cmake/llvm/LLVMConfig.cmake" ] || [ ! -x "$llvm/bin/clang" ]; then
  echo "llvm-matrix: LLVM $major is not installed (Debian: llvm-$major-dev clang-$major lld-$major); skipped"
  exit 77
fi
# lit: bin/lit from LLVM 22 on, build/utils/lit/lit.py before.
lit=$llvm/bin/lit
[ -x "$lit" ] || lit=$llvm/build/utils/lit/lit.py
case $step in
build)
  if [ "$major" -lt 17 ]; then
    # lit, unit and e2e only: the runtime is the primary's compiler's
    # (LLVM 22's clang), so its tests, the benchmarks and the fuzzer are
    # not built again.
    opts=(-DCMAKE_C_COMPILER=/usr/lib/llvm-22/bin/clang -DSCOPEALLOC_BUILD_RUNTIME_TESTS=OFF
      -DSCOPEALLOC_BUILD_BENCH=OFF -DSCOPEALLOC_BUILD_FUZZERS=OFF)
  elif [ "${SCOPEALLOC_SUITE_FULL:-0}" = 1 ]; then
    # scripts/test.sh --full: every suite, in less time than the primary's
    # (docs/llvm-versions.md): the real-world packages without their
    # AddressSanitizer builds, and half the fuzz runs, with other seeds
    # than the primary's.
    opts=(-DSCOPEALLOC_BUILD_BENCH=ON -DSCOPEALLOC_BUILD_FUZZERS=ON -DSCOPEALLOC_REALWORLD_ASAN=OFF
      -DSCOPEALLOC_FUZZ_STRESS_SEEDS=301-375 -DSCOPEALLOC_FUZZ_STRESS_MORE_SEEDS=376-450
      -DSCOPEALLOC_FUZZ_DIFFERENTIAL_SEEDS=101-125 -DSCOPEALLOC_FUZZ_DIFFERENTIAL_MORE_SEEDS=126-150
      -DSCOPEALLOC_FUZZ_BOUND_RUNS=20000)
  else
    # The default run: runtime, unit, lit, e2e and baremetal (test/CMakeLists.txt).
    opts=(-DSCOPEALLOC_BUILD_BENCH=OFF -DSCOPEALLOC_BUILD_FUZZERS=OFF -DSCOPEALLOC_REALWORLD_ASAN=OFF)
  fi
  # Configured every time (a few seconds): a tree made for the default run
  # is turned into the full one and back.
  cmake -S "$src" -B "$build" -G Ninja -DLLVM_DIR="$llvm/lib/cmake/llvm" \
    "${opts[@]}" -DCMAKE_BUILD_TYPE=Release -DSCOPEALLOC_ENABLE_MLIR=OFF >/dev/null
  # Two jobs: the machines the suite runs on have two cores.
  cmake --build "$build" -j 2
  cmake --install "$build" --prefix "$build/test-install" >/dev/null
  ;;
lit)
  exec /usr/bin/python3 "$lit" -sv "$build/test/lit"
  ;;
e2e)
  if [ "$major" -lt 17 ]; then
    # The harness is LLVM 22's lit (the suite uses DEFINE:, which LLVM 15's
    # lit lacks); the compilers under test are LLVM <major>'s. By default
    # LLVM 15 runs one half of the suite and 16 the other (lit's shards),
    # so that every test runs on a pre-17 clang once (the two share the
    # plugin's pre-17 code), in half the time; --full runs all of it on
    # both.
    e2e_lit=(/usr/bin/python3 /usr/lib/llvm-22/bin/lit -sv)
    if [ "${SCOPEALLOC_SUITE_FULL:-0}" = 1 ]; then
      exec "${e2e_lit[@]}" "$build/test/e2e"
    fi
    status=0
    "${e2e_lit[@]}" --num-shards 2 --run-shard $((major == 15 ? 1 : 2)) "$build/test/e2e" || status=$?
    # The tests LLVM 15 cannot run run on 16, whichever half they are in.
    if [ "$major" = 16 ]; then
      only16=$(grep -rlE 'UNSUPPORTED:.*llvm-15' "$src/test/e2e" | xargs -r -n1 basename | paste -sd'|')
      [ -z "$only16" ] || "${e2e_lit[@]}" --filter "^ScopeAlloc-e2e :: ($only16)\$" "$build/test/e2e" || status=$?
    fi
    exit $status
  fi
  exec ctest --test-dir "$build" -L '^e2e$' -LE '^runtime$' -j 2 --output-on-failure
  ;;
runtime)
  exclude=()
  if [ "$major" -lt 17 ]; then exclude=(-E '^runtime\.gcc_built$'); fi
  exec ctest --test-dir "$build" -L '^runtime$' "${exclude[@]}" -j 2 --output-on-failure
  ;;
[a-z]*)
  exec ctest --test-dir "$build" -L "^$step\$" -LE '^runtime$' -j 2 --output-on-failure
  ;;
*)
  echo "llvm-matrix: unknown step '$step' (build, or a ctest label)" >&2
  exit 2
  ;;
esac
