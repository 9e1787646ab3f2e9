#!/usr/bin/env bash
# ctest bench-run-script: scripts/bench/run.sh --micro --quick on the
# existing build must write results.json with the twelve frame variants
# (positive times, the stack variant as the 1.0 baseline, each ScopeAlloc
# variant also as a ratio to its SafeStack peer), print them with a
# "× SafeStack" column and draw a PNG chart.
# Usage: run_quick_test.sh SOURCE_DIR BUILD_DIR OUT_DIR
set -euo pipefail
src=$1 build=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
# Exit status 3 is a missed target: timings are not this test's business.
rc=0
SCOPEALLOC_BUILD_DIR=$build bash "$src/scripts/bench/run.sh" --micro --quick \
  --no-build --out "$out" --chart "$out/bench.png" > "$out/table.md" || rc=$?
cat "$out/table.md"
[ $rc = 0 ] || [ $rc = 3 ] || { echo "FAIL: run.sh exited with $rc" >&2; exit 1; }
grep -E '^targets: (PASS|MISS)' "$out/table.md" > /dev/null ||
  { echo "FAIL: the table has no closing 'targets:' line" >&2; exit 1; }
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$out/results.json")" = \
  "$([ $rc = 0 ] && echo PASS || echo MISS)" ] ||
  { echo "FAIL: run.sh's exit status $rc disagrees with results.json's verdict" >&2; exit 1; }
grep -q '^| benchmark | variant | CPU time | × stack / plain | × SafeStack |' "$out/table.md" ||
  { echo "FAIL: the printed table has no × SafeStack column" >&2; exit 1; }
python=/usr/bin/python3
[ -x $python ] || python=python3
"$python" - "$out/results.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
(micro,) = [s for s in results["sections"] if s["id"] == "micro"]
rows = {r["name"]: r for r in micro["rows"]}
assert sorted(rows) == ["demoted_call", "demoted_guarded", "demoted_inline", "demoted_preserve_most", "demoted_standard", "malloc", "planned", "safestack", "shared_inline", "shared_inline_gd", "shared_safestack", "shared_stack", "stack"], rows
assert all(r["value"] > 0 for r in rows.values()), rows
assert rows["stack"]["ratio"] == 1.0, rows["stack"]
# ScopeAlloc's frames against SafeStack's built the same way; no peer ratio
# for the others.
peers = {"demoted_inline": "safestack", "demoted_call": "safestack",
         "demoted_standard": "safestack", "demoted_guarded": "safestack", "demoted_preserve_most": "safestack",
         "planned": "safestack",
         "shared_inline": "shared_safestack",
         "shared_inline_gd": "shared_safestack"}
for name, row in rows.items():
    peer = peers.get(name)
    assert row["safestack"] == peer, row
    if peer is None:
        assert row["safestack_ratio"] is None, row
    else:
        # A paired ratio (the median over rounds of same-round ratios): near
        # the ratio of the medians, never of another magnitude.
        ratio = row["value"] / rows[peer]["value"]
        assert 0.5 < row["safestack_ratio"] / ratio < 2, row
assert rows["demoted_inline"]["verdict"] in ("PASS", "MISS"), rows
assert rows["shared_inline"]["verdict"] in ("PASS", "MISS"), rows
assert rows["planned"]["verdict"] in ("PASS", "MISS"), rows
PY
head -c 8 "$out/bench.png" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a' ||
  { echo "FAIL: $out/bench.png is not a PNG" >&2; exit 1; }
echo "bench-run-script: results.json and bench.png written"
