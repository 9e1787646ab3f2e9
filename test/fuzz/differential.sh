#!/usr/bin/env bash
# Differential testing of ScopeAlloc with generated C programs.
#
#   test/fuzz/differential.sh [--seeds A-B|N[,..]] [--jobs J] [--prefix P]
#                                [--keep DIR] [--sanitize] [--builds B1,B2,..]
#
# For every seed, utils/gen_program.py writes a random, well-defined
# C11 program (local arrays of many sizes and _Alignas alignments, VLAs and
# alloca() in loops, recursion with buffers, structs by pointer, early
# returns, switches, a checksum; in about 30% of the seeds also pthreads
# with thread-exit, fork and exit handlers whose buffers a shared frame would
# corrupt: README.md, "Entry points"). It is built with
#   ref-O2    clang -O2                       (the reference)
#   ref-O0    clang -O0                       (the program must not depend
#                                              on the optimisation level)
#   sa-O0-0   scopealloc-clang -O0 -g -mllvm -scope-alloc-max-stack-alloca=0
#   sa-O2-0   scopealloc-clang -O2 -mllvm -scope-alloc-max-stack-alloca=0
#   sa-O0     scopealloc-clang -O0            (target default limit)
#   sa-O2     scopealloc-clang -O2            (target default limit)
#   sa-O1-L   scopealloc-clang -O1 -g -mllvm -scope-alloc-max-stack-alloca=L
#             (L in 16..4096 by seed: some buffers stay, some move)
#   sa-plan-0 scopealloc-clang -O2 -flto at limit 0 with plan: static: the
#             link puts what it can at fixed offsets (docs/static-planning.md)
# and every build is run (with a timeout). Each must print the same stdout
# and exit with the same status as ref-O2. The ScopeAlloc builds run with
# SCOPEALLOC_STATS=1 and, when they print statistics (a build that moved
# nothing does not link the runtime), must report for the workspace pool no
# failures and current == 0 at exit (every frame released what it took);
# sa-O0-0 must print them and have allocated from it (the pass was used).
# A mismatch prints the seed, the builds that differ, a diff, and the
# commands to reproduce; the program is kept under --keep DIR.
#
# Options:
#   --seeds     a range A-B, a number, or a comma-separated list (default 1-100)
#   --jobs      parallel seeds (default 2)
#   --prefix    install prefix holding bin/scopealloc-clang
#               (default $SCOPEALLOC_PREFIX, else <repo>/build/install)
#   --keep      directory for failing programs
#               (default ${TMPDIR:-/tmp}/scopealloc-fuzz-differential)
#   --sanitize  also build clang -O1 -fsanitize=address,undefined and require
#               it to run cleanly with the same output (checks the generator)
#   --builds    only these builds (comma-separated names from the list above,
#               e.g. sa-plan-0 or ref-O0,sa-O2-0); ref-O2, the reference, is
#               always built. sa-O0-0's "the pool was used" check applies only
#               when it is built.
# Environment: LLVM_BIN (default /usr/lib/llvm-22/bin), FUZZ_RUN_TIMEOUT
# (seconds per run, default 60).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ "${1:-}" != "--one" ]; then
  seeds=1-100 jobs=2 sanitize=0 only=""
  prefix=${SCOPEALLOC_PREFIX:-$root/build/install}
  keep=${TMPDIR:-/tmp}/scopealloc-fuzz-differential
  while [ $# -gt 0 ]; do
    case $1 in
      --seeds) seeds=$2; shift 2 ;;
      --jobs|-j) jobs=$2; shift 2 ;;
      --prefix) prefix=$2; shift 2 ;;
      --keep) keep=$2; shift 2 ;;
      --sanitize) sanitize=1; shift ;;
      --builds) only=$2; shift 2 ;;
      -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
      *) echo "differential.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
  done
  # shellcheck source=test/fuzz/common.sh
  . "$here/common.sh"
  seed_list=$(expand_seeds "$seeds") || exit 2
  prefix=$(cd "$prefix" 2>/dev/null && pwd) ||
    { echo "differential.sh: no prefix $prefix" >&2; exit 2; }
  [ -x "$prefix/bin/scopealloc-clang" ] ||
    { echo "differential.sh: missing $prefix/bin/scopealloc-clang (run scripts/build.sh)" >&2; exit 2; }
  LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
  [ -x "$LLVM_BIN/clang" ] || { echo "differential.sh: missing $LLVM_BIN/clang" >&2; exit 2; }
  mkdir -p "$keep" && keep=$(cd "$keep" && pwd)
  work=$(mktemp -d "${TMPDIR:-/tmp}/scopealloc-differential.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  case ,$only, in
    ,,) ;;
    *[!a-zA-Z0-9,-]*) echo "differential.sh: bad --builds '$only'" >&2; exit 2 ;;
  esac
  for b in ${only//,/ }; do
    case $b in
      ref-O2|ref-O0|sa-O0-0|sa-O2-0|sa-O0|sa-O2|sa-O1-L|sa-plan-0|san) ;;
      *) echo "differential.sh: unknown build '$b' in --builds (see --help)" >&2; exit 2 ;;
    esac
  done
  export FZ_PREFIX=$prefix FZ_KEEP=$keep FZ_WORK=$work LLVM_BIN FZ_SANITIZE=$sanitize \
         FZ_RUN_TIMEOUT=${FUZZ_RUN_TIMEOUT:-60} FZ_BUILDS=$only
  n=$(echo "$seed_list" | wc -w)
  echo "differential: $n seeds ($seeds), $jobs jobs, wrapper $prefix/bin/scopealloc-clang${only:+, builds ref-O2,$only}"
  fz_run_seeds differential "$0" "$seed_list" "$seeds" "$jobs" "programs kept in $keep"
  exit $?
fi

# ---- one seed (run by xargs) -----------------------------------------------
seed=$2
trap 'touch "$FZ_WORK/done-$seed"' EXIT
CC=$LLVM_BIN/clang
SA=$FZ_PREFIX/bin/scopealloc-clang
w=$FZ_WORK/s$seed
mkdir -p "$w"
src=$w/p$seed.c
kept=$FZ_KEEP/p$seed.c
limits=(16 64 100 256 512 1000 2048 4096)
limitL=${limits[$((seed % ${#limits[@]}))]}
cflags=(-std=c11 -w)
msg=""
failed=0

repro=""   # the first build that failed (its command is in the reproduction)
fail() { failed=1; msg="$msg
  $*"; }
failb() { # name message: a failure of that build
  [ -n "$repro" ] || repro=$1
  shift; fail "$@"; }

if ! python3 "$root/utils/gen_program.py" --seed "$seed" -o "$src" 2> "$w/gen.err"; then
  printf 'FAIL seed %s: gen_program.py failed\n%s\n' "$seed" "$(head -20 "$w/gen.err")"
  echo "$seed" > "$FZ_WORK/failed-$seed"
  rm -rf "$w"; exit 1
fi

# name | compiler and flags (the program is $src, the output $w/<name>)
builds=(
  "ref-O2|$CC -O2"
  "ref-O0|$CC -O0"
  "sa-O0-0|$SA -O0 -g -mllvm -scope-alloc-max-stack-alloca=0"
  "sa-O2-0|$SA -O2 -mllvm -scope-alloc-max-stack-alloca=0"
  "sa-O0|$SA -O0"
  "sa-O2|$SA -O2"
  "sa-O1-L|$SA -O1 -g -mllvm -scope-alloc-max-stack-alloca=$limitL"
  "sa-plan-0|$SA -O2 -flto -mllvm -scope-alloc-max-stack-alloca=0 -mllvm -scope-alloc-plan=static"
)
[ "$FZ_SANITIZE" = 1 ] &&
  builds+=("san|$CC -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all")
if [ -n "${FZ_BUILDS:-}" ]; then
  all=("${builds[@]}")
  builds=("${all[0]}")  # ref-O2
  for b in "${all[@]:1}"; do
    case ,$FZ_BUILDS, in *",${b%%|*},"*) builds+=("$b") ;; esac
  done
fi

cmd_of() { # name -> build command line with the kept program
  local b
  for b in "${builds[@]}"; do
    [ "${b%%|*}" = "$1" ] && { echo "${b#*|} ${cflags[*]} $kept -o $1"; return; }
  done
}

for b in "${builds[@]}"; do
  name=${b%%|*}
  # shellcheck disable=SC2206
  cc=(${b#*|})
  if ! "${cc[@]}" "${cflags[@]}" "$src" -o "$w/$name" > "$w/$name.cc" 2>&1; then
    failb "$name" "$name: compilation failed: $(cmd_of "$name")
$(head -n 20 "$w/$name.cc" | sed 's/^/    | /')"
    continue
  fi
  if [ "${name%%-*}" = sa ]; then
    SCOPEALLOC_STATS=1 timeout "$FZ_RUN_TIMEOUT" "$w/$name" > "$w/$name.out" 2> "$w/$name.err"
  else
    timeout "$FZ_RUN_TIMEOUT" "$w/$name" > "$w/$name.out" 2> "$w/$name.err"
  fi
  echo $? > "$w/$name.rc"
done

if [ ! -f "$w/ref-O2.rc" ]; then
  : # the reference did not build; reported above
else
  ref_rc=$(cat "$w/ref-O2.rc")
  case $ref_rc in
    0|1|2|3|4|5|6|7) ;;
    *) fail "ref-O2 exited with $ref_rc (a generated program exits with 0..7): the program itself is broken" ;;
  esac
  for b in "${builds[@]:1}"; do
    name=${b%%|*}
    [ -f "$w/$name.rc" ] || continue
    rc=$(cat "$w/$name.rc")
    if [ "$rc" != "$ref_rc" ] || ! cmp -s "$w/ref-O2.out" "$w/$name.out"; then
      what="$name differs from ref-O2 (exit $rc vs $ref_rc)"
      case $name in ref-O0|san) what="$what: the program depends on the optimisation level (a generator bug)" ;; esac
      [ "$rc" = 124 ] && what="$what: timed out after ${FZ_RUN_TIMEOUT}s"
      failb "$name" "$what
    stdout diff (ref-O2 vs $name):
$(diff "$w/ref-O2.out" "$w/$name.out" | head -n 12 | sed 's/^/    | /')
    stderr of $name:
$(grep -v '^scopealloc statistics\|^  pool \|^  (workspace' "$w/$name.err" | head -n 12 | sed 's/^/    | /')"
      continue
    fi
    if [ "${name%%-*}" = sa ]; then
      # workspace row: pool current peak capacity allocs failures
      row=$(awk '$1 == "workspace" { print $2, $3, $5, $6; exit }' "$w/$name.err")
      if [ -z "$row" ]; then
        # A build that moved nothing does not reference (so does not link)
        # the runtime; only the -O0 limit-0 build must have used it.
        [ "$name" = sa-O0-0 ] &&
          fail "$name: no scopealloc statistics on stderr with SCOPEALLOC_STATS=1 (limit 0 at -O0 must use the runtime)"
        continue
      fi
      read -r cur peak allocs failures <<< "$row"
      [ "$cur" = 0 ] || failb "$name" "$name: workspace current = $cur bytes at exit (peak $peak, $allocs allocs): demoted memory was not released"
      [ "$failures" = 0 ] || failb "$name" "$name: workspace failures = $failures"
      if [ "$name" = sa-O0-0 ] && [ "$allocs" = 0 ]; then
        fail "$name: limit 0 at -O0 but the workspace pool served no allocation (the pass did not run?)"
      fi
    fi
  done
fi

if [ "$failed" = 1 ]; then
  cp "$src" "$kept"
  printf '%s\n' "FAIL seed $seed:$msg
  reproduce:
    python3 $root/utils/gen_program.py --seed $seed -o $kept
    $(cmd_of ref-O2) && ./ref-O2; echo \"exit \$?\"
    $(cmd_of "${repro:-sa-O2-0}") && SCOPEALLOC_STATS=1 ./${repro:-sa-O2-0}; echo \"exit \$?\"    # or any build named above"
  echo "$seed" > "$FZ_WORK/failed-$seed"
  rm -rf "$w"
  exit 1
fi
rm -rf "$w"
exit 0
