#!/usr/bin/env bash
# One program (examples/sensor.c) under three policies: the hosted default,
# the built-in cortex-m tag, and an NPU target from examples/npu-policy.yaml.
# Prints, per policy, where each buffer went and which rule decided.
# Builds and installs the tree first (scripts/build.sh, into
# ${SCOPEALLOC_BUILD_DIR:-build}/install): the first run takes minutes.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SCOPEALLOC_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh" >/dev/null
cc=$build/install/bin/scopealloc-clang

show() { # TITLE FLAGS...
  local title=$1; shift
  echo "== $title"
  "$cc" -O2 -g -c "$root/examples/sensor.c" -o /dev/null -Rpass=scope-alloc \
    -fno-diagnostics-show-option "$@" 2>&1 | grep 'remark:' |
    sed -E "s/^.*sensor.c:([0-9]+):[0-9]+: remark: '([^']+)' in .* \(([^,]+),[^)]*\) (moved to pool '[a-z_]+'|stays on the stack)[^[]*\[rule ([a-z-]+)\]/  \2 (\3): \4 [\5]/"
}
show "hosted (x86_64 default)"
show "cortex-m (built-in tag)" -mllvm -scope-alloc-target=cortex-m
show "ethos-u55 (examples/npu-policy.yaml)" \
  -mllvm "-scope-alloc-policy=$root/examples/npu-policy.yaml" -mllvm -scope-alloc-target=ethos-u55
