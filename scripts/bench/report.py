#!/usr/bin/env python3
"""Turns the raw outputs of scripts/bench/run.sh (micro.json from Google
Benchmark, speedtest.json, compile.json and re2.json from interleave.py,
speedtest-stats.json, re2-stats.json) into results.json, with ratios against each
benchmark's baseline and PASS/MISS against the targets of issue 5, every
ScopeAlloc result also as a ratio to LLVM SafeStack measured in the same run
(the peer of issue 15), and prints them as a Markdown table."""
import argparse
import datetime
import glob
import json
import os
import platform
import statistics
import subprocess

# Targets: the most a variant may cost, as a ratio to the baseline (issue
# 5), and for the inline frame also as a ratio to SafeStack's (issue 15).
FRAME_TARGET = 1.10  # demoted frame (inline fast path) vs stack frame (issue 37)
FRAME_SAFESTACK_TARGET = 1.02  # the same frame vs SafeStack's
SHARED_EXE_TARGET = 1.05  # the demoted frame in a PIC .so vs the executable's
PLANNED_TARGET = 1.05  # planned frame (plan: static) vs stack frame
SPEEDTEST_TARGETS = {"default": 1.01, "limit0": 1.02}  # vs plain clang
COMPILE_TARGET = 1.02  # sqlite3.c at -O2 with the plugin vs without

# (name, label, target, SafeStack peer): the peer is the SafeStack variant
# a ScopeAlloc variant is also read against, built the same way (the .so
# rows against SafeStack in a .so); None for the other variants.
MICRO_VARIANTS = [
    ("stack", "stack buffer", None, None),
    ("safestack", "SafeStack (-fsanitize=safe-stack)", None, None),
    ("demoted_inline", "demoted, inline fast path", FRAME_TARGET, "safestack"),
    ("demoted_standard", "demoted, inline, standard-convention slow call",
     None, "safestack"),
    ("demoted_guarded", "demoted, inline, guarded (marker, no compare)", None,
     "safestack"),
    ("demoted_preserve_most", "demoted, inline, preserve_most slow call",
     None, "safestack"),
    ("demoted_call", "demoted, runtime calls", None, "safestack"),
    ("planned", "planned (plan: static, thread-local region)", PLANNED_TARGET,
     "safestack"),
    ("malloc", "malloc/free", None, None),
    ("shared_stack", "PIC .so: stack buffer", None, None),
    ("shared_safestack", "PIC .so: SafeStack", None, None),
    ("shared_inline", "PIC .so: demoted, initial-exec TLS", FRAME_TARGET,
     "shared_safestack"),
    ("shared_inline_gd", "PIC .so: demoted, general-dynamic TLS", None,
     "shared_safestack"),
]
SPEEDTEST_VARIANTS = [
    ("plain", "plain clang -O2", None, None),
    ("safestack", "clang -O2 -fsanitize=safe-stack", None, None),
    ("default", "scopealloc-clang, default policy", SPEEDTEST_TARGETS["default"],
     "safestack"),
    ("limit0", "scopealloc-clang, limit 0", SPEEDTEST_TARGETS["limit0"],
     "safestack"),
    ("limit0-lto", "scopealloc-clang, limit 0, -flto", None, "safestack"),
    ("limit0-planned", "scopealloc-clang, limit 0, -flto, plan: static",
     None, "safestack"),
]
# plan: static vs the bump (both limit 0, full LTO; issue 37): never
# slower. With nothing planned the code must be the bump's byte for byte
# (the verdict rests on that, not on a timing); with frames planned, its
# time at most this much over the bump's (same-round ratios, median).
PLANNED_BUMP_TARGET = 1.02
RE2_TARGET = 1.10  # C++ at limit 0 vs plain clang++ (issue 23 item 6)
RE2_VARIANTS = [
    ("plain", "plain clang++ -O2", None, None),
    ("safestack", "clang++ -O2 -fsanitize=safe-stack", None, None),
    ("limit0", "scopealloc-clang++, limit 0", RE2_TARGET, "safestack"),
]
RE2_STATIC_VARIANTS = [
    ("plain-static", "plain clang++ -O2 -static", None, None),
    ("limit0-static", "scopealloc-clang++, limit 0, -static", RE2_TARGET,
     None),
]
COMPILE_VARIANTS = [
    ("plain", "clang -O2", None, None),
    ("plugin", "clang -O2 + plugin, default policy", COMPILE_TARGET, None),
    ("plugin-limit0", "clang -O2 + plugin, limit 0", COMPILE_TARGET, None),
]


# The frames whose ratio to SafeStack has a target (issue 15).
SAFESTACK_TARGETS = {"demoted_inline": FRAME_SAFESTACK_TARGET,
                     "shared_inline": FRAME_SAFESTACK_TARGET}


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def verdict(ratio, target, safestack_ratio=None, safestack_target=None):
    """PASS when every target the row has is met."""
    checks = [(ratio, target), (safestack_ratio, safestack_target)]
    checks = [(r, t) for r, t in checks if t is not None and r is not None]
    if not checks:
        return None
    return "PASS" if all(r <= t for r, t in checks) else "MISS"


def rows_for(variants, values, baseline, extra=lambda name: {}):
    rows = []
    for name, label, target, peer in variants:
        if name not in values:
            continue
        ratio = values[name] / values[baseline]
        # The ratio to SafeStack (None: not a ScopeAlloc variant, or its
        # SafeStack peer was not measured).
        peer_ratio = values[name] / values[peer] if peer in values else None
        peer_target = SAFESTACK_TARGETS.get(name)
        row = {"name": name, "label": label, "value": values[name],
               "ratio": ratio, "target": target,
               "safestack": peer if peer in values else None,
               "safestack_ratio": peer_ratio,
               "safestack_target": peer_target,
               "verdict": verdict(ratio, target, peer_ratio, peer_target)}
        row.update(extra(name))
        rows.append(row)
    return rows


def paired_micro_section(raw, fast_path):
    """frame_bench --paired: each variant alone in a child process per
    round, layouts randomised per round; times are 10th percentiles."""
    v = raw["variants"]
    rows = []
    for name, label, target, peer in MICRO_VARIANTS:
        if name not in v:
            continue
        shared = name.startswith("shared_")
        ratio = v[name]["x_shared_stack"] if shared else v[name]["x_stack"]
        peer_ratio = v[name]["x_safestack"] if peer and peer in v else None
        peer_target = SAFESTACK_TARGETS.get(name)
        row = {"name": name, "label": label, "value": v[name]["low_ns"],
               "ratio": ratio, "target": target,
               "safestack": peer if peer_ratio else None,
               "safestack_ratio": peer_ratio,
               "safestack_target": peer_target,
               "verdict": verdict(ratio, target, peer_ratio, peer_target)}
        if name == "shared_inline" and "shared_inline_x_demoted_inline" in raw:
            exe = raw["shared_inline_x_demoted_inline"]
            row["exe_ratio"], row["exe_target"] = exe, SHARED_EXE_TARGET
            if row["verdict"] and exe > SHARED_EXE_TARGET:
                row["verdict"] = "MISS"
            row["label"] += f" ({exe:.3f}× the executable's demoted frame)"
        rows.append(row)
    procs = raw.get("processes", 1)
    note = (f"{raw['rounds']} rounds ({procs} processes) of "
            f"{raw['calls']} calls per variant, in a new random order each "
            "round, each variant alone in a child process after the machine "
            "stack, the arena's top and SafeStack's unsafe stack were each "
            "moved by its own random offset; CPU time per call: the 10th "
            "percentile of the rounds (the machine slows every variant alike "
            "in the others); × stack: for the .so rows against the stack "
            "frame in the .so; × SafeStack: against SafeStack's frame built "
            "the same way; frames aligned to 64 bytes")
    if "demoted_guarded" in v and "demoted_inline" in v:
        note += (f"; guarded fast path (-scope-alloc-fast-path=guarded) "
                 f"{v['demoted_guarded']['x_safestack']:.3f}× SafeStack, "
                 f"checked (the default) "
                 f"{v['demoted_inline']['x_safestack']:.3f}×")
    return {"id": "micro", "title": "call of a function with a 2 KiB buffer",
            "unit": "ns CPU/call", "baseline": "stack", "note": note,
            "rows": rows}


def low_quantile(values):
    """The 10th percentile (frame_bench.cpp's lowQuantile): the rounds in
    which the machine let the frame run at its own speed."""
    v = sorted(values)
    return v[(len(v) - 1) // 10]


def pool_paired(runs):
    """The rounds of several frame_bench --paired processes as one: each
    variant's time is the 10th percentile of all its rounds, and a ratio is
    the ratio of two such times."""
    ns = {name: [t for run in runs for t in run["ns"][name]]
          for name in runs[0]["ns"]}
    low = {name: low_quantile(ns[name]) for name in ns}

    def ratio(a, b):
        return low[a] / low[b]

    variants = {}
    for name in ns:
        shared = name.startswith("shared_")
        variants[name] = {
            "low_ns": low[name],
            "x_stack": ratio(name, "stack"),
            "x_safestack": ratio(name, "shared_safestack" if shared
                                 else "safestack"),
            "x_shared_stack": ratio(name, "shared_stack") if shared else 0}
    return {"mode": "paired", "rounds": len(ns["stack"]),
            "processes": len(runs), "calls": runs[0]["calls"],
            "variants": variants,
            "shared_inline_x_demoted_inline": ratio("shared_inline",
                                                    "demoted_inline")}


def micro_section(raw, fast_path):
    if raw.get("mode") == "paired":
        return paired_micro_section(raw, fast_path)
    times = {}
    for b in raw["benchmarks"]:
        name = b["run_name"].split("/", 1)[1]
        is_median = b.get("aggregate_name") == "median"
        if is_median or (b.get("run_type") == "iteration" and name not in times):
            assert b["time_unit"] == "ns", b["time_unit"]
            times[name] = b["cpu_time"]
    note = ("median over repetitions interleaved in random order, CPU "
            "time per call; the executable and the PIC .so variants use the "
            "shared runtime; × SafeStack: against SafeStack's frame in the "
            "executable, for the .so rows in the .so")
    if "safestack" in times:
        note += (f"; SafeStack / stack = "
                 f"{times['safestack'] / times['stack']:.3f}×")
    if "demoted_inline" in times and "demoted_standard" in times:
        note += (f"; standard-convention slow call / default = "
                 f"{times['demoted_standard'] / times['demoted_inline']:.3f}×")
    if "shared_stack" in times and "shared_safestack" in times:
        note += (f"; in the .so, SafeStack / stack = "
                 f"{times['shared_safestack'] / times['shared_stack']:.3f}×")
    if "shared_stack" in times and "shared_inline" in times:
        note += (f"; in the .so, demoted (initial-exec) / stack = "
                 f"{times['shared_inline'] / times['shared_stack']:.3f}×")
        if "shared_inline_gd" in times:
            note += (f", demoted (general-dynamic) / stack = "
                     f"{times['shared_inline_gd'] / times['shared_stack']:.3f}×")
    if not fast_path:
        note += ("; this plugin has no inline fast path yet, so both "
                 "demoted variants call the runtime")
    rows = rows_for(MICRO_VARIANTS, times, "stack")
    for row in rows:
        if row["name"] == "demoted_inline" and not fast_path:
            row["label"] += " (n/a: calls)"
    return {"id": "micro", "title": "call of a function with a 2 KiB buffer",
            "unit": "ns CPU/call", "baseline": "stack", "note": note,
            "rows": rows}


def quartiles(values):
    v = sorted(values)
    n = len(v)
    return v[(n - 1) // 4], statistics.median(v), v[(3 * (n - 1) + 3) // 4]


def judge_paired(rows, by_name, baseline):
    """Whole programs vary by ±10% from run to run on a shared machine
    (stack positions: interleave.py), more than a 1-2% target: a row is
    judged by the same-round ratios to its baseline. PASS when their median
    meets the target, MISS when even their lower quartile misses it, and
    SPREAD (reported, not failed) when the target lies within the run's
    spread: more rounds would tell."""
    base = by_name[baseline]["runs"]
    for row in rows:
        if not row["target"]:
            continue
        ratios = [a["cpu_s"] / b["cpu_s"]
                  for a, b in zip(by_name[row["name"]]["runs"], base)]
        q1, med, q3 = quartiles(ratios)
        row["paired_ratio"], row["paired_quartiles"] = med, [q1, q3]
        row["verdict"] = ("PASS" if med <= row["target"] else
                          "MISS" if q1 > row["target"] else "SPREAD")
        row["label"] += (f" (same-round ratios {med:.3f}×, quartiles "
                         f"{q1:.3f}-{q3:.3f})")


def judge_counted(rows, counts, baseline, tool, size_note):
    """Instruction counts (count.py) beside the times: each row gets its
    count, its ratio to the baseline's and to its SafeStack peer's, and a
    target is judged by the count's ratio (deterministic), not the times'
    (issue 48 part 4). The times' verdict stays in the label."""
    by_name = {v["name"]: v["instructions"] for v in counts["variants"]}
    if baseline not in by_name:
        return
    for row in rows:
        n = by_name.get(row["name"])
        if n is None:
            continue
        row["instructions"] = n
        row["instructions_ratio"] = n / by_name[baseline]
        peer = row.get("safestack")
        row["instructions_safestack_ratio"] = (
            n / by_name[peer] if peer in by_name else None)
        if row["target"]:
            time_verdict = row["verdict"]
            row["time_verdict"] = time_verdict
            row["verdict"] = verdict(row["instructions_ratio"], row["target"],
                                     row["instructions_safestack_ratio"],
                                     row.get("safestack_target"))
            row["label"] += f" (by time: {time_verdict})"
    return (f"; instructions counted by {tool}{size_note}, one run per "
            "variant: targets are judged by their ratio")


def timed_section(raw, ident, title, variants, baseline, note, counts=None,
                  size_note=""):
    by_name = {v["name"]: v for v in raw["variants"]}
    cpu = {n: v["cpu_s"] for n, v in by_name.items()}
    wall = {n: v["wall_s"] for n, v in by_name.items()}
    extra = lambda name: {"wall_s": wall[name],
                          "wall_ratio": wall[name] / wall[baseline],
                          "runs": by_name[name]["runs"],
                          "command": by_name[name]["command"]}
    rows = rows_for(variants, cpu, baseline, extra)
    judge_paired(rows, by_name, baseline)
    if counts:
        note += judge_counted(rows, counts, baseline, counts["tool"],
                              size_note) or ""
    return {"id": ident, "title": title, "unit": "s CPU", "baseline": baseline,
            "note": note + f"; median of {raw['rounds']} interleaved rounds, "
                           "ratio of CPU time (user + system); a target is "
                           "judged by the median of the same-round ratios "
                           "(SPREAD: the target lies within their quartiles, "
                           "not failed)",
            "rows": rows}


def planned_against_bump(section, raw, planned):
    """The plan: static row's verdict against the bump's (limit0-lto)."""
    runs = {v["name"]: v["runs"] for v in raw["variants"]}
    if "limit0-planned" not in runs or "limit0-lto" not in runs:
        return
    ratio = statistics.median(p["cpu_s"] / b["cpu_s"]
                   for p, b in zip(runs["limit0-planned"], runs["limit0-lto"]))
    row = next(r for r in section["rows"] if r["name"] == "limit0-planned")
    row["bump_ratio"] = ratio
    if planned["frames"] == 0:
        identical = planned.get("text_identical")
        row["bump_target"] = "code identical to the bump's"
        row["verdict"] = "PASS" if identical else "MISS"
        row["label"] += (f" ({ratio:.3f}× the bump, same-round ratios; "
                         f"nothing planned, .text "
                         f"{'identical to' if identical else 'DIFFERENT from'}"
                         f" the bump's)")
    else:
        row["bump_target"] = f"≤ {PLANNED_BUMP_TARGET:.2f}× the bump"
        row["verdict"] = "PASS" if ratio <= PLANNED_BUMP_TARGET else "MISS"
        row["label"] += f" ({ratio:.3f}× the bump, same-round ratios)"


def tool_version(clang):
    try:
        out = subprocess.run([clang, "--version"], capture_output=True,
                             text=True, check=True).stdout
        return out.splitlines()[0]
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def fmt_value(row, unit):
    if unit == "ns CPU/call":
        return f"{row['value']:.2f} ns"
    return f"{row['value']:.2f} s ({row['wall_s']:.2f} s wall)"


def markdown(results):
    meta = results["meta"]
    lines = [f"`{meta['command']}` ({meta['date']}, {meta['cpus']} × "
             f"{meta['cpu']}, {meta['clang']}, load average "
             f"{meta['load_before']} before / {meta['load_after']} after, "
             f"{meta['seconds']} s in all)", "",
             "| benchmark | variant | CPU time | × stack / plain | "
             "× SafeStack | instructions (× plain, × SafeStack) | target | |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    for s in results["sections"]:
        first = True
        for row in s["rows"]:
            targets = []
            if row["target"]:
                targets.append(f"≤ {row['target']:.2f}×")
            if row.get("safestack_target"):
                targets.append(f"≤ {row['safestack_target']:.2f}× SafeStack")
            target = "; ".join(targets)
            peer = (f"{row['safestack_ratio']:.3f}×"
                    if row.get("safestack_ratio") else "")
            if row.get("exe_target"):
                targets.append(f"≤ {row['exe_target']:.2f}× the executable's")
            if row.get("bump_target"):
                targets.append(row["bump_target"])
            instr = ""
            if row.get("instructions"):
                instr = (f"{row['instructions']:,} "
                         f"({row['instructions_ratio']:.4f}×")
                if row.get("instructions_safestack_ratio"):
                    instr += f", {row['instructions_safestack_ratio']:.4f}×"
                instr += ")"
            lines.append(
                f"| {s['title'] if first else ''} | {row['label']} | "
                f"{fmt_value(row, s['unit'])} | {row['ratio']:.3f}× | "
                f"{peer} | {instr} | {target} | {row['verdict'] or ''} |")
            first = False
    lines += ["", "× stack / plain: ratio to the benchmark's baseline (the "
              "stack frame; plain clang -O2); × SafeStack: ratio of a "
              "ScopeAlloc variant to the SafeStack variant of the same run.",
              ""]
    for s in results["sections"]:
        lines.append(f"- {s['title']}: {s['note']}.")
    def rows_with(v):
        return [f"{s['title']}: {row['label']}" for s in results["sections"]
                for row in s["rows"] if row["verdict"] == v]
    missed, spread = rows_with("MISS"), rows_with("SPREAD")
    verdict = ("PASS (every target met" if not missed
               else "MISS (" + "; ".join(missed))
    if spread:
        verdict += ("; within the run's spread, not judged: "
                    + "; ".join(spread))
    lines += ["", "targets: " + verdict + ")"]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dir", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--command", required=True)
    p.add_argument("--load-before", default="?")
    p.add_argument("--load-after", default="?")
    p.add_argument("--seconds", type=int, default=0)
    p.add_argument("--fast-path", type=int, default=0)
    p.add_argument("--speedtest-size", type=int, default=0)
    p.add_argument("--count-size", type=int, default=0)
    p.add_argument("--clang", default="clang")
    args = p.parse_args()

    sections = []
    micro = load(os.path.join(args.dir, "micro.json"))
    parts = sorted(glob.glob(os.path.join(args.dir, "micro-*.json")))
    if parts:
        micro = pool_paired([load(p) for p in parts])
    if micro:
        sections.append(micro_section(micro, args.fast_path))
    speedtest = load(os.path.join(args.dir, "speedtest.json"))
    if speedtest:
        note = f"speedtest1 --memdb --size {args.speedtest_size}, SQLite from Debian's sqlite3 source package"
        stats = load(os.path.join(args.dir, "speedtest-stats.json"))
        s = timed_section(speedtest, "speedtest", "SQLite speedtest1",
                          SPEEDTEST_VARIANTS, "plain", note,
                          load(os.path.join(args.dir, "speedtest-count.json")),
                          f" (--size {args.count_size})")
        if stats:
            s["workspace"] = stats
            s["note"] += (f"; workspace peak {stats['limit0']['peak_bytes']} "
                          f"bytes at limit 0 ({stats['limit0']['allocs']} "
                          f"allocations), {stats['default']['peak_bytes']} "
                          f"bytes at the default policy "
                          f"({stats['default']['allocs']} allocations)")
            if "planned" in stats:
                p = stats["planned"]
                s["note"] += (f"; plan: static planned {p['frames']} of "
                              f"{p['frames'] + p['kept']} demoted frames")
                planned_against_bump(s, speedtest, p)
        sections.append(s)
    compile_raw = load(os.path.join(args.dir, "compile.json"))
    if compile_raw:
        sections.append(timed_section(
            compile_raw, "compile", "compile sqlite3.c -O2", COMPILE_VARIANTS,
            "plain", "clang -c of the SQLite amalgamation, plugin loaded with "
            "-fpass-plugin and -fplugin",
            load(os.path.join(args.dir, "compile-count.json"))))
    re2 = load(os.path.join(args.dir, "re2.json"))
    if re2:
        note = ("re2's dfa_test (Debian's re2 source package, its own "
                "Makefile, CXXFLAGS=-O2)")
        stats = load(os.path.join(args.dir, "re2-stats.json"))
        if stats:
            note += (f"; workspace peak {stats['limit0']['peak_bytes']} bytes "
                     f"at limit 0 ({stats['limit0']['allocs']} allocations)")
        re2_counts = load(os.path.join(args.dir, "re2-count.json"))
        sections.append(timed_section(re2, "re2", "re2 dfa_test (C++)",
                                      RE2_VARIANTS, "plain", note, re2_counts))
        sections.append(timed_section(
            re2, "re2-static", "re2 dfa_test (C++), -static",
            RE2_STATIC_VARIANTS, "plain-static",
            note + "; linked with -static (the static runtime)", re2_counts))
    if not sections:
        raise SystemExit(f"report.py: no benchmark results in {args.dir}")

    results = {
        "meta": {
            "command": args.command,
            "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
            "cpus": os.cpu_count(), "cpu": cpu_model(),
            "clang": tool_version(args.clang),
            "load_before": args.load_before, "load_after": args.load_after,
            "seconds": args.seconds, "inline_fast_path": bool(args.fast_path),
        },
        "sections": sections,
    }
    results["verdict"] = ("MISS" if any(
        row["verdict"] == "MISS" for s in sections for row in s["rows"])
        else "PASS")
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)
    print(markdown(results))
    # run.sh draws the chart, then fails with this status.
    return 3 if results["verdict"] == "MISS" else 0


if __name__ == "__main__":
    raise SystemExit(main())
