#!/usr/bin/env bash
# Installs the Debian packages ScopeAlloc needs, and only the missing ones:
# a second run installs nothing. Runs apt-get update once, before installing.
#
#   setup.sh --deb-src [--no-update]
# instead makes sure apt knows Debian's source packages (the real-world
# suite fetches them with apt-get source) through exactly one deb-src entry:
# when none is configured, it adds /etc/apt/sources.list.d/
# scopealloc-deb-src.sources (the "Types: deb" Debian stanzas with
# Types: deb-src); when another entry provides deb-src, it removes that file
# again, which would otherwise configure the same targets twice (apt: "Target
# Sources ... is configured multiple times"). A second run changes nothing.
# Then apt-get update when the entry is new or no source index was fetched
# (not with --no-update). SCOPEALLOC_APT_ETC replaces /etc/apt (tests).
set -euo pipefail

sudo=""
if [ "$(id -u)" != 0 ]; then sudo=sudo; fi

deb_src() {
  local update=1 etc=${SCOPEALLOC_APT_ETC:-/etc/apt} ours others tmp
  [ "${1:-}" = --no-update ] && update=0
  ours=$etc/sources.list.d/scopealloc-deb-src.sources
  others=()
  for f in "$etc/sources.list" "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources; do
    [ -f "$f" ] && [ "$f" != "$ours" ] && others+=("$f")
  done
  if [ ${#others[@]} -gt 0 ] &&
    grep -Eqs '^[[:space:]]*(Types:.*deb-src|deb-src[[:space:]])' "${others[@]}"; then
    if [ -e "$ours" ]; then
      echo "scopealloc setup: removing $ours (another entry provides deb-src)"
      $sudo rm -f "$ours"
    fi
  elif [ ! -e "$ours" ]; then
    echo "scopealloc setup: adding a deb-src entry: $ours"
    tmp=$(mktemp)
    if [ -f "$etc/sources.list.d/debian.sources" ]; then
      # Copy the Debian stanzas, with Types: deb-src.
      awk 'BEGIN{RS=""; ORS="\n\n"} /URIs:[^\n]*debian/ { gsub(/Types:[^\n]*/, "Types: deb-src"); print }' \
        "$etc/sources.list.d/debian.sources" > "$tmp"
    fi
    if [ ! -s "$tmp" ]; then
      cat > "$tmp" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    fi
    $sudo install -m 0644 "$tmp" "$ours"
    rm -f "$tmp"
    [ "$update" = 1 ] && $sudo apt-get update
    return 0
  fi
  if [ "$update" = 1 ] && ! ls /var/lib/apt/lists/*_Sources* >/dev/null 2>&1; then
    $sudo apt-get update
  fi
  return 0
}
if [ "${1:-}" = --deb-src ]; then
  deb_src "${2:-}"
  exit 0
fi

packages=(
  llvm-22-dev clang-22 llvm-22-tools libclang-rt-22-dev lld-22  # LLVM 22, the primary toolchain (bookworm-security)
  libclang-cpp22-dev libclang-22-dev                             # clang 22's Driver library: the scopealloc-clang driver
  flang-22 libomp-22-dev                                         # the Fortran client: scopealloc-flang, OpenMP (test/fortran)
  mlir-22-tools libmlir-22-dev                                   # the MLIR route (mlir/) on MLIR 22: libMLIR, mlir-opt-22.
                                                                # Only one libmlir-N-dev can be installed (Conflicts: libmlir-x.y-dev)
  llvm-19-dev clang-19 llvm-19-tools libclang-rt-19-dev lld-19  # LLVM 19 row: its whole suite (docs/llvm-versions.md)
  libclang-cpp19-dev libclang-19-dev                             # clang's Driver library: the scopealloc-clang driver
  llvm-16-dev llvm-16-tools clang-16 lld-16                      # the LLVM 16 row of the support matrix (docs/llvm-versions.md)
  llvm-15-dev llvm-15-tools clang-15 lld-15                      # the LLVM 15 row (no libclang-rt-15-dev: the runtime is clang 19's)
  libclang-cpp16-dev libclang-16-dev libclang-cpp15-dev libclang-15-dev  # their Driver libraries: configuring a tree needs them (tools/scopealloc-clang)
  cmake ninja-build g++ make python3                            # build
  python3-psutil                                                # lit's per-test timeout
  libgtest-dev                                                  # runtime unit tests
  gdb                                                           # debug-info tests
  valgrind                                                      # memcheck client-request tests
  libbenchmark-dev                                              # Google Benchmark micro benchmarks
  python3-matplotlib                                            # charts (benchmarks, build reports)
  pkg-config                                                    # the runtime's .pc file test
  python3-yaml python3-pygments                                 # opt-viewer (remark records test)
  qemu-system-arm                                               # runs the bare-metal demo, Cortex-M and AArch64 cross links
  qemu-system-misc                                              # runs the RISC-V (riscv32) cross links
  ccache sccache                                                # the wrappers' and scopealloc_enable's compiler-cache tests
  icecc distcc iproute2                                         # the build-farm tests (test/buildfarm): daemons in network namespaces
  autoconf automake libtool meson file                          # build-system tests (test/buildsystems), libsodium and zstd's own checks
  libhalide14-0-dev                                             # Halide 14 client suite (test/halide): the generator links libHalide14
  python3-venv python3-pip                                      # the clients from PyPI (TVM): scripts/setup-venv.sh
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
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
