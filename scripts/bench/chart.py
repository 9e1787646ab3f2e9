#!/usr/bin/env python3
"""Draws the results of scripts/bench/run.sh as a PNG: one panel per
benchmark, one bar per variant giving its time relative to the baseline,
the target (if any) as a black tick, PASS green, MISS red, the SafeStack
peer purple, and each ScopeAlloc bar's ratio to SafeStack written beside it.

    chart.py results.json out.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {"baseline": "#9e9e9e", "peer": "#7b52ab", "PASS": "#2e7d32",
           "MISS": "#c62828", "SPREAD": "#f9a825", None: "#5c7fa3"}


def panel(ax, section):
    rows = section["rows"][::-1]  # first row at the top
    ys = range(len(rows))
    ratios = [r["ratio"] for r in rows]
    peers = {r.get("safestack") for r in rows}
    colours = [COLOURS["baseline"] if r["name"] == section["baseline"]
               else COLOURS["peer"] if r["name"] in peers
               else COLOURS[r["verdict"]] for r in rows]
    ax.barh(ys, ratios, color=colours, height=0.6)
    ax.set_yticks(list(ys), [r["label"] for r in rows])
    ax.axvline(1.0, color="#444444", linewidth=0.8)
    targets = [r["target"] or 0 for r in rows]
    hi = max(ratios + targets)
    lo = min(ratios)
    if hi < 1.2:  # ratios near 1: zoom in so that percent differences show
        left = min(0.97, lo - 0.01)
        # Room on the right for the labels (with the ratio to SafeStack).
        ax.set_xlim(left, hi + (hi - left) * 0.6)
    else:
        ax.set_xlim(0, hi * 1.3)
    unit = section["unit"]
    for y, r in zip(ys, rows):
        if r["target"]:
            ax.plot([r["target"]] * 2, [y - 0.4, y + 0.4], color="black",
                    linewidth=2)
        value = (f"{r['value']:.2f} ns" if unit.startswith("ns")
                 else f"{r['value']:.2f} s")
        peer = (f", {r['safestack_ratio']:.3f}× SafeStack"
                if r.get("safestack_ratio") else "")
        ax.text(r["ratio"], y, f"  {r['ratio']:.3f}×  ({value}{peer})",
                va="center", fontsize=8)
    ax.set_title(section["title"], fontsize=10, loc="left")
    ax.set_xlabel(f"CPU time relative to the {section['baseline']} variant",
                  fontsize=8)
    ax.tick_params(labelsize=8)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: chart.py results.json out.png")
    with open(sys.argv[1]) as f:
        results = json.load(f)
    sections = results["sections"]
    fig, axes = plt.subplots(len(sections), 1, squeeze=False,
                             figsize=(8, 1.2 + 1.3 * sum(len(s["rows"]) for s in sections) / 2.5))
    for ax, section in zip(axes[:, 0], sections):
        panel(ax, section)
    meta = results["meta"]
    fig.suptitle(f"ScopeAlloc benchmarks: {meta['command']}\n"
                 f"{meta['date']}, {meta['cpus']} × {meta['cpu']}, load "
                 f"{meta['load_before']} (black tick: target; purple: "
                 f"SafeStack, the peer)", fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
