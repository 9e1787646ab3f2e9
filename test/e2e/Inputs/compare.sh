#!/usr/bin/env bash
# End-to-end comparison of one program built with and without ScopeAlloc.
#
#   bash compare.sh <source> <tmp-prefix> <plain-compiler> <wrapper-compiler> [extra flags...]
#
# Builds
#   ref          <plain-compiler> -O2               (the reference)
#   plain-O0     <plain-compiler> -O0               (sanity: the program itself
#                                                    is deterministic across -O)
#   O0, O2       <wrapper-compiler> -O0 / -O2       (default stack policy)
#   O0-limit0,   <wrapper-compiler> ... -mllvm -scope-alloc-max-stack-alloca=0
#   O2-limit0                                       (every alloca still in memory
#                                                    after optimisation moves)
# then runs them all (with a timeout) and requires of every build
#   - the same stdout and exit status as the reference (exit status must be 0
#     for the reference unless the source says otherwise, see below);
# and of every wrapper build
#   - at least one "moved to pool" remark from -Rpass=scope-alloc (so the test
#     fails if the pass did nothing: every program here has buffers larger
#     than the default limit that really live in memory);
#   - run with SCOPEALLOC_STATS=1: the runtime's statistics table on stderr,
#     whose `workspace` row shows allocs > 0 (required for the limit-0 builds,
#     checked whenever printed for the others), failures == 0 and, at exit,
#     current == 0 (every demoted frame released what it took).
#
# The extra flags go last on every command line, so they also override the
# -O level (e.g. `... -O3` builds every variant at -O3). Programs should
# write their results to stdout only and return from main: exit() from
# inside a demoted frame leaves that frame's memory counted as current.
#
# Directives in the source file (one per line, anywhere):
#   COMPARE: exit-status=<n>          the reference is expected to exit with <n>
#   COMPARE: allow-arena-leftover     do not require current == 0 at exit
#   COMPARE: default-may-keep         do not require a remark for the
#                                     default-policy builds
#   COMPARE: timeout=<seconds>        per run (default 20)
#   COMPARE: max-peak=<bytes>         the workspace peak must stay at or below
#                                     this in every wrapper build (e.g. VLAs
#                                     in a loop must not grow the arena per
#                                     iteration; musttail frames must be
#                                     released before the call)
#
# Environment (for experiments, not used by the suite):
#   COMPARE_VARIANTS   subset of "O0 O2 O0-limit0 O2-limit0" to build
#   COMPARE_CORRUPT    name of a variant whose stdout is deliberately altered
#                      (checks that a mismatch is reported)
set -u

if [ $# -lt 4 ]; then
  echo "usage: $0 <source> <tmp-prefix> <plain-compiler> <wrapper-compiler> [flags...]" >&2
  exit 2
fi
src=$1 tmp=$2 plain=$3 wrapper=$4
shift 4
extra=("$@")
name=$(basename "$src")

directive() { sed -n "s/.*COMPARE: *$1\(.*\)\$/\1/p" "$src" | head -n1; }
expect_status=$(directive 'exit-status=')
expect_status=${expect_status:-0}
run_timeout=$(directive 'timeout=')
run_timeout=${run_timeout:-20}
max_peak=$(directive 'max-peak=')
allow_leftover=0
grep -q 'COMPARE: *allow-arena-leftover' "$src" && allow_leftover=1
default_may_keep=0
grep -q 'COMPARE: *default-may-keep' "$src" && default_may_keep=1

mkdir -p "$(dirname "$tmp")"
rm -f "$tmp".*
failures=0

fail() {
  echo "FAIL [$name] $*"
  failures=$((failures + 1))
}
note() { echo "[$name] $*"; }

show_file() { # label file
  echo "----- $1 ($2) -----"
  head -c 4000 "$2"
  echo "----- end -----"
}

# The compiler's output without -Rpass remarks and their source snippets.
show_diagnostics() { # label file
  echo "----- $1 without remarks ($2) -----"
  grep -v -e 'remark: ' -e '^ *[0-9]* | ' -e '^ *| ' "$2" | head -n 60
  echo "----- end -----"
}

# compile <variant> <compiler> <flags...>: builds $tmp.<variant>.exe, stderr
# (warnings, remarks) to $tmp.<variant>.cc.
compile() {
  local v=$1 cc=$2
  shift 2
  local cmd=("$cc" "$@" -o "$tmp.$v.exe" "$src" "${extra[@]}")
  echo "${cmd[*]}" >"$tmp.$v.cmd"
  if ! "${cmd[@]}" >"$tmp.$v.cc" 2>&1; then
    fail "$v: compilation failed: ${cmd[*]}"
    show_diagnostics "compiler output" "$tmp.$v.cc"
    return 1
  fi
}

# run <variant> [env assignments...]: stdout, stderr and status in
# $tmp.<variant>.{out,err,status}.
run() {
  local v=$1
  shift
  env "$@" timeout -k 5 "$run_timeout" "$tmp.$v.exe" \
    >"$tmp.$v.out" 2>"$tmp.$v.err" </dev/null
  local status=$?
  echo "$status" >"$tmp.$v.status"
  if [ "$status" = 124 ] || [ "$status" = 137 ]; then
    fail "$v: timed out after ${run_timeout}s"
  fi
  if [ "${COMPARE_CORRUPT:-}" = "$v" ]; then
    echo "corrupted by COMPARE_CORRUPT" >>"$tmp.$v.out"
  fi
}

# ---- the reference ----
if ! compile ref "$plain" -O2; then
  echo "[$name] cannot build the reference; giving up"
  exit 1
fi
run ref
ref_status=$(cat "$tmp.ref.status")
if [ "$ref_status" != "$expect_status" ]; then
  fail "ref: the reference build exited with $ref_status, expected $expect_status (a bug in the test program?)"
  show_file "reference stdout" "$tmp.ref.out"
  show_file "reference stderr" "$tmp.ref.err"
  exit 1
fi
if [ ! -s "$tmp.ref.out" ]; then
  fail "ref: the reference printed nothing"
  exit 1
fi
note "reference: exit $ref_status, $(wc -l <"$tmp.ref.out") lines, $(cksum <"$tmp.ref.out" | cut -d' ' -f1) cksum"

# compare <variant>: stdout and exit status against the reference.
compare() {
  local v=$1 status
  status=$(cat "$tmp.$v.status")
  if [ "$status" != "$ref_status" ]; then
    fail "$v: exit status $status, reference $ref_status"
    show_file "$v stderr" "$tmp.$v.err"
  fi
  if ! cmp -s "$tmp.ref.out" "$tmp.$v.out"; then
    fail "$v: stdout differs from the reference (diff reference $v):"
    diff "$tmp.ref.out" "$tmp.$v.out" | head -n 40
  fi
}

# ---- sanity: the program is deterministic across optimisation levels ----
if compile plain-O0 "$plain" -O0; then
  run plain-O0
  before=$failures
  compare plain-O0
  if [ "$failures" != "$before" ]; then
    echo "[$name] NOTE: the plain -O0 build already differs: the test program" \
      "is not deterministic (uninitialised memory, UB?); fix the program."
  fi
fi

# check_stats <variant> <require-allocs>: the SCOPEALLOC_STATS=1 table.
check_stats() {
  local v=$1 require=$2 row
  row=$(awk '/^scopealloc statistics/ { table = 1; next }
             table && $1 == "workspace" && NF == 6 { print; exit }' "$tmp.$v.err")
  if [ -z "$row" ]; then
    if [ "$require" = 1 ]; then
      fail "$v: SCOPEALLOC_STATS=1 printed no 'workspace' statistics row"
      show_file "$v stderr" "$tmp.$v.err"
    fi
    return
  fi
  local current peak capacity allocs failed
  read -r _ current peak capacity allocs failed <<<"$row"
  note "$v: workspace current=$current peak=$peak allocs=$allocs failures=$failed"
  if [ "$require" = 1 ] && ! [ "$allocs" -gt 0 ] 2>/dev/null; then
    fail "$v: the workspace pool served no allocation (allocs=$allocs)"
    show_file "$v stderr" "$tmp.$v.err"
  fi
  if [ "$failed" != 0 ]; then
    fail "$v: the workspace pool reports $failed failed request(s)"
  fi
  if [ -n "$max_peak" ] && [ "$peak" -gt "$max_peak" ]; then
    fail "$v: workspace peak $peak bytes exceeds the expected maximum $max_peak (memory not released when it should be)"
  fi
  if [ "$allow_leftover" = 0 ] && [ "$current" != 0 ]; then
    fail "$v: $current bytes still allocated in the workspace pool at exit (a frame did not release)"
  fi
}

# ---- the wrapper builds ----
limit0=(-mllvm -scope-alloc-max-stack-alloca=0)
for v in ${COMPARE_VARIANTS:-O0 O2 O0-limit0 O2-limit0}; do
  case $v in
    O0) flags=(-O0) ;;
    O2) flags=(-O2) ;;
    O0-limit0) flags=(-O0 "${limit0[@]}") ;;
    O2-limit0) flags=(-O2 "${limit0[@]}") ;;
    *) echo "unknown variant $v" >&2; exit 2 ;;
  esac
  compile "$v" "$wrapper" "${flags[@]}" -Rpass=scope-alloc || continue
  moved=$(grep -c "moved to pool" "$tmp.$v.cc")
  note "$v: $moved allocation(s) moved to a pool"
  if [ "$moved" = 0 ]; then
    if [ "${v%-limit0}" != "$v" ] || [ "$default_may_keep" = 0 ]; then
      fail "$v: no 'moved to pool' remark: the pass did not run or moved nothing"
      show_file "$v compiler output" "$tmp.$v.cc"
    fi
  fi
  run "$v" SCOPEALLOC_STATS=1
  compare "$v"
  if [ "${v%-limit0}" != "$v" ]; then
    check_stats "$v" 1
  else
    check_stats "$v" 0
  fi
done

if [ "$failures" != 0 ]; then
  echo "[$name] $failures check(s) failed; files in $tmp.*"
  exit 1
fi
note "all builds agree with the reference"
exit 0
