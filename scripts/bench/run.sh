#!/usr/bin/env bash
# Benchmarks of issue 5, each reporting ratios against a baseline measured in
# the same run, and every ScopeAlloc result also against LLVM SafeStack
# (clang -fsanitize=safe-stack, issue 15) measured in the same run:
#   --micro      a call of a function with a 2 KiB buffer: stack, SafeStack,
#                demoted (inline fast path), demoted (runtime calls),
#                malloc/free, and stack / SafeStack / demoted (initial-exec
#                TLS) / demoted (general-dynamic TLS) in PIC shared libraries
#                (build/bench/frame_bench, Google Benchmark);
#   --speedtest  SQLite's speedtest1 (Debian source package sqlite3) built
#                with plain clang -O2, clang -O2 -fsanitize=safe-stack,
#                scopealloc-clang -O2 at the default policy and at limit 0,
#                and at limit 0 under full LTO (the bump; plan: static),
#                run in interleaved rounds;
#   --compile    compile time of the SQLite amalgamation at -O2 without and
#                with the plugin (default policy, limit 0);
#   --re2        C++: re2's dfa_test (Debian source package re2, its own
#                Makefile) built with plain clang++ -O2 and with
#                scopealloc-clang++ -O2 at limit 0, each linked dynamically
#                and with -static, run in interleaved rounds.
# Without a selection it runs all four. Options:
#   --quick      fewer rounds and a smaller speedtest1, to check that
#                everything works (the figures are then rough);
#   --chart PNG  where the chart goes (default <out>/bench.png);
#   --out DIR    where results go (default <build>/bench, <build> being
#                $SCOPEALLOC_BUILD_DIR or build/);
#   --no-build   use the existing build instead of running scripts/build.sh;
#   --rounds N   N interleaved rounds of speedtest1, dfa_test and the
#                compile (and 20 N paired rounds of the frame benchmark)
#                instead of 5 (100): on a noisy machine more rounds narrow
#                the medians;
#   --no-count   no instruction counts (below).
# Every whole-program row also gets the instructions its program executes,
# counted once per variant by scripts/bench/count.py: with perf stat where
# the machine has the counter, else with callgrind (speedtest1 at --size 10,
# --quick 2; dfa_test whole; the compile only with perf: under callgrind it
# would take hours). Its targets are judged by those counts, the times
# beside them (issue 48 part 4); callgrind's outputs stay in <out> for
# callgrind_annotate.
# Writes <out>/results.json, prints a Markdown table (targets, PASS/MISS,
# and a last line "targets: PASS" or "targets: MISS (...)"), draws the chart
# with scripts/bench/chart.py, and exits with 3 when a target was missed. The machine should be
# otherwise idle: the load average is recorded with the results. On 2 cores
# the full run takes about 15 minutes (most of it 15 compiles of sqlite3.c
# and 20 runs of dfa_test), --quick about 5.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${SCOPEALLOC_BUILD_DIR:-$root/build}
out=$build/bench
command_line="bash scripts/bench/run.sh${*:+ $*}"

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
parts=() quick=0 chart= no_build=0 rounds= count=1
while [ $# -gt 0 ]; do
  case $1 in
    --micro) parts+=(micro) ;;
    --speedtest) parts+=(speedtest) ;;
    --compile) parts+=(compile) ;;
    --re2) parts+=(re2) ;;
    --quick) quick=1 ;;
    --chart) chart=${2:?--chart needs a file name}; shift ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    --no-build) no_build=1 ;;
    --no-count) count=0 ;;
    --rounds) rounds=${2:?--rounds needs a number}; shift
      case $rounds in ''|*[!0-9]*|0) echo "run.sh: --rounds needs a number > 0, not '$rounds'" >&2; exit 2 ;; esac ;;
    -h|--help) usage 0 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
  esac
  shift
done
[ ${#parts[@]} -gt 0 ] || parts=(micro speedtest compile re2)
chart=${chart:-$out/bench.png}
case $chart in /*) ;; *) chart=$PWD/$chart ;; esac
case $out in /*) ;; *) out=$PWD/$out ;; esac
wants() { case " ${parts[*]} " in *" $1 "*) return 0 ;; esac; return 1; }

if [ $quick = 1 ]; then
  micro_rounds=10 micro_calls=200000 st_size=50 st_rounds=3 cc_rounds=1 re2_rounds=1 count_size=2
else
  micro_rounds=100 micro_calls=2000000 st_size=200 st_rounds=5 cc_rounds=5 re2_rounds=5 count_size=10
fi
[ -z "$rounds" ] || micro_rounds=$((rounds * 20)) st_rounds=$rounds cc_rounds=$rounds re2_rounds=$rounds

log() { printf '[bench] %s\n' "$*" >&2; }
# Debian's python3, which has python3-matplotlib (not a pyenv or venv one).
python=/usr/bin/python3
[ -x $python ] || python=python3
started=$(date +%s)
[ $no_build = 1 ] || bash "$root/scripts/build.sh" >&2
prefix=$build/install
# The plain compiler is the clang of the build's LLVM (22 unless the
# build was configured for another).
llvm_dir=$(sed -n 's|^LLVM_DIR:[A-Z]*=\(.*\)/lib/cmake/llvm$|\1|p' "$build/CMakeCache.txt" 2>/dev/null || true)
clang=${llvm_dir:-/usr/lib/llvm-22}/bin/clang
plugin=$prefix/lib/ScopeAlloc.so
limit0="-mllvm -scope-alloc-max-stack-alloca=0"
mkdir -p "$out"
rm -f "$out"/micro.json "$out"/micro-*.json "$out"/speedtest.json "$out"/speedtest-stats.json "$out"/compile.json \
  "$out"/re2.json "$out"/re2-stats.json "$out"/*-count.json
# count <part> NAME=COMMAND...: instructions per variant, <out>/<part>-count.json.
count_tool=auto
count() {
  local part=$1
  shift
  [ $count = 1 ] || return 0
  log "$part: counting instructions (count.py, one run per variant)"
  "$python" "$root/scripts/bench/count.py" --tool $count_tool --out "$out/$part-count.json" \
    --keep "$out/callgrind/$part" "$@"
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "load average before: $load_before"

# The SQLite amalgamation (sqlite3.c) and speedtest1.c from the Debian
# source package, with the real-world suite's helpers; cached in $out/src.
sqlite_sources() {
  export RW_ROOT=$root RW_PREFIX=$prefix RW_WORK=$out RW_CLANG=$clang
  # shellcheck source=../realworld/common.sh
  . "$root/test/realworld/common.sh"
  src=$(rw_fetch_source sqlite3)
  amalg=$(rw_sqlite_amalgamation "$src") || rw_die "could not generate the SQLite amalgamation"
}

if wants micro; then
  # Paired rounds (bench/micro/frame_bench.cpp, runPaired), 20 per --rounds,
  # in 5 processes: where the loader put code and thread-locals is fixed
  # for a process, and report.py pools the rounds of all five.
  log "micro: frame_bench, $micro_rounds paired rounds in 5 processes"
  for p in 1 2 3 4 5; do
    "$build/bench/frame_bench" --paired=$(( (micro_rounds + 4) / 5 )),$micro_calls \
      --out="$out/micro-$p.json" >&2
  done
fi

if wants speedtest; then
  sqlite_sources
  st=$out/speedtest
  mkdir -p "$st"
  # speedtest1 as upstream's Makefile builds it (ST_OPT), six ways; make
  # rebuilds a variant when the compiler, plugin or runtime changed. The
  # last two at limit 0 under full LTO: the arena's bump, and plan: static
  # (docs/static-planning.md), whose link remarks count the planned frames.
  st_variants="plain safestack default limit0 limit0-lto limit0-planned"
  {
    echo "all: $(printf '%s/speedtest1 ' $st_variants)"
    for v in $st_variants; do
      case $v in
        plain) cc=$clang flags= ;;
        safestack) cc=$clang flags=-fsanitize=safe-stack ;;
        default) cc=$prefix/bin/scopealloc-clang flags= ;;
        limit0) cc=$prefix/bin/scopealloc-clang flags=$limit0 ;;
        limit0-lto) cc=$prefix/bin/scopealloc-clang flags="$limit0 -flto" ;;
        limit0-planned) cc=$prefix/bin/scopealloc-clang
          flags="$limit0 -flto -mllvm -scope-alloc-plan=static" ;;
      esac
      # (lld prints the LTO link's remarks on stdout.)
      remarks=
      [ $v != limit0-planned ] ||
        remarks="-Rpass=scope-alloc -Rpass-missed=scope-alloc > \$@.remarks 2>&1"
      deps="$cc"
      [ $cc = "$clang" ] || deps="$deps $plugin $prefix/lib/libscopealloc_rt.a $prefix/lib/libscopealloc_rt.so"
      echo "$v/%.o $v/speedtest1: FLAGS := -O2 -DSQLITE_OS_KV_OPTIONAL $flags"
      echo "$v/sqlite3.o: $amalg/sqlite3.c $deps ; @mkdir -p $v && $cc \$(FLAGS) -I$amalg -c \$< -o \$@"
      echo "$v/speedtest1.o: $src/test/speedtest1.c $deps ; @mkdir -p $v && $cc \$(FLAGS) -I$amalg -c \$< -o \$@"
      echo "$v/speedtest1: $v/sqlite3.o $v/speedtest1.o ; $cc \$(FLAGS) -o \$@ \$^ -lm -lpthread -ldl $remarks"
    done
  } > "$st/Makefile"
  log "speedtest: building speedtest1 (plain, SafeStack, default policy, limit 0; limit 0 under full LTO with the bump and planned)"
  make -C "$st" -j"$(nproc)" -s >&2
  # The peer must really be SafeStack: its runtime linked (grep without -q:
  # an early exit would fail llvm-nm, and the pipeline, with SIGPIPE).
  "$(dirname "$clang")/llvm-nm" "$st/safestack/speedtest1" |
    grep ' __safestack_unsafe_stack_ptr$' > /dev/null ||
    rw_die "$st/safestack/speedtest1 has no __safestack_unsafe_stack_ptr: not built with -fsanitize=safe-stack"

  # Workspace use (SCOPEALLOC_STATS=1), one run of each ScopeAlloc build.
  for v in default limit0; do
    SCOPEALLOC_STATS=1 "$st/$v/speedtest1" --memdb --size $st_size > /dev/null 2> "$st/$v/stats.log"
  done
  read -r d_peak d_allocs _ d_fails < <(rw_stats "$st/default/stats.log")
  read -r l_peak l_allocs _ l_fails < <(rw_stats "$st/limit0/stats.log")
  [ "${l_allocs:-0}" -gt 0 ] || rw_die "speedtest1 at limit 0 never used the workspace (plugin not applied?)"
  # plan: static: the frames the link planned, of those it was asked to.
  planned=$(grep -c 'static region of' "$st/limit0-planned/speedtest1.remarks" || true)
  kept=$(grep -c 'stays on the run-time arena (plan static)' "$st/limit0-planned/speedtest1.remarks" || true)
  # With nothing planned the planned link must be the bump's, byte for byte
  # (report.py's verdict then rests on this, not on timings).
  objcopy=$(dirname "$clang")/llvm-objcopy
  for v in limit0-lto limit0-planned; do
    "$objcopy" -O binary --only-section=.text "$st/$v/speedtest1" "$st/$v/speedtest1.text"
  done
  text_identical=false
  cmp -s "$st/limit0-lto/speedtest1.text" "$st/limit0-planned/speedtest1.text" && text_identical=true
  printf '{"default": {"peak_bytes": %d, "allocs": %d, "failures": %d}, "limit0": {"peak_bytes": %d, "allocs": %d, "failures": %d}, "planned": {"frames": %d, "kept": %d, "text_identical": %s}}\n' \
    "$d_peak" "$d_allocs" "$d_fails" "$l_peak" "$l_allocs" "$l_fails" "${planned:-0}" "${kept:-0}" "$text_identical" > "$out/speedtest-stats.json"
  log "speedtest: plan static planned $planned demoted frames, $kept keep the bump; .text identical to the bump's: $text_identical"
  log "speedtest: workspace peak $l_peak bytes at limit 0 ($l_allocs allocations), $d_peak bytes at the default policy ($d_allocs)"

  log "speedtest: speedtest1 --memdb --size $st_size, $st_rounds interleaved rounds after one warm-up round"
  args="--memdb --size $st_size"
  "$python" "$root/scripts/bench/interleave.py" --rounds $st_rounds --warmup 1 \
    --out "$out/speedtest.json" --log "$st/run.log" \
    "plain=$st/plain/speedtest1 $args" \
    "safestack=$st/safestack/speedtest1 $args" \
    "default=$st/default/speedtest1 $args" \
    "limit0=$st/limit0/speedtest1 $args" \
    "limit0-lto=$st/limit0-lto/speedtest1 $args" \
    "limit0-planned=$st/limit0-planned/speedtest1 $args"
  args="--memdb --size $count_size"
  count speedtest "plain=$st/plain/speedtest1 $args" "safestack=$st/safestack/speedtest1 $args" \
    "default=$st/default/speedtest1 $args" "limit0=$st/limit0/speedtest1 $args" \
    "limit0-lto=$st/limit0-lto/speedtest1 $args" "limit0-planned=$st/limit0-planned/speedtest1 $args"
fi

if wants compile; then
  sqlite_sources
  # The plugin loaded directly (as scopealloc-clang does), so that both
  # sides run the same clang binary with the same arguments otherwise.
  cflags="-O2 -DSQLITE_OS_KV_OPTIONAL -I$amalg -c $amalg/sqlite3.c -o /dev/null"
  with_plugin="-fpass-plugin=$plugin -fplugin=$plugin"
  log "compile: clang -O2 -c sqlite3.c, $cc_rounds interleaved rounds"
  "$python" "$root/scripts/bench/interleave.py" --rounds $cc_rounds \
    --out "$out/compile.json" --log "$out/compile.log" \
    "plain=$clang $cflags" \
    "plugin=$clang $with_plugin $cflags" \
    "plugin-limit0=$clang $with_plugin $limit0 $cflags"
  # Only where perf counts: callgrind would take hours over clang.
  if [ $count = 1 ] && "$python" -c "import sys; sys.path.insert(0, '$root/scripts/bench'); import count; sys.exit(0 if count.perf_works() else 1)"; then
    count_tool=perf count compile "plain=$clang $cflags" "plugin=$clang $with_plugin $cflags" \
      "plugin-limit0=$clang $with_plugin $limit0 $cflags"
  else
    log "compile: no instruction counts (no perf counters here; callgrind would take hours)"
  fi
fi

if wants re2; then
  export RW_ROOT=$root RW_PREFIX=$prefix RW_WORK=$out RW_CLANG=$clang
  # shellcheck source=../realworld/common.sh
  . "$root/test/realworld/common.sh"
  re2_src=$(rw_fetch_source re2)
  rw_re2_tables "$re2_src" || rw_die "could not generate re2's Unicode tables"
  r2=$out/re2
  mkdir -p "$r2"
  # dfa_test with re2's own Makefile, five ways (SafeStack the peer of
  # limit 0); a variant is rebuilt from a fresh tree when its compiler,
  # plugin or runtime changed (the stamp).
  re2_variants="plain safestack limit0 plain-static limit0-static"
  for v in $re2_variants; do
    cxxflags=-O2
    case $v in
      plain*) cxx=${clang}++ scopealloc_flags= ;;
      safestack) cxx=${clang}++ scopealloc_flags= cxxflags="-O2 -fsanitize=safe-stack" ;;
      limit0*) cxx=$prefix/bin/scopealloc-clang++ scopealloc_flags=$limit0 ;;
    esac
    case $v in *-static) ldflags=-static ;; safestack) ldflags=-fsanitize=safe-stack ;; *) ldflags= ;; esac
    stamp_files=("$cxx" "$re2_src/Makefile")
    case $v in
      limit0*) stamp_files+=("$plugin" "$prefix/lib/libscopealloc_rt.a" "$prefix/lib/libscopealloc_rt.so") ;;
    esac
    stamp=$( (cat "${stamp_files[@]}"; echo "$cxxflags $ldflags") | md5sum | cut -d' ' -f1)
    if [ "$(cat "$r2/$v/.stamp" 2>/dev/null)" != "$stamp" ]; then
      log "re2: building dfa_test ($v)"
      rw_fresh_tree "$re2_src" "$r2/$v"
      SCOPEALLOC_FLAGS=$scopealloc_flags rw_run "$r2/$v/build.log" \
        make -C "$r2/$v" -j"$(nproc)" CXX="$cxx" CXXFLAGS="$cxxflags" LDFLAGS="$ldflags" \
        obj/test/dfa_test || rw_die "re2: building dfa_test ($v) failed"
      echo "$stamp" > "$r2/$v/.stamp"
    fi
  done
  # Workspace use at limit 0, one run.
  SCOPEALLOC_STATS=1 "$r2/limit0/obj/test/dfa_test" > /dev/null 2> "$r2/limit0/stats.log"
  read -r r_peak r_allocs _ r_fails < <(rw_stats "$r2/limit0/stats.log")
  [ "${r_allocs:-0}" -gt 0 ] || rw_die "re2's dfa_test at limit 0 never used the workspace (plugin not applied?)"
  printf '{"limit0": {"peak_bytes": %d, "allocs": %d, "failures": %d}}\n' \
    "$r_peak" "$r_allocs" "$r_fails" > "$out/re2-stats.json"
  log "re2: dfa_test, $re2_rounds interleaved rounds after one warm-up round"
  variant_args=()
  for v in $re2_variants; do variant_args+=("$v=$r2/$v/obj/test/dfa_test"); done
  "$python" "$root/scripts/bench/interleave.py" --rounds $re2_rounds --warmup 1 \
    --out "$out/re2.json" --log "$r2/run.log" "${variant_args[@]}"
  count re2 "${variant_args[@]}"
fi

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
log "load average after: $load_after"
fast_path=$(sed -n 's/.*FRAME_BENCH_HAVE_FAST_PATH_OPTION \([01]\).*/\1/p' \
  "$build/bench/micro/frame_bench_config.h" 2>/dev/null || true)
verdict=0
"$python" "$root/scripts/bench/report.py" --dir "$out" --out "$out/results.json" \
  --command "$command_line" --load-before "$load_before" --load-after "$load_after" \
  --seconds $(($(date +%s) - started)) --fast-path "${fast_path:-0}" \
  --speedtest-size "$st_size" --count-size "$count_size" --clang "$clang" || verdict=$?
"$python" "$root/scripts/bench/chart.py" "$out/results.json" "$chart"
log "results: $out/results.json, chart: $chart"
# A missed target (report.py: 3) fails the run, after the chart.
exit $verdict
