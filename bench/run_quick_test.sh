#!/usr/bin/env bash
# ctest bench-run-script: scripts/bench/run.sh --micro --quick on the
# existing build must write results.json with the seven frame variants
# (positive times, the stack variant as the 1.0 baseline) and a PNG chart.
# Usage: run_quick_test.sh SOURCE_DIR BUILD_DIR OUT_DIR
set -euo pipefail
src=$1 build=$2 out=$3
rm -rf "$out"
SCOPEALLOC_BUILD_DIR=$build bash "$src/scripts/bench/run.sh" --micro --quick \
  --no-build --out "$out" --chart "$out/bench.png"
python=/usr/bin/python3
[ -x $python ] || python=python3
"$python" - "$out/results.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
(micro,) = [s for s in results["sections"] if s["id"] == "micro"]
rows = {r["name"]: r for r in micro["rows"]}
assert sorted(rows) == ["demoted_call", "demoted_inline", "malloc",
                        "shared_inline", "shared_inline_gd", "shared_stack",
                        "stack"], rows
assert all(r["value"] > 0 for r in rows.values()), rows
assert rows["stack"]["ratio"] == 1.0, rows["stack"]
assert rows["demoted_inline"]["verdict"] in ("PASS", "MISS"), rows
assert rows["shared_inline"]["verdict"] in ("PASS", "MISS"), rows
PY
head -c 8 "$out/bench.png" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a' ||
  { echo "FAIL: $out/bench.png is not a PNG" >&2; exit 1; }
echo "bench-run-script: results.json and bench.png written"
