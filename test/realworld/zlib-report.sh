#!/usr/bin/env bash
# Build-wide report on a real multi-file build: zlib (Debian source package)
# built with scopealloc-clang -O2 -g at the default policy and
# SCOPEALLOC_REPORT_DIR set, then summarised with scopealloc-report (text,
# JSON and a PNG chart), and checked:
#   - one report per compile step (one per object file make produced), all
#     of schema version 1, complete, and valid against docs/report-schema.json;
#   - the decisions in the reports are the ones the remarks of the same
#     compiles announced, counted per decision in each compile's own
#     optimisation record (<object>.opt.yaml): remarks printed by a parallel
#     make interleave in one log, so counting them there is unreliable;
#   - known functions with plausible numbers: minigzip's gz_compress moves
#     its 16 KiB buf to the workspace (over the 1024-byte limit),
#     file_compress keeps its 1024-byte outfile (at the limit), compress2
#     keeps its z_stream (112 bytes) on the stack;
#   - the chart is a PNG.
#
#   bash test/realworld/zlib-report.sh [--prefix P] [--work DIR] [--jobs N]
#
# --prefix  ScopeAlloc install prefix (default: $SCOPEALLOC_PREFIX, else
#           build/install); --work  work directory (default
#           build/report-zlib): src/ keeps the downloaded source, reports/
#           the per-compile JSON, summary.txt/summary.json/zlib-report.png
#           the summary.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=${SCOPEALLOC_PREFIX:-$root/build/install}
work=$root/build/report-zlib
jobs=$(nproc 2>/dev/null || echo 2)
. "$here/args.sh"
rw_parse_args zlib-report.sh "$@"
[ ${#rw_rest[@]} -eq 0 ] || { echo "zlib-report.sh: unknown argument ${rw_rest[0]}" >&2; exit 2; }
rw_check_prefix zlib-report.sh bin/scopealloc-clang bin/scopealloc-report lib/ScopeAlloc.so
export RW_ROOT=$root RW_PREFIX=$prefix RW_WORK=$work RW_JOBS=$jobs
. "$here/common.sh"

src=$(rw_fetch_source zlib) || exit 1
tree=$work/zlib
reports=$work/reports
log=$work/build.log
rw_fresh_tree "$src" "$tree" && rm -rf "$reports" && : > "$log"
start=$(date +%s)
(
  cd "$tree" || exit 1
  export CC=$prefix/bin/scopealloc-clang CFLAGS="-O2 -g"
  rw_run "$log" ./configure || exit 1
  # Only make's compiles report (not configure's probes); the remarks of the
  # same compiles, one record file per object, are the reference the
  # reports are checked against.
  SCOPEALLOC_REPORT_DIR=$reports \
    SCOPEALLOC_FLAGS="-fsave-optimization-record -foptimization-record-passes=scope-alloc" \
    rw_run "$log" make -j"$jobs" all infcover
) || { echo "zlib-report: FAIL (build; log $log)"; exit 1; }
build_seconds=$(( $(date +%s) - start ))

summarise=("$prefix/bin/scopealloc-report" "$reports")
title="zlib $(basename "$src" | sed 's/^zlib-//'): scopealloc-clang -O2 -g, default policy"
"${summarise[@]}" --png "$work/zlib-report.png" --title "$title" > "$work/summary.txt" ||
  { echo "zlib-report: FAIL (scopealloc-report)"; exit 1; }
"${summarise[@]}" --json > "$work/summary.json" &&
  "${summarise[@]}" --json --keep-duplicates > "$work/summary-all.json" ||
  { echo "zlib-report: FAIL (scopealloc-report --json)"; exit 1; }

cat "$work/summary.txt"
echo
echo "built in ${build_seconds}s; reports in $reports"

python3 - "$tree" "$reports" "$log" "$work" "$root" <<'CHECK'
import glob, json, os, re, subprocess, sys
tree, reports, log, work, root = sys.argv[1:]
failures = []
def check(cond, what):
    print("  %s %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        failures.append(what)

objects = [p for p in glob.glob(os.path.join(tree, "**", "*.o"), recursive=True)
           + glob.glob(os.path.join(tree, "**", "*.lo"), recursive=True)]
files = sorted(glob.glob(os.path.join(reports, "*.json")))
docs = [json.load(open(f)) for f in files]
print("checks:")
check(len(objects) > 30, "make built %d object files" % len(objects))
check(len(files) == len(objects),
      "one report per compile step: %d reports for %d object files"
      % (len(files), len(objects)))
check(all(d["schema"] == "scopealloc-report" and d["version"] == 1
          and d["complete"] for d in docs), "all reports complete, schema version 1")
validator = os.path.join(root, "test", "lit", "report", "Inputs", "validate.py")
schema = os.path.join(root, "docs", "report-schema.json")
valid = subprocess.run([sys.executable, validator, schema] + files,
                       stdout=subprocess.PIPE, universal_newlines=True)
check(valid.returncode == 0, "all reports match docs/report-schema.json"
      + "".join("\n      " + l for l in valid.stdout.splitlines()
                if l.startswith("invalid")))
sources = {d["source_file"] for d in docs}
expected = {os.path.basename(p)[:-2] + ".c" for p in glob.glob(os.path.join(tree, "*.c"))}
check(expected <= {os.path.basename(s) for s in sources},
      "every library source has a report (%d sources)" % len(expected))

# The remarks of the same compiles, one per decision, from each compile's own
# record file (never from the shared log: parallel compiles interleave there).
records = glob.glob(os.path.join(tree, "**", "*.opt.yaml"), recursive=True)
check(len(records) == len(objects),
      "one optimisation record per compile step: %d records for %d object files"
      % (len(records), len(objects)))
names = []
for r in records:
    for doc in open(r, errors="replace").read().split("\n--- ")[0:]:
        if re.search(r"^Pass:\s+scope-alloc\s*$", doc, re.M):
            m = re.search(r"^Name:\s+(\S+)\s*$", doc, re.M)
            names.append(m.group(1) if m else "")
moved = names.count("Demoted")
kept = names.count("KeptOnStack") + names.count("StackScopeOverLimit")
everything = json.load(open(os.path.join(work, "summary-all.json")))
check(moved > 0 and moved == everything["decisions"]["demote"],
      "demoted allocations: %d in the reports, %d remarks"
      % (everything["decisions"]["demote"], moved))
check(kept > 0 and kept == everything["decisions"]["keep"],
      "kept allocations: %d in the reports, %d remarks"
      % (everything["decisions"]["keep"], kept))

def find(function, source_suffix):
    for d in docs:
        if d["source_file"].endswith(source_suffix):
            for f in d["functions"]:
                if f["name"] == function:
                    return f
    return None

def allocation(f, name):
    return next((a for a in (f or {}).get("allocations", []) if a["name"] == name), None)

f = find("gz_compress", "minigzip.c")
a = allocation(f, "buf")
check(a is not None and a["size"] == 16384 and a["decision"] == "demote"
      and a["pool"] == "workspace" and a["rule"] == "over-limit"
      and a["file"].endswith("minigzip.c") and a["line"],
      "gz_compress: buf, 16384 bytes, demoted to workspace (over-limit) at minigzip.c:%s"
      % (a or {}).get("line"))
check(f is not None and f["totals"]["pools"]["workspace"]["bytes"] >= 16384
      and f["policy"]["max_stack_alloca"]["value"] == 1024,
      "gz_compress: totals and policy (limit 1024)")
a = allocation(find("file_compress", "minigzip.c"), "outfile")
check(a is not None and a["size"] == 1024 and a["decision"] == "keep"
      and a["rule"] == "within-limit",
      "file_compress: outfile, 1024 bytes, kept (at the limit)")
a = allocation(find("compress2", "compress.c"), "stream")
check(a is not None and a["size"] == 112 and a["decision"] == "keep",
      "compress2: stream (z_stream, 112 bytes) kept on the stack")

summary = json.load(open(os.path.join(work, "summary.json")))
check(summary["duplicates_merged"] > 0 and summary["modules"] < len(files),
      "identical static/shared compiles merged: %d reports -> %d modules"
      % (len(files), summary["modules"]))
top = [e["function"] for e in summary["top_demoted"]]
check("gz_compress" in top, "gz_compress among the top functions by memory demoted")
check("not run-time peaks" in open(os.path.join(work, "summary.txt")).read(),
      "the summary says its sizes are static")
png = os.path.join(work, "zlib-report.png")
with open(png, "rb") as p:
    head = p.read(8)
check(head == b"\x89PNG\r\n\x1a\n" and os.path.getsize(png) > 10000,
      "chart %s is a PNG (%d bytes)" % (png, os.path.getsize(png)))
print("zlib-report: %s" % ("FAIL: " + "; ".join(failures) if failures else "pass"))
sys.exit(1 if failures else 0)
CHECK
