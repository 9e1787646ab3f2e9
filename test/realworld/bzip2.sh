#!/usr/bin/env bash
# bzip2 from the Debian source package "bzip2" (Debian's Makefile: bzip2
# linked against libbz2.so), then its own check (`make test`: compress and
# decompress the three reference samples, compare with cmp), plus bzip2 -1/-9
# and the small-memory decompressor on a larger input (the package's manual):
# the compressed bytes must equal those of the plain clang -O2 build, and
# must decompress (and test, -t) to the input.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

src=$(rw_fetch_source bzip2) || exit 1
program=bzip2
base=$RW_WORK/$program
mkdir -p "$base"
input=$base/input
(cd "$src" && cat manual.ps bzip2.c blocksort.c) > "$input"

build_bzip2() { # BUILD DIR
  local build=$1 dir=$2 log=$2/build.log
  rw_fresh_tree "$src" "$dir" && : > "$log"
  (
    cd "$dir" || exit 1
    export SCOPEALLOC_FLAGS="$(rw_scopealloc_flags "$build")"
    local cflags cc
    cflags="$(rw_cflags "$build") -D_FILE_OFFSET_BITS=64"
    cc=$(rw_cc "$build")
    if [ "$build" = limit0+planned ]; then
      # The whole program in one link (libbz2.a, as bounds.sh builds it):
      # against libbz2.so main's graph is open and nothing is planned.
      rw_run "$log" make -j"$RW_JOBS" CC="$cc" CFLAGS="$cflags" \
        AR="$(rw_ar "$build")" libbz2.a bzip2.o &&
        rw_run "$log" $cc $cflags -o bzip2 bzip2.o libbz2.a
      return
    fi
    rw_run "$log" make -j"$RW_JOBS" CC="$cc" CFLAGS="$cflags" \
      LDFLAGS="$(rw_cflags "$build")" bzip2 bzip2recover
  )
}

check_bzip2() { # BUILD DIR
  local build=$1 dir=$2 log=$2/check.log
  : > "$log"
  (
    cd "$dir" || exit 1
    # shellcheck disable=SC2046
    export $(rw_run_env "$build")
    export LD_LIBRARY_PATH=$dir
    if [ "$build" = limit0+planned ]; then
      # -o bzip2: the static bzip2 just linked, not Debian's on libbz2.so.
      rw_run "$log" make -o bzip2 test || exit 1
    else
      # bzip2 must run with this build's libbz2.so, not the system's.
      libs=$(ldd ./bzip2)
      case $libs in
        *"libbz2.so.1.0 => $dir/libbz2.so.1.0 "*) ;;
        *) rw_log "bzip2 does not load $dir/libbz2.so.1.0: $(grep libbz2 <<< "$libs")"; exit 1 ;;
      esac
      rw_run "$log" make test || exit 1
    fi
    for level in -1 -9; do
      rw_round_trip ./bzip2 "$level" bz2 "$input" "$log" "$build" "$base" || exit 1
      rw_run "$log" ./bzip2 -t "out$level.bz2" || exit 1
      ./bzip2 -ds < "out$level.bz2" > "out$level.s" 2>> "$log" || { rw_log "bzip2 -ds ($level) failed"; exit 1; }
      rw_same "bzip2 -ds ($level) round trip" "$input" "out$level.s" || exit 1
    done
    case $build in
      plain) ;;
      *planned)
        rw_need_plan "$log" ./bzip2 || exit 1
        rw_plan_count "$log" build.log ;;
      *) rw_need_allocs "$log" || exit 1 ;;
    esac
  )
}

rw_lto="full planned"

rw_build_and_check_all bzip2 "$base"
