#!/usr/bin/env bash
# libsodium from the Debian source package "libsodium" (1.0.18), built as a
# user would, `./configure CC=scopealloc-clang && make check`, at limit 0
# (SCOPEALLOC_FLAGS): autoreconf (Debian builds with dh --with autoreconf),
# ./configure, make, then its own test suite (`make check`: 77 programs,
# each output compared with its .exp file), with statistics. The x86-64
# assembly must be part of the build (salsa20_xmm6-asm.S and the sandy2x
# curve25519 .S files, assembled through the driver with the project's
# -mllvm flags in force), and the tests must have used the workspace.
# Only the limit-0 build: the point is the build system and the package's
# own checks (about 2 minutes on 2 cores).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

src=$(rw_fetch_source libsodium) || exit 1
program=libsodium
base=$RW_WORK/$program
mkdir -p "$base"
rw_ensure_packages autoconf automake libtool

build_libsodium() { # BUILD DIR
  local build=$1 dir=$2 log=$2/build.log
  rw_fresh_tree "$src" "$dir" && : > "$log"
  (
    cd "$dir" || exit 1
    export SCOPEALLOC_FLAGS="$(rw_scopealloc_flags "$build")"
    # configure's own CFLAGS (-O3 and the per-ISA flags it probes).
    rw_run "$log" autoreconf -fi &&
      rw_run "$log" ./configure CC="$(rw_cc "$build")" --disable-dependency-tracking &&
      rw_run "$log" make -j"$RW_JOBS"
  ) || return 1
  # The assembly was built, not configured away.
  local asm
  for asm in crypto_stream/salsa20/xmm6/libsodium_la-salsa20_xmm6-asm.lo \
             crypto_scalarmult/curve25519/sandy2x/libsodium_la-sandy2x.lo; do
    if [ ! -f "$dir/src/libsodium/$asm" ]; then
      rw_log "libsodium: $asm was not built (assembly configured away?)"
      return 1
    fi
  done
}

check_libsodium() { # BUILD DIR
  local build=$1 dir=$2 log=$2/check.log
  : > "$log"
  (
    cd "$dir" || exit 1
    # shellcheck disable=SC2046
    export $(rw_run_env "$build")
    export SCOPEALLOC_FLAGS="$(rw_scopealloc_flags "$build")"
    rw_run "$log" make -j"$RW_JOBS" check
  ) || {
    grep -E '^(FAIL|ERROR):' "$dir/test/default/test-suite.log" 2>/dev/null | sed 's/^/    /' >&2
    return 1
  }
  grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR):' "$log" | tr '\n' ' ' >&2
  echo >&2
  rw_need_allocs "$dir"/test/default/*.log || return 1
}

shopt -s nullglob
dir=$base/limit0
if ! build_libsodium limit0 "$dir"; then
  rw_record libsodium limit0 "FAIL(build)"
  exit 1
fi
if check_libsodium limit0 "$dir"; then
  rw_record libsodium limit0 pass "$dir"/test/default/*.log
else
  rw_record libsodium limit0 "FAIL(check)" "$dir"/test/default/*.log
  exit 1
fi
