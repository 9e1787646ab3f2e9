#!/usr/bin/env bash
# Real-world suite: Debian source packages built with scopealloc-clang at
# limit 0 (every alloca still in memory after optimisation moves to the
# workspace arena) and -O2, checked with their own tests or with workloads
# whose output must match a plain clang -O2 build, once more under
# AddressSanitizer, with each program's workspace peak.
#
#   bash test/realworld/run.sh [options] [program...]
#
# programs: zlib bzip2 lua sqlite libpng libsodium zstd re2 (default: all)
# options:
#   --prefix P   ScopeAlloc install prefix to use (default: $SCOPEALLOC_PREFIX,
#                else build/install, refreshed first with scripts/build.sh)
#   --work DIR   work directory (default: build/realworld); downloaded
#                sources are kept in DIR/src and reused by later runs
#   --jobs N     parallel compile jobs (default: nproc)
#   --no-asan    skip the AddressSanitizer builds
#   --no-lto     skip the LTO builds (zlib: full and thin, sqlite: thin)
#
# Builds per program: plain (clang -O2, the reference), limit0
# (scopealloc-clang -O2 -mllvm -scope-alloc-max-stack-alloca=0) and
# limit0+asan (the same with -fsanitize=address), limit0+lto and
# limit0+thinlto (the same with -flto / -flto=thin: the pass runs in lld at
# the link; zlib both, sqlite ThinLTO only), limit0+planned (zlib, bzip2,
# lua: full LTO with plan: static, the link's count of planned frames in
# the check log); libpng only limit0, a
# shared library with its version script (see libpng.sh); libsodium and
# zstd only limit0, with their own build systems, assembly and checks; re2
# (C++) only limit0, its own Makefile and quick tests. The checks of the limit-0
# builds run with SCOPEALLOC_STATS=1; the table reports the largest workspace
# peak over the program's processes and their allocations. Exits non-zero
# when any check fails. Sources come only from apt (a deb-src entry is added
# when none is configured); nothing third-party is written outside the work
# directory.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

all_programs="zlib bzip2 lua sqlite libpng libsodium zstd re2"
prefix=${SCOPEALLOC_PREFIX:-}
work=$root/build/realworld
jobs=$(nproc 2>/dev/null || echo 2)
asan=1
lto=1
programs=""
. "$here/args.sh"
rw_parse_args run.sh "$@"
for arg in ${rw_rest[@]+"${rw_rest[@]}"}; do
  case $arg in
    --no-asan) asan=0 ;;
    --no-lto) lto=0 ;;
    -*) echo "run.sh: unknown option $arg" >&2; exit 2 ;;
    *)
      case " $all_programs " in
        *" $arg "*) programs="$programs $arg" ;;
        *) echo "run.sh: unknown program '$arg' (known: $all_programs)" >&2; exit 2 ;;
      esac ;;
  esac
done
programs=${programs:-$all_programs}

if [ -z "$prefix" ]; then
  prefix=$root/build/install
  echo "[realworld] refreshing ScopeAlloc in $prefix (scripts/build.sh)" >&2
  bash "$root/scripts/build.sh" >&2 || { echo "[realworld] error: scripts/build.sh failed" >&2; exit 1; }
fi
rw_check_prefix run.sh bin/scopealloc-clang lib/ScopeAlloc.so lib/libscopealloc_rt.a
work=$(cd "$work" && pwd)
export RW_ROOT=$root RW_PREFIX=$prefix RW_WORK=$work RW_JOBS=$jobs
export RW_RUN_ID="$$-$(date +%s)"
export RW_BUILDS="plain limit0"
[ "$asan" = 1 ] && RW_BUILDS="$RW_BUILDS limit0+asan"
[ "$lto" = 1 ] && RW_BUILDS="$RW_BUILDS limit0+lto limit0+thinlto limit0+planned"
. "$here/common.sh"

# One run at a time per work directory.
exec 9> "$work/.lock"
if ! flock -n 9; then
  rw_log "another run holds $work/.lock; waiting"
  flock 9
fi

rw_ensure_packages make dpkg-dev
if [ "$asan" = 1 ]; then rw_ensure_packages libclang-rt-19-dev; fi

rm -rf "$work/results" && mkdir -p "$work/results"
rm -f "$work"/.apt-updated.*
start=$(date +%s)
declare -A seconds
for p in $programs; do
  rw_log "=== $p ==="
  t0=$(date +%s)
  bash "$here/$p.sh"
  rc=$?
  seconds[$p]=$(( $(date +%s) - t0 ))
  if [ $rc != 0 ] && [ ! -s "$work/results/$p.tsv" ]; then
    rw_record "$p" "-" "FAIL(script exit $rc)"
  fi
done
total=$(( $(date +%s) - start ))

# Summary.
passed=0 failed=0 failures=()
echo
echo "Real-world suite (ScopeAlloc prefix $prefix; builds: $RW_BUILDS)"
printf '%-8s %-14s %-22s %16s %12s %10s\n' program build result "workspace peak" allocs processes
printf '%-8s %-14s %-22s %16s %12s %10s\n' -------- -------------- ---------------------- ---------------- ------------ ----------
for p in $programs; do
  while IFS=$'\t' read -r program build result peak allocs runs; do
    printf '%-8s %-14s %-22s %16s %12s %10s\n' "$program" "$build" "$result" "$peak" "$allocs" "$runs"
    case $result in
      FAIL*) failed=$((failed + 1)); failures+=("$program [$build]: $result (logs in $work/$program/)") ;;
      *) passed=$((passed + 1)) ;;
    esac
  done < "$work/results/$p.tsv"
done
echo
times=""
for p in $programs; do times="$times $p ${seconds[$p]}s,"; done
echo "time:${times%,}; total ${total}s"
if [ ${#failures[@]} -gt 0 ]; then
  echo
  echo "FAILED:"
  printf '  %s\n' "${failures[@]}"
fi
echo
echo "realworld: $passed passed, $failed failed"
[ "$failed" = 0 ]
