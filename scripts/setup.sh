#!/usr/bin/env bash
# Installs the Debian packages ScopeAlloc needs, and only the missing ones:
# a second run installs nothing. Runs apt-get update once, before installing.
set -euo pipefail

packages=(
  llvm-19-dev clang-19 llvm-19-tools libclang-rt-19-dev lld-19  # LLVM 19 toolchain, lit tools, sanitizers
  cmake ninja-build g++ make python3                            # build
  python3-psutil                                                # lit's per-test timeout
  libgtest-dev                                                  # runtime unit tests
  gdb                                                           # debug-info tests
  valgrind                                                      # memcheck client-request tests
  libbenchmark-dev                                              # Google Benchmark micro benchmarks
  python3-matplotlib                                            # charts (benchmarks, build reports)
  pkg-config                                                    # the runtime's .pc file test
  python3-yaml python3-pygments                                 # opt-viewer (remark records test)
  qemu-system-arm                                               # runs the bare-metal (Cortex-M4) demo
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "scopealloc setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
