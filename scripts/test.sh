#!/usr/bin/env bash
# Runs the whole suite through ctest: runtime GoogleTests, the lit suite of
# the pass, the install and downstream-package checks, and the end-to-end
# programs. Builds (and installs missing packages) first.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SCOPEALLOC_BUILD_DIR:-$root/build}

bash "$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 1200 "$@"
