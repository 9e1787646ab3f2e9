#!/usr/bin/env bash
# Fortran through ScopeAlloc (docs/fortran.md), with flang of the plugin's
# LLVM and its OpenMP runtime:
#   check-fortran.sh --prefix <ScopeAlloc install> --work <dir> --llvm-bin <dir>
#
# automatic.f90: 4 OpenMP threads, each task's automatic array 800000 bytes.
# Plain flang at OMP_STACKSIZE=64K crashes; scopealloc-flang (default policy:
# run-time sizes move) and limit 0 print what plain flang prints with 64 MiB
# stacks, the arrays in the per-thread arena. flang's own
# -mmlir -fdynamic-heap-array (its -heap-arrays) is run beside them, and the
# run time of the builds that survive 64K is printed side by side.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../client-args.sh"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
flang=$llvm_bin/flang
[ -x "$flang" ] || fail "$flang not found: install flang-22 libomp-22-dev (bash scripts/setup.sh)"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$flang" --version | sed -n 1p

"$flang" -O2 -fopenmp "$here/automatic.f90" -o plain
"$flang" -O2 -fopenmp -mmlir -fdynamic-heap-array "$here/automatic.f90" -o heaparrays
"$prefix/bin/scopealloc-flang" -O2 -fopenmp -Rpass=scope-alloc "$here/automatic.f90" -o scoped 2> scoped.remarks
"$prefix/bin/scopealloc-flang" -O2 -fopenmp -mllvm -scope-alloc-max-stack-alloca=0 "$here/automatic.f90" -o limit0
grep -q "'a' in .* (dynamic size, align 8, scope none) moved to pool 'workspace'" scoped.remarks ||
  fail "the automatic array should move to the workspace pool: $(cat scoped.remarks)"

# Reports (docs/fortran.md#reports): one per source, named by the image and
# the source for a compile and link, by the object for -c, the source named
# (flang's modules are all 'FIRModule').
cat > smooth.f90 <<'EOF'
subroutine smooth(n, x)
  integer, intent(in) :: n
  real(8), intent(inout) :: x(n)
  real(8) :: tmp(n)
  tmp = x
  x(2:n-1) = (tmp(1:n-2) + tmp(2:n-1) + tmp(3:n)) / 3
end subroutine
EOF
SCOPEALLOC_REPORT_DIR=reports "$prefix/bin/scopealloc-flang" -O2 -fopenmp "$here/automatic.f90" smooth.f90 -o reported
"$prefix/bin/scopealloc-flang" -O2 --scopealloc-report-dir=reports-c -c smooth.f90 -o smooth.o
for want in reports/automatic- reports/smooth- reports-c/smooth-; do
  ls "$want"????????????????.json > /dev/null 2>&1 || fail "no report $want<hash>.json: $(ls reports reports-c)"
done
[ "$(ls reports | wc -l)" = 2 ] || fail "expected two reports: $(ls reports)"
summary=$("$prefix/bin/scopealloc-report" reports)
for want in "in _QMwork_mPwork ($here/automatic.f90)" "in smooth_ (smooth.f90)"; do
  grep -qF "$want" <<< "$summary" || fail "scopealloc-report should place '$want': $summary"
done
if grep -q FIRModule <<< "$summary"; then fail "scopealloc-report names FIRModule: $summary"; fi
[ "$(OMP_STACKSIZE=64K ./reported 100000 1)" = "$(OMP_STACKSIZE=64M ./plain 100000 1)" ] ||
  fail "the image linked from two sources with reports should print the plain sums"
echo "reports: one per source of a link and per object, functions placed in their sources"

set +e
OMP_STACKSIZE=64K ./plain 100000 1 > plain64k.out 2> plain64k.err
status=$?
set -e
[ "$status" -ne 0 ] || fail "plain flang at OMP_STACKSIZE=64K should crash"
echo "plain flang, OMP_STACKSIZE=64K: exit status $status (the stack overflows)"
want=$(OMP_STACKSIZE=64M ./plain 100000 1)
for exe in scoped limit0 heaparrays; do
  got=$(OMP_STACKSIZE=64K SCOPEALLOC_STATS=1 "./$exe" 100000 1 2> "$exe.stats")
  [ "$got" = "$want" ] || fail "$exe at OMP_STACKSIZE=64K printed '$got', plain flang with 64M '$want'"
  echo "$exe, OMP_STACKSIZE=64K: same sums as plain flang with 64M"
done
for exe in scoped limit0; do
  peak=$(awk '$1 == "workspace" { print $3 }' "$exe.stats")
  [ "${peak:-0}" -ge 800000 ] || fail "$exe: the arena should hold the 800000-byte array: $(cat "$exe.stats")"
  echo "$exe: workspace peak $peak bytes per thread"
done

# The cost: 4 threads, 8 tasks x 2000 calls with a 64 KiB (8192-element)
# array, side by side.
python3 "$root/scripts/bench/interleave.py" --rounds 5 --warmup 1 --out time.json 2>/dev/null \
  "plain flang (64M stacks)=env OMP_STACKSIZE=64M ./plain 8192 2000" \
  "scopealloc-flang (64K)=env OMP_STACKSIZE=64K ./scoped 8192 2000" \
  "flang -fdynamic-heap-array (64K)=env OMP_STACKSIZE=64K ./heaparrays 8192 2000"
python3 - time.json <<'PY'
import json, sys
variants = json.load(open(sys.argv[1]))["variants"]
base = variants[0]["wall_s"]
print("run time, 8 tasks x 2000 calls, 64 KiB arrays (5 interleaved rounds, medians):")
for v in variants:
    print(f"  {v['name']:34} wall {v['wall_s']:7.3f} s  {v['wall_s'] / base:5.3f}x  cpu {v['cpu_s']:7.3f} s")
PY
echo PASS
