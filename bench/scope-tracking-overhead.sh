#!/usr/bin/env bash
# Compile-time cost of the scope tracker (plugin/passes/ScopeTracking.cpp), which
# runs around every function pass: `opt -O2` with the plugin, tracker on vs
# off (-scope-alloc-track-scopes=false), interleaved rounds, on
#   - a real C++ translation unit without scopes (the plugin's own
#     PolicyFile.cpp as -O0 IR: thousands of functions, only the scan), and
#   - a generated module of 2,000 kernels with scoped array-count allocas
#     (every function tracked, InstCombine and SROA re-scoping).
# Prints the median time of each and the ratio on/off.
# Usage: bench/scope-tracking-overhead.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
rounds=${2:-5}
bin=/usr/lib/llvm-22/bin
plugin=$build/plugin/ScopeAlloc.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin/clang++" -std=c++17 -O0 -Xclang -disable-O0-optnone -S -emit-llvm \
  -I "$root/analysis" -I "$root/runtime/include" -I /usr/lib/llvm-22/include \
  -fno-exceptions -fno-rtti -o "$work/real.ll" "$root/analysis/PolicyFile.cpp"
python3 - "$work/scoped.ll" <<'PY'
import sys
out = open(sys.argv[1], "w")
out.write('target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"\n')
out.write('target triple = "x86_64-unknown-linux-gnu"\ndeclare void @use(ptr)\n')
for i in range(2000):
    out.write(f"""define float @k{i}(i64 %n) {{
entry:
  %tile = alloca float, i64 4096, align 16, !scope !0
  %acc = alloca [4 x float], align 16, !scope !1
  call void @use(ptr %tile)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi float [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr float, ptr %tile, i64 %i
  %v = load float, ptr %p
  %a = getelementptr [4 x float], ptr %acc, i64 0, i64 1
  store float %v, ptr %a
  %w = load float, ptr %a
  %s.next = fadd float %s, %w
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret float %s.next
}}
""")
out.write('!0 = !{!"global.sram"}\n!1 = !{!"local"}\n')
PY

run() { # run INPUT on|off -> seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$bin/opt" -load-pass-plugin "$plugin" -scope-alloc-track-scopes="$2" \
    -passes='default<O2>' -disable-output "$1" 2>/dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "| input | tracker off (s) | tracker on (s) | on / off |"
echo "|---|---|---|---|"
for input in real scoped; do
  : > "$work/$input.on"; : > "$work/$input.off"
  for ((r = 0; r < rounds; r++)); do
    run "$work/$input.ll" false >> "$work/$input.off"
    run "$work/$input.ll" true >> "$work/$input.on"
  done
  off=$(median < "$work/$input.off"); on=$(median < "$work/$input.on")
  printf "| %s | %.3f | %.3f | %.3f |\n" "$input" "$off" "$on" "$(echo "$on / $off" | bc -l)"
done
