#!/usr/bin/env bash
# Runs the suite through ctest: runtime GoogleTests, the lit suite of the
# pass, the install and downstream-package checks, the end-to-end
# programs, the clients, bare metal on QEMU, real-world packages, fuzzing
# and the other supported LLVMs (docs/llvm-versions.md). Builds (and
# installs missing packages) first.
#
#   scripts/test.sh [--full] [ctest arguments...]
#
# By default the tests labelled `full` are left out: LLVM 19's tree runs
# what differs between versions (runtime, unit, lit, e2e, baremetal), not
# its real-world, fuzzing, client, build-system, docs and benchmark runs.
# --full runs those too (and builds LLVM 19's benchmarks and fuzzer).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SCOPEALLOC_BUILD_DIR:-$root/build}

select=(-LE '^full$')
if [ "${1:-}" = --full ]; then
  shift
  select=()
  export SCOPEALLOC_SUITE_FULL=1
fi

bash "$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 1200 "${select[@]}" "$@"
