#!/usr/bin/env bash
# Stress-tests the scope-alloc pass with llvm-stress modules.
#
#   test/fuzz/stress.sh [--seeds A-B|N[,..]] [--jobs J] [--prefix P]
#                          [--size S] [--keep DIR]
#
# For every seed:
#  1. llvm-stress -seed=N -size=S (one function; its entry block always holds
#     five scalar allocas) goes through
#       opt -load-pass-plugin P/lib/ScopeAlloc.so -passes=scope-alloc
#           -verify-each -scope-alloc-max-stack-alloca=0
#     which must succeed and call the runtime (__scopealloc_alloc), and the
#     result through llc -O0 -filetype=obj.
#  2. utils/mutate_ir.py --combo L builds one module with seven copies
#     of the function: raw (unmutated) with limit 0, and kinds mut (a random
#     subset of the mutations) and all (every mutation: [K x T] arrays
#     aligned up to 4096, !scope metadata incl. a named pool, dynamic
#     allocas, VLAs with stacksave/stackrestore in loops, extra exits via
#     ret / musttail / invoke+resume, lifetime markers, inalloca and
#     swifterror allocas) each with limit 0, the target default (1024 on
#     x86_64) and a per-seed limit L in 1..4096, set by the function
#     attribute "scope-alloc-max-stack-alloca". That module goes through opt
#     -verify-each with these pipelines, and the result through llc:
#       plain   scope-alloc                                       llc -O0
#       pre     function(early-cse,simplifycfg,loop-mssa(licm),instcombine),
#               scope-alloc  (reshaped CFG, allocas kept)           llc -O0
#       post    debugify,scope-alloc, then instcombine,simplifycfg,gvn,dse
#               over the rewritten code                           llc -O0
#       O2      default<O2> (the plugin runs at its end)          llc -O2
#       O0      default<O0> (the pass is required at -O0)         (same code
#               as plain, so no llc)
#     (instcombine runs as instcombine<no-verify-fixpoint>: opt's default
#     fixpoint self-check aborts on some llvm-stress modules whether or not
#     scope-alloc runs, e.g. seeds 734 and 1352.)
# A non-zero exit of a tool (crash, verifier error, fatal error), `error:` on
# stderr, or a timeout fails the seed. The failing seed, step, and a command
# to reproduce are printed; for a combined module, each of the seven functions
# is re-run alone (llvm-extract) to name the failing ones. Inputs of failing
# seeds are kept under --keep DIR.
#
# Options:
#   --seeds   a range A-B, a number, or a comma-separated list (default 1-300)
#   --jobs    parallel seeds (default 2)
#   --prefix  install prefix holding lib/ScopeAlloc.so
#             (default $SCOPEALLOC_PREFIX, else <repo>/build/install)
#   --size    llvm-stress -size (default: 20..400, varying with the seed)
#   --keep    directory for failing inputs
#             (default ${TMPDIR:-/tmp}/scopealloc-fuzz-stress)
# Environment: LLVM_BIN (default /usr/lib/llvm-22/bin), FUZZ_TIMEOUT
# (seconds per tool run, default 120).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ "${1:-}" != "--one" ]; then
  seeds=1-300 jobs=2 size=""
  prefix=${SCOPEALLOC_PREFIX:-$root/build/install}
  keep=${TMPDIR:-/tmp}/scopealloc-fuzz-stress
  while [ $# -gt 0 ]; do
    case $1 in
      --seeds) seeds=$2; shift 2 ;;
      --jobs|-j) jobs=$2; shift 2 ;;
      --prefix) prefix=$2; shift 2 ;;
      --size) size=$2; shift 2 ;;
      --keep) keep=$2; shift 2 ;;
      -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
      *) echo "stress.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
  done
  # shellcheck source=test/fuzz/common.sh
  . "$here/common.sh"
  seed_list=$(expand_seeds "$seeds") || exit 2
  prefix=$(cd "$prefix" 2>/dev/null && pwd) || { echo "stress.sh: no prefix $prefix" >&2; exit 2; }
  [ -f "$prefix/lib/ScopeAlloc.so" ] ||
    { echo "stress.sh: missing $prefix/lib/ScopeAlloc.so (run scripts/build.sh)" >&2; exit 2; }
  LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
  for t in llvm-stress opt llc llvm-extract; do
    [ -x "$LLVM_BIN/$t" ] || { echo "stress.sh: missing $LLVM_BIN/$t" >&2; exit 2; }
  done
  mkdir -p "$keep" && keep=$(cd "$keep" && pwd)
  work=$(mktemp -d "${TMPDIR:-/tmp}/scopealloc-stress.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  export FZ_PREFIX=$prefix FZ_SIZE=$size FZ_KEEP=$keep FZ_WORK=$work LLVM_BIN \
         FZ_TIMEOUT=${FUZZ_TIMEOUT:-120}
  n=$(echo "$seed_list" | wc -w)
  echo "stress: $n seeds ($seeds), $jobs jobs, plugin $prefix/lib/ScopeAlloc.so"
  fz_run_seeds stress "$0" "$seed_list" "$seeds" "$jobs" "inputs kept in $keep"
  exit $?
fi

# ---- one seed (run by xargs) -----------------------------------------------
seed=$2
trap 'touch "$FZ_WORK/done-$seed"' EXIT
B=$LLVM_BIN
P=$FZ_PREFIX/lib/ScopeAlloc.so
T=$FZ_TIMEOUT
if [ -n "$FZ_SIZE" ]; then size=$FZ_SIZE; else size=$(( (seed * 7919) % 381 + 20 )); fi
limits=(1 4 8 16 64 100 512 1024 1025 4096)
limitL=${limits[$((seed % ${#limits[@]}))]}
w=$FZ_WORK/s$seed
mkdir -p "$w"
mut=$root/utils/mutate_ir.py
gen_raw="$B/llvm-stress -seed=$seed -size=$size"
gen_combo="$gen_raw | python3 $mut --seed $seed --combo $limitL"
status=0

report() { # step what reproduce-command stderr-file
  local msg
  msg="FAIL seed $seed $1: $2
  reproduce: $3"
  if [ -s "$4" ]; then
    msg="$msg
  stderr (first 25 lines):
$(head -n 25 "$4" | sed 's/^/  | /')"
  fi
  printf '%s\n' "$msg"   # one write, so that parallel seeds do not interleave
  echo "$seed" >> "$FZ_WORK/failed-$seed"
  status=1
}

bad() { # tool-exit-status stderr-file -> true when the run failed
  [ "$1" -ne 0 ] || grep -q 'error:' "$2"
}

# try <in> <out> <pipeline> <limit|-> <llc levels...>; sets $why on failure.
try() {
  local in=$1 out=$2 pipeline=$3 limit=$4 lvl rc
  shift 4
  local limopt=()
  [ "$limit" != - ] && limopt=(-scope-alloc-max-stack-alloca="$limit")
  local text=()
  case $out in *.ll) text=(-S) ;; esac
  timeout "$T" "$B/opt" -load-pass-plugin "$P" -passes="$pipeline" -verify-each \
    "${limopt[@]}" "${text[@]}" "$in" -o "$out" 2> "$out.err"
  rc=$?
  if bad $rc "$out.err"; then
    why="opt failed (exit $rc)"; failed_tool=opt; err=$out.err; return 1
  fi
  for lvl in "$@"; do
    timeout "$T" "$B/llc" "-$lvl" -filetype=obj "$out" -o "$out.o" 2> "$out.err"
    rc=$?
    if bad $rc "$out.err"; then
      why="llc -$lvl failed on the pass's output (exit $rc)"; failed_tool="llc -$lvl"
      err=$out.err; return 1
    fi
  done
  return 0
}

repro_cmd() { # gen pipeline limit failed-tool
  local c="$1 | $B/opt -load-pass-plugin $P -passes='$2' -verify-each"
  [ "$3" != - ] && c="$c -scope-alloc-max-stack-alloca=$3"
  case $4 in
    opt) c="$c -disable-output" ;;
    *) c="$c | $B/$4 -filetype=obj -o /dev/null" ;;
  esac
  echo "$c"
}

if ! timeout "$T" "$B/llvm-stress" -seed="$seed" -size="$size" -o "$w/raw.ll" 2> "$w/gen.err" ||
   ! timeout "$T" python3 "$mut" --seed "$seed" --combo "$limitL" \
       < "$w/raw.ll" > "$w/combo.ll" 2>> "$w/gen.err"; then
  report generate "generating the inputs failed" "$gen_combo" "$w/gen.err"
  rm -rf "$w"; exit 1
fi

# 1. The plain llvm-stress module, limit 0 from the command line.
if ! try "$w/raw.ll" "$w/raw-0.ll" scope-alloc 0 O0; then
  cp "$w/raw.ll" "$FZ_KEEP/seed$seed-raw.ll"
  report raw-0 "$why" "$(repro_cmd "$gen_raw" scope-alloc 0 "$failed_tool")
  input kept: $FZ_KEEP/seed$seed-raw.ll" "$err"
elif ! grep -q '@__scopealloc_alloc' "$w/raw-0.ll"; then
  cp "$w/raw.ll" "$FZ_KEEP/seed$seed-raw.ll"
  : > "$w/empty"
  report raw-0 "limit 0 left every alloca on the stack (no __scopealloc_alloc call)" \
    "$gen_raw | $B/opt -load-pass-plugin $P -passes=scope-alloc -scope-alloc-max-stack-alloca=0 -S" \
    "$w/empty"
fi

# 2. The seven-function module through each pipeline.
if ! "$B/opt" -passes=verify -disable-output "$w/combo.ll" 2> "$w/verify.err"; then
  cp "$w/combo.ll" "$FZ_KEEP/seed$seed-combo.ll"
  report combo "mutate_ir.py produced an invalid module (a bug of the fuzzer)" \
    "$gen_combo | $B/opt -passes=verify -disable-output" "$w/verify.err"
  rm -rf "$w"; exit 1
fi
funcs=$(sed -n 's/^define [^@]*@\([A-Za-z0-9_.]*\)(.*/\1/p' "$w/combo.ll")
pre='function(early-cse,simplifycfg,loop-mssa(licm),instcombine<no-verify-fixpoint>),scope-alloc'
post='debugify,scope-alloc,function(instcombine<no-verify-fixpoint>,simplifycfg,gvn,dse)'
while read -r step pipeline levels; do
  # shellcheck disable=SC2086
  try "$w/combo.ll" "$w/$step.bc" "$pipeline" - $levels && continue
  cp "$w/combo.ll" "$FZ_KEEP/seed$seed-combo.ll"
  first_why=$why first_err=$err first_tool=$failed_tool
  # Which of the seven functions fail on their own?
  culprits=""
  for f in $funcs; do
    "$B/llvm-extract" -func="$f" -S "$w/combo.ll" -o "$w/one.ll" 2>/dev/null || continue
    # shellcheck disable=SC2086
    try "$w/one.ll" "$w/one-out.bc" "$pipeline" - $levels ||
      culprits="$culprits
    @$f: $why: $(repro_cmd "$gen_combo | $B/llvm-extract -func=$f -S" "$pipeline" - "$failed_tool")"
  done
  [ -n "$culprits" ] || culprits=" (none fails alone; only the whole module)"
  report "$step" "$first_why" "$(repro_cmd "$gen_combo" "$pipeline" - "$first_tool")
  input kept: $FZ_KEEP/seed$seed-combo.ll
  failing functions alone:$culprits" "$first_err"
done <<EOF
plain scope-alloc O0
pre $pre O0
post $post O0
O2 default<O2> O2
O0 default<O0>
EOF
rm -rf "$w"
exit $status
