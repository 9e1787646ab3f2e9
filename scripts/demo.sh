#!/usr/bin/env bash
# The main job on the built-in example: compiles examples/demo.c with
# scopealloc-clang, shows each decision the pass made, runs the program with
# pool statistics, and checks its output against a plain clang build.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SCOPEALLOC_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh" >/dev/null

out=$build/demo
mkdir -p "$out"
src=$root/examples/demo.c
limit=${1:-}   # optional: a per-allocation limit in bytes instead of the target default
flags=(-O2 -g)
if [ -n "$limit" ]; then flags+=(-mllvm "-scope-alloc-max-stack-alloca=$limit"); fi

echo "== Decisions (scopealloc-clang ${flags[*]} -Rpass=scope-alloc) =="
"$build/install/bin/scopealloc-clang" "${flags[@]}" -Rpass=scope-alloc \
  -fno-diagnostics-show-option -fno-caret-diagnostics \
  "$src" -o "$out/demo" 2>&1 | sed "s|$root/||"

echo
echo "== Run =="
SCOPEALLOC_STATS=1 "$out/demo" > "$out/demo.out" 2> "$out/demo.stats"
cat "$out/demo.out"
echo
echo "== Pool statistics at exit (SCOPEALLOC_STATS=1) =="
cat "$out/demo.stats"

/usr/lib/llvm-22/bin/clang -O2 "$src" -o "$out/demo-plain"
"$out/demo-plain" > "$out/demo-plain.out"
echo
if cmp -s "$out/demo.out" "$out/demo-plain.out"; then
  echo "== Output identical to a plain clang -O2 build =="
else
  echo "== MISMATCH with a plain clang -O2 build ==" >&2
  diff "$out/demo-plain.out" "$out/demo.out" >&2
  exit 1
fi
