#!/usr/bin/env bash
# zstd from the Debian source package "libzstd" (1.5.4), built with its own
# Makefiles through scopealloc-clang at limit 0 (SCOPEALLOC_FLAGS), then
# upstream's own quick check, `make -C tests check` (playTests.sh without
# its long tests, ZSTDRTTEST=): the zstd CLI (built with -DDEBUGLEVEL=1,
# assertions on) compresses, decompresses, tests, trains dictionaries,
# streams and handles errors over generated data, each result checked by
# the script (about 40 s at limit 0). The decoder's x86-64 assembly
# (lib/decompress/huf_decompress_amd64.S, assembled through the driver with
# the project's -mllvm flags in force) must be part of the CLI, and the runs
# must have used the workspace (SCOPEALLOC_STATS=1 in the log).
# Not chosen: `make -C tests test` (fuzzer -T200s, zstreamtest 2 x -T90s,
# fullbench, cli-tests: about 10 minutes), and the fuzzers with shorter -T,
# which exercise the library but not the build of the CLI and its
# dictionary builder.
# Only the limit-0 build, as for libsodium.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

src=$(rw_fetch_source libzstd) || exit 1
program=zstd
base=$RW_WORK/$program
mkdir -p "$base"
rw_ensure_packages file

build_zstd() { # BUILD DIR
  local build=$1 dir=$2 log=$2/build.log
  rw_fresh_tree "$src" "$dir" && : > "$log"
  (
    cd "$dir" || exit 1
    export SCOPEALLOC_FLAGS="$(rw_scopealloc_flags "$build")"
    # The CLI as `make check` builds it (tests/Makefile: zstd with
    # DEBUGFLAGS), and datagen.
    rw_run "$log" make -j"$RW_JOBS" -C tests CC="$(rw_cc "$build")" zstd datagen
  ) || return 1
  if ! ls "$dir"/programs/obj/*/huf_decompress_amd64.o > /dev/null 2>&1; then
    rw_log "zstd: huf_decompress_amd64.S was not assembled (ZSTD_NO_ASM?)"
    return 1
  fi
  # The CLI really calls the assembly decoder's entry points.
  if ! nm "$dir/programs/zstd" | grep ' T HUF_decompress4X1_usingDTable_internal_fast_asm_loop$' > /dev/null; then
    rw_log "zstd: the CLI does not contain the assembly decoder loop"
    return 1
  fi
}

check_zstd() { # BUILD DIR
  local build=$1 dir=$2 log=$2/check.log
  : > "$log"
  (
    cd "$dir" || exit 1
    # shellcheck disable=SC2046
    export $(rw_run_env "$build")
    export SCOPEALLOC_FLAGS="$(rw_scopealloc_flags "$build")"
    rw_run "$log" make -C tests CC="$(rw_cc "$build")" check
  ) || return 1
  rw_need_allocs "$log" || return 1
}

dir=$base/limit0
if ! build_zstd limit0 "$dir"; then
  rw_record zstd limit0 "FAIL(build)"
  exit 1
fi
if check_zstd limit0 "$dir"; then
  rw_record zstd limit0 pass "$dir/check.log"
else
  rw_record zstd limit0 "FAIL(check)" "$dir/check.log"
  exit 1
fi
