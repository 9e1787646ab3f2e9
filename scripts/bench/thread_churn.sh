#!/usr/bin/env bash
# Thread churn (issue 48): what a thread that takes one demoted frame costs
# over its whole life (create, one 4 KiB frame, exit, join) against the same
# program built with plain clang, measured in the same run:
#   plain    clang -O2 (the baseline of every ratio);
#   limit0   scopealloc-clang -O2 -mllvm -scope-alloc-max-stack-alloca=0
#            (the frame is demoted: the thread gets an arena);
#   guarded  the same with -mllvm -scope-alloc-fast-path=guarded.
# Each case starts and joins --threads threads, from one churning thread
# and from 8 churning at once (scripts/bench/thread_churn.c). Paired rounds:
# in each, every variant runs once, in an order that rotates, and the ratio
# of that round is taken; the table gives the median seconds of each variant
# and the median of the rounds' ratios. Options:
#   --prefix P      the installed ScopeAlloc (default <build>/install);
#   --threads N     threads per run (default 20000);
#   --rounds R      paired rounds (default 5);
#   --quick         2000 threads, 2 rounds: checks that everything works;
#   --syscalls      also count system calls per thread with strace -f -c
#                   (1000 threads, one churner), extra over plain;
#   --callgrind     also count instructions per thread with callgrind
#                   (200 threads), and the runtime's share;
#   --out DIR       where the binaries and logs go (default
#                   <build>/bench/thread-churn).
# Prints a Markdown table and a last line "thread churn: limit0 <r1>x plain
# (1 churner), <r8>x (8 churners)". Asserts no timing: the targets (<= 1.10x)
# are for the reader, on an otherwise idle machine.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${SCOPEALLOC_BUILD_DIR:-$root/build}
prefix=$build/install out= threads=20000 rounds=5 syscalls=0 callgrind=0

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
number() { case $2 in ''|*[!0-9]*|0) echo "thread_churn.sh: $1 needs a number > 0, not '$2'" >&2; exit 2 ;; esac; }
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=${2:?--prefix needs a directory}; shift ;;
    --threads) threads=${2:-}; number --threads "$threads"; shift ;;
    --rounds) rounds=${2:-}; number --rounds "$rounds"; shift ;;
    --quick) threads=2000 rounds=2 ;;
    --syscalls) syscalls=1 ;;
    --callgrind) callgrind=1 ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    -h|--help) usage 0 ;;
    *) echo "thread_churn.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
  esac
  shift
done
out=${out:-$build/bench/thread-churn}
[ -x "$prefix/bin/scopealloc-clang" ] ||
  { echo "thread_churn.sh: no $prefix/bin/scopealloc-clang (install first, or --prefix)" >&2; exit 2; }
llvm_dir=$(sed -n 's|^LLVM_DIR:[A-Z]*=\(.*\)/lib/cmake/llvm$|\1|p' "$build/CMakeCache.txt" 2>/dev/null || true)
clang=${llvm_dir:-/usr/lib/llvm-22}/bin/clang
mkdir -p "$out"
src=$root/scripts/bench/thread_churn.c
limit0="-mllvm -scope-alloc-max-stack-alloca=0"

"$clang" -O2 -pthread "$src" -o "$out/plain"
"$prefix/bin/scopealloc-clang" -O2 -pthread $limit0 "$src" -o "$out/limit0"
"$prefix/bin/scopealloc-clang" -O2 -pthread $limit0 -mllvm -scope-alloc-fast-path=guarded \
  "$src" -o "$out/guarded"
# The frame must really be demoted (the runtime referenced), or the ratios
# would compare plain with plain.
for v in limit0 guarded; do
  "$(dirname "$clang")/llvm-nm" "$out/$v" | grep -q '__scopealloc_tls_pool' ||
    { echo "thread_churn.sh: $out/$v does not use the arena (plugin not applied?)" >&2; exit 1; }
done
variants="plain limit0 guarded"
echo "# thread churn: $threads threads per run, $rounds paired rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# seconds <variant> <churners>: the churn's wall time, as the program prints it.
seconds() {
  "$out/$1" "$threads" "$2" | sed -n 's/.* seconds \([0-9.]*\) .*/\1/p'
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

echo
echo "| churners | variant | median s | us per thread | ratio to plain (median of rounds) |"
echo "|---|---|---|---|---|"
summary=
for churners in 1 8; do
  : > "$out/times-$churners.txt"
  for ((r = 0; r < rounds; r++)); do
    set -- $variants
    # Rotate the order, so that no variant always runs first.
    for ((k = 0; k < r % 3; k++)); do set -- "${@:2}" "$1"; done
    line=
    for v in "$@"; do line="$line $v=$(seconds "$v" "$churners")"; done
    echo "$line" >> "$out/times-$churners.txt"
  done
  for v in $variants; do
    med=$(sed -n "s/.* $v=\([0-9.]*\).*/\1/p" "$out/times-$churners.txt" | median)
    ratio=$(awk -v v="$v" '{for (i = 1; i <= NF; i++) {split($i, kv, "="); t[kv[1]] = kv[2]}
                              print t[v] / t["plain"]}' "$out/times-$churners.txt" | median)
    printf '| %s | %s | %.3f | %.1f | %.3fx |\n' "$churners" "$v" "$med" \
      "$(awk -v s="$med" -v n="$threads" 'BEGIN {print s * 1e6 / n}')" "$ratio"
    [ "$v" != limit0 ] ||
      summary="$summary $(printf '%.3f' "$ratio")x ($churners churner$([ "$churners" = 1 ] || echo s)),"
  done
done
echo
echo "thread churn: limit0${summary%,} of plain"

if [ $syscalls = 1 ]; then
  command -v strace > /dev/null || { echo "thread_churn.sh: --syscalls needs strace" >&2; exit 2; }
  n=1000
  echo
  echo "## system calls per thread over plain (strace -f -c, $n threads, 1 churner)"
  for v in $variants; do
    strace -f -c -o "$out/strace-$v.txt" "$out/$v" $n 1 > /dev/null
  done
  # calls column of each syscall row, per variant.
  for v in $variants; do
    awk -v v="$v" 'NF >= 5 && $4 ~ /^[0-9]+$/ {c = $NF == "total" ? "" : $NF; if (c != "") print v, c, $4}' \
      "$out/strace-$v.txt"
  done > "$out/strace-calls.txt"
  echo "| syscall | limit0 | guarded |"
  echo "|---|---|---|"
  # Calls per thread; fractions under 0.05 are the programs' start-up.
  awk -v n=$n '{calls[$1, $2] = $3; names[$2] = 1}
    END {for (s in names) {a = (calls["limit0", s] - calls["plain", s]) / n; b = (calls["guarded", s] - calls["plain", s]) / n;
           if (a >= 0.05 || a <= -0.05 || b >= 0.05 || b <= -0.05) printf "| %s | %+.2f | %+.2f |\n", s, a, b}}' \
    "$out/strace-calls.txt" | sort
fi

if [ $callgrind = 1 ]; then
  command -v valgrind > /dev/null || { echo "thread_churn.sh: --callgrind needs valgrind" >&2; exit 2; }
  n=200
  echo
  echo "## instructions per thread (callgrind, $n threads, 1 churner)"
  echo "| variant | instructions per thread | of which the runtime (libscopealloc_rt) |"
  echo "|---|---|---|"
  for v in $variants; do
    valgrind --tool=callgrind --callgrind-out-file="$out/callgrind-$v.out" "$out/$v" $n 1 > /dev/null 2>&1
    total=$(callgrind_annotate "$out/callgrind-$v.out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
    rt=$(callgrind_annotate "$out/callgrind-$v.out" 2>/dev/null |
      awk '/libscopealloc_rt/ {gsub(",", "", $1); s += $1} END {print s + 0}')
    printf '| %s | %d | %d |\n' "$v" $((total / n)) $((rt / n))
  done
fi
