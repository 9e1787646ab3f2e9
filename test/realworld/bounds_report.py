#!/usr/bin/env python3
"""Checks and comparison table of test/realworld/bounds.sh.

    bounds_report.py --results DIR --work DIR [--src DIR] --doc docs/bounds-comparison.md [--update-doc]

Reads what bounds.sh left in DIR: per program, build and image the
scopealloc-bound JSON (<program>.<build>.<image>.json, .own.json with
every assumption 0, .facts as --dump-facts prints them), the
gcc_callgraph_bound.py JSON (builds gcc12: GCC's own graph, gcc12t: with
scopealloc-bound's indirect-call targets) and the measured peaks
(<program>.<build>.peaks, one line per process, bounds/peaks.c). Prints
the checks, writes <work>/bounds-comparison.md and compares it with the
doc: the same text, each number within 10% (or 64 bytes) of the doc's
(compilers, Debian point releases and ScopeAlloc's own changes move frame
sizes a little); --update-doc rewrites the doc instead. Exits 1 when a
check fails.
"""
import argparse
import difflib
import glob
import json
import os
import re
import sys

ZLIB = ["minigzip", "example", "infcover", "minigzip64", "example64"]
IMAGES = {"zlib": ZLIB, "bzip2": ["bzip2"], "lua": ["lua"], "sqlite": ["sqlite3"]}
BOUNDED = ["zlib", "bzip2"]
PACKAGES = {"zlib": "zlib", "bzip2": "bzip2", "lua": "lua5.4", "sqlite": "sqlite3"}
# Recursion the tools must name: (program, tool, functions one cycle must
# hold together). The interpreter's re-entry (Lua calling C calling Lua),
# the Lua parser's expression recursion, the GC's marking, SQLite's
# statement compiler (a SELECT within an expression within a SELECT),
# LIKE/GLOB matching.
CYCLES = [
    ("lua", "default", ["luaV_execute", "luaD_call", "luaD_precall", "subexpr"]),
    ("lua", "default", ["reallymarkobject"]),
    ("lua", "limit0", ["luaV_execute", "luaD_call", "subexpr"]),
    ("lua", "gcc12", ["luaV_execute", "luaD_call"]),
    ("lua", "gcc12", ["reallymarkobject"]),
    ("sqlite", "default", ["sqlite3Select", "sqlite3ExprCodeTarget", "yy_reduce", "walkExpr"]),
    ("sqlite", "default", ["patternCompare"]),
    ("sqlite", "limit0", ["sqlite3Select", "sqlite3ExprCodeTarget", "yy_reduce"]),
    ("sqlite", "gcc12", ["sqlite3Select", "sqlite3ExprCodeTarget"]),
    ("sqlite", "gcc12", ["patternCompare"]),
]
CLONE = re.compile(r"\.(?:part|isra|constprop|cold|lto_priv|localalias)(?:\.\d+)?$")

failures = []


def check(ok, what):
    print("  %s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        failures.append(what)
    return ok


def base(name):
    while True:
        b = CLONE.sub("", name)
        if b == name:
            return name
        name = b


def n(x):
    return "{:,}".format(x)


def signed(x):
    return ("+" if x > 0 else "−" if x < 0 else "±") + n(abs(x))


def load(results, name):
    path = os.path.join(results, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def main_entry(doc):
    if not doc:
        return None
    for e in doc["entries"]:
        if e["function"] == "main":
            return e
    return None


def read_facts(path):
    """{function: {"frame": bytes, "pool": bytes, "calls": set}} from --dump-facts."""
    out, cur = {}, None
    if not os.path.exists(path):
        return out
    for line in open(path):
        m = re.match(r"^function (\S+) at ", line)
        if m:
            cur = out.setdefault(m.group(1), {"frame": None, "pool": 0, "calls": set()})
            continue
        if cur is None:
            continue
        m = re.match(r"^  frame: (\d+)", line)
        if m:
            cur["frame"] = int(m.group(1))
        m = re.match(r"^  call (\S+)", line)
        if m:
            cur["calls"].add(m.group(1))
        m = re.match(r"^  pool (\S+): (\d+) bytes", line)
        if m:
            cur["pool"] += int(m.group(2))
    return out


def read_peaks(results, work):
    """{(program, build, image): [(stack, workspace), ...]}"""
    out = {}
    for path in glob.glob(os.path.join(results, "*.peaks")):
        for line in open(path):
            w = line.split()
            if len(w) < 4 or not w[0].startswith(work + "/"):
                continue
            parts = os.path.relpath(w[0], work).split("/")
            if len(parts) != 3:
                continue
            stack = int(w[3]) if w[2] == "stack" else None  # stack-overflow: None
            pools = {w[i + 1]: int(w[i + 2]) for i in range(4, len(w) - 2, 3) if w[i] == "pool"}
            out.setdefault(tuple(parts), []).append((stack, pools.get("workspace")))
    return out


def stack_cell(e):
    if e is None:
        return "—"
    s = e["stack"]
    if s["bounded"]:
        return n(s["bytes"])
    kinds = {}
    for c in e["causes"]:
        kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
    names = {"recursion": "cycles", "indirect-call": "indirect calls",
             "no-facts": "unknown callee(s)",
             "dynamic-stack": "dynamic allocas", "dynamic-pool": "dynamic pool allocations",
             "no-frame-size": "no frame size"}
    why = ", ".join("%d %s" % (kinds[k], names.get(k, k)) for k in sorted(kinds, key=lambda k: -kinds[k]))
    return "unbounded (%s; known part %s)" % (why, n(s["bytes"]))


def pool_cell(e):
    if e is None:
        return "—"
    p = e.get("pools", {}).get("workspace")
    if not p:
        return "0"
    return n(p["bytes"]) if p["bounded"] else "unbounded (known part %s)" % n(p["bytes"])


def sa_cell(e):
    return "%s / %s" % (stack_cell(e), pool_cell(e))


def cycles(e):
    return [c["cycle"] for c in (e or {}).get("causes", []) if c["kind"] == "recursion"]


def holds(cycle, names):
    bases = {base(x) for x in cycle}
    return all(x in bases for x in names)


class Data:
    def __init__(self, results, work):
        self.results, self.work = results, work
        self.peaks = read_peaks(results, work)

    def entry(self, program, build, image, own=False):
        return main_entry(load(self.results, "%s.%s.%s%s.json" % (program, build, image,
                                                                    ".own" if own else "")))

    def gcc_graph(self, program, image):
        """GCC's frames and callees by base name (clones merged)."""
        d = load(self.results, "%s.gcc12.%s.json" % (program, image)) or {}
        frames, calls = {}, {}
        for name, b in d.get("frames", {}).items():
            frames[base(name)] = max(frames.get(base(name), 0), b)
        for name, cs in d.get("calls", {}).items():
            calls.setdefault(base(name), set()).update(base(c) for c in cs)
        return frames, calls

    def facts(self, program, build, image):
        return read_facts(os.path.join(self.results, "%s.%s.%s.facts" % (program, build, image)))

    def measured(self, program, build, image):
        runs = self.peaks.get((program, build, image), [])
        stacks = [s for s, _ in runs]
        pools = [p for _, p in runs if p is not None]
        return {"runs": len(runs),
                "stack": None if None in stacks or not stacks else max(stacks),
                "overflow": None in stacks,
                "pool": max(pools) if pools else None}


def run_checks(d):
    print("checks:")
    # The measurement itself, on a program whose worst case it must see.
    # Own frames: the calibration program calls only the runtime, whose
    # real use (a first mmap) is far below its assumed size.
    e = d.entry("calibrate", "default", "calibrate", own=True)
    m = d.peaks.get(("calibrate", "default", "calibrate"), [])
    if check(e is not None and e["stack"]["bounded"] and len(m) == 1,
             "calibration program: bounded, measured once"):
        b, pb = e["stack"]["bytes"], e["pools"]["workspace"]["bytes"]
        ms, mp = m[0]
        check(b - 256 <= ms <= b, "calibration: measured stack %s within 256 bytes below its bound %s"
              % (n(ms), n(b)))
        check(mp is not None and pb - 16 <= mp <= pb,
              "calibration: measured workspace peak %s within 16 bytes below its bound %s"
              % (n(mp or 0), n(pb)))
    # zlib and bzip2: bounded, and every measured peak within its bound.
    for program in BOUNDED:
        for image in IMAGES[program]:
            for build in ("default", "limit0"):
                e = d.entry(program, build, image)
                what = "%s %s [%s]" % (program, image, build)
                if not check(e is not None, what + ": scopealloc-bound ran"):
                    continue
                pools = e.get("pools", {})
                check(e["stack"]["bounded"] and all(p["bounded"] for p in pools.values())
                      and not e["causes"],
                      what + ": bounded (stack %s, workspace %s)%s"
                      % (n(e["stack"]["bytes"]), pool_cell(e),
                         "" if not e["causes"] else "; causes: " +
                         "; ".join(c["text"] for c in e["causes"][:5])))
                m = d.measured(program, build, image)
                if not check(m["runs"] > 0 and not m["overflow"],
                             what + ": measured in %d process(es)" % m["runs"]):
                    continue
                check(m["stack"] <= e["stack"]["bytes"],
                      what + ": measured stack %s <= bound %s" % (n(m["stack"]), n(e["stack"]["bytes"])))
                pb = pools.get("workspace", {}).get("bytes", 0)
                check((m["pool"] or 0) <= pb,
                      what + ": measured workspace %s <= bound %s" % (n(m["pool"] or 0), n(pb)))
            # The GCC script: on GCC's graph only indirect calls are unknown;
            # with the targets, bounded and above the GCC build's peak.
            g = d.entry(program, "gcc12", image)
            gt = d.entry(program, "gcc12t", image)
            what = "%s %s [gcc12]" % (program, image)
            if check(g is not None and gt is not None, what + ": gcc_callgraph_bound.py ran"):
                kinds = {c["kind"] for c in g["causes"]}
                check(kinds <= {"indirect-call"},
                      what + ": on GCC's own graph, unknown only through indirect calls (%s)"
                      % ", ".join(sorted(kinds)))
                check(gt["stack"]["bounded"], what + ": bounded with the indirect-call targets (%s)"
                      % n(gt["stack"]["bytes"]))
                m = d.measured(program, "gcc12", image)
                if check(m["runs"] > 0 and not m["overflow"], what + ": measured in %d process(es)"
                         % m["runs"]):
                    check(m["stack"] <= gt["stack"]["bytes"],
                          what + ": measured stack %s <= GCC bound with targets %s"
                          % (n(m["stack"]), n(gt["stack"]["bytes"])))
    # Both tools use analysis/assumptions.conf's sizes only (scopealloc-bound's
    # built-in table does not show through).
    for program, images in IMAGES.items():
        for image in images:
            for build in ("default", "limit0"):
                txt = os.path.join(d.results, "%s.%s.%s.txt" % (program, build, image))
                if not os.path.exists(txt):
                    continue
                builtin = sorted({l.split()[2] for l in open(txt) if "[assumed: built-in]" in l})
                check(not builtin, "%s %s [%s]: every assumed size on the chains from "
                      "analysis/assumptions.conf%s" % (program, image, build, "" if not builtin else
                                              " (built-in: %s)" % ", ".join(builtin)))
    # Lua and SQLite: unbounded, with the recursion named.
    for program in ("lua", "sqlite"):
        image = IMAGES[program][0]
        for build in ("default", "limit0", "gcc12"):
            e = d.entry(program, build, image)
            what = "%s [%s]" % (program, build)
            if check(e is not None, what + ": bound computed"):
                check(not e["stack"]["bounded"] and cycles(e),
                      what + ": unbounded, %d recursion cycle(s) named" % len(cycles(e)))
    for program, build, names in CYCLES:
        e = d.entry(program, build, IMAGES[program][0])
        check(any(holds(c, names) for c in cycles(e)),
              "%s [%s]: a cycle named with %s" % (program, build, ", ".join(names)))


# ---------------------------------------------------------------- the table

def version(src, program):
    dsc = glob.glob(os.path.join(src, PACKAGES[program], "*.dsc"))
    if not dsc:
        return "?"
    return os.path.basename(dsc[0])[len(PACKAGES[program]) + 1:-4]


def chain_rows(d, program, image):
    """Per function on the critical chains of the own frames (ScopeAlloc at
    both policies, GCC with targets): each toolchain's view of it."""
    fd = d.facts(program, "default", image)
    fl = d.facts(program, "limit0", image)
    gframes, gcalls = d.gcc_graph(program, image)
    order = []
    for build in ("default", "limit0", "gcc12t"):
        e = d.entry(program, build, image, own=True)
        for st in (e or {}).get("stack", {}).get("chain", []):
            name = base(st["function"])
            if name not in order and not st.get("assumed"):
                order.append(name)
        for st in (e or {}).get("pools", {}).get("workspace", {}).get("chain", []):
            name = base(st["function"])
            if st["bytes"] and name not in order:
                order.append(name)
    rows = []
    for name in order:
        rows.append((name, fd.get(name), fl.get(name), gframes.get(name),
                     explain_row(name, fd, fl, gframes, gcalls)))
    return rows


def explain_row(name, fd, fl, gframes, gcalls):
    """Why this function's share differs between the toolchains."""
    a, b, g = fd.get(name), fl.get(name), gframes.get(name)
    notes = []
    if a is None:
        return "clang inlined it into its callers" if g is not None else ""
    if g is None:
        notes.append("GCC inlined it into its callers")
    if b and a["pool"] < b["pool"]:
        notes.append("limit 0 moves %s more bytes to the pool" % n(b["pool"] - a["pool"]))
    if g is not None and a["frame"] is not None:
        clang = a["frame"] + 8
        if a["pool"] >= 1024 and g >= clang + a["pool"] // 2:
            notes.append("at the default policy its %s bytes of buffers are in the pool; GCC keeps "
                         "them on the stack" % n(a["pool"]))
        elif abs(g - clang) > 64:
            mine = {base(c) for c in a["calls"]}
            theirs = gcalls.get(name, set())
            by_clang = sorted(x for x in theirs - mine if gframes.get(x, 0) >= 48
                              and (x not in fd or x not in mine))
            by_gcc = sorted(x for x in mine - theirs if x in fd and fd[x]["frame"]
                            and fd[x]["frame"] + 8 >= 48 and x not in gframes)
            why = []
            if by_clang:
                why.append("clang inlined %s (GCC: %s)" % (", ".join("`%s`" % x for x in by_clang),
                                                          ", ".join(n(gframes[x]) for x in by_clang)))
            if by_gcc:
                why.append("GCC inlined %s (clang: %s)" % (", ".join("`%s`" % x for x in by_gcc),
                                                          ", ".join(n(fd[x]["frame"] + 8)
                                                                    for x in by_gcc)))
            notes.append("frames differ (%s)" % ("; ".join(why) if why else
                                                   "code generation: spills, saved registers, "
                                                   "the layout of the locals"))
    return "; ".join(notes)


def diff_sentence(d, program, image):
    """The differences of the totals, in words."""
    out = []
    ed, el = d.entry(program, "default", image, own=True), d.entry(program, "limit0", image, own=True)
    gt = d.entry(program, "gcc12t", image, own=True)
    sd, sl = ed["stack"]["bytes"], el["stack"]["bytes"]
    pd = ed.get("pools", {}).get("workspace", {}).get("bytes", 0)
    pl = el.get("pools", {}).get("workspace", {}).get("bytes", 0)
    gs = gt["stack"]["bytes"] if gt else 0
    out.append("Default → limit 0: the own frames' stack goes from %s to %s bytes (%s), the "
               "workspace from %s to %s (%s): what stays on the stack at the default policy "
               "(buffers of 1,024 bytes or less, spilled locals whose address is taken) moves to "
               "the pool."
               % (n(sd), n(sl), signed(sl - sd), n(pd), n(pl), signed(pl - pd)))
    out.append("Own frames, stack + workspace: ScopeAlloc default %s + %s = %s, limit 0 %s + %s = "
               "%s; GCC with the same indirect-call targets %s on the stack. Each function on one "
               "of the three critical chains:" % (n(sd), n(pd), n(sd + pd), n(sl), n(pl), n(sl + pl),
                                                  n(gs)))
    return out


def chain_text(e):
    return " → ".join(base(st["function"]) + (" [%s]" % n(st["frame"]) if st.get("assumed") else "")
                      for st in e["stack"]["chain"])


def cycle_summary(cs, limit=6):
    if not cs:
        return "none"
    cs = sorted(cs, key=lambda c: (-len(c), c))
    big = [c for c in cs if len(c) > 1]
    self_ = sorted(c[0] for c in cs if len(c) == 1)
    parts = []
    for c in big[:3]:
        parts.append("one of %s functions" % n(len(c)) if len(c) > limit else
                     " → ".join(base(x) for x in c + [c[0]]))
    if len(big) > 3:
        parts.append("%d more of 2-%d functions" % (len(big) - 3, max(len(c) for c in big[3:])))
    if self_:
        parts.append("%d self-recursive: %s" % (len(self_), ", ".join(base(x) for x in self_[:8])
                                                + (", ..." if len(self_) > 8 else "")))
    return "; ".join(parts)


def table(d, src, clang_major):
    L = []
    w = L.append
    w("# Whole-program stack bounds: ScopeAlloc and GCC 12 on real programs")
    w("")
    w("<!-- Generated by test/realworld/bounds.sh (ctest: realworld-bounds) through")
    w("     test/realworld/bounds_report.py; regenerate with")
    w("     `bash test/realworld/bounds.sh --update-doc`. -->")
    w("")
    w("Debian 12 source packages, x86-64, `-O2`: zlib %s, bzip2 %s, Lua %s, SQLite %s; clang %s "
      "(through `scopealloc-clang`) and GCC 12.2. Worst-case stack of the entry `main` in bytes, "
      "return addresses included:" % (tuple(version(src, p) for p in ("zlib", "bzip2", "lua", "sqlite"))
                                      + (clang_major,)))
    w("")
    w("- **ScopeAlloc**: `scopealloc-bound` on the linked image, built at the default policy "
      "(buffers over 1,024 bytes go to the `workspace` pool) and at limit 0 "
      "(`-mllvm -scope-alloc-max-stack-alloca=0`: every buffer still in memory after optimisation "
      "goes to the pool); *machine stack / workspace pool*.")
    w("- **GCC 12**: `utils/gcc_callgraph_bound.py` on the `.ci` and `.su` files of "
      "`gcc-12 -O2 -fstack-usage -fcallgraph-info=su`; *GCC's graph* as GCC records it, and "
      "*+ targets* with each indirect call resolved as `scopealloc-bound` resolves it (by type "
      "among the address-taken functions of the ScopeAlloc build, "
      "`test/realworld/bounds/indirect_targets.py`).")
    w("- Calls into glibc and ScopeAlloc's shared runtime take the sizes assumed in "
      "`analysis/assumptions.conf`, the same for both tools; *own frames* counts them 0.")
    w("- zlib's test programs and bzip2 are linked with the static library (`libz.a`, "
      "`libbz2.a`): the tools read one image.")
    w("")
    w("## Bounds")
    w("")
    w("| program | ScopeAlloc default | ScopeAlloc limit 0 | GCC 12, GCC's graph | GCC 12 + targets |")
    w("|---|---|---|---|---|")
    rows = [("zlib", i) for i in ZLIB[:3]] + [("bzip2", "bzip2"), ("lua", "lua"), ("sqlite", "sqlite3")]
    for program, image in rows:
        w("| %s `%s` | %s | %s | %s | %s |" % (
            program, image, sa_cell(d.entry(program, "default", image)),
            sa_cell(d.entry(program, "limit0", image)), stack_cell(d.entry(program, "gcc12", image)),
            stack_cell(d.entry(program, "gcc12t", image))))
    w("")
    w("Own frames (libc and runtime counted 0):")
    w("")
    w("| program | ScopeAlloc default | ScopeAlloc limit 0 | GCC 12, GCC's graph | GCC 12 + targets |")
    w("|---|---|---|---|---|")
    for program, image in rows[:4]:
        w("| %s `%s` | %s | %s | %s | %s |" % (
            program, image, sa_cell(d.entry(program, "default", image, True)),
            sa_cell(d.entry(program, "limit0", image, True)),
            stack_cell(d.entry(program, "gcc12", image, True)),
            stack_cell(d.entry(program, "gcc12t", image, True))))
    w("")
    w("## Measured on the programs' own tests")
    w("")
    w("Largest over the processes of the tests (zlib: `make teststatic test64`, `infcover`, "
      "`minigzip` round trips at 5 levels; bzip2: `make test`, round trips at -1/-9 with -t, -d, "
      "-ds; Lua: `test/realworld/lua/*.lua`; SQLite: `test/realworld/sqlite/*.sql`), of the main "
      "thread: the machine stack below `main` by a painted stack (`test/realworld/bounds/peaks.c`, "
      "preloaded; `LD_BIND_NOW=1`, see below), the workspace peak from the runtime. For zlib and "
      "bzip2, `realworld-bounds` checks each against its bound above.")
    w("")
    w("| program | processes | ScopeAlloc default | ScopeAlloc limit 0 | GCC 12 (stack) |")
    w("|---|---|---|---|---|")
    for program, image in rows:
        md, ml, mg = (d.measured(program, b, image) for b in ("default", "limit0", "gcc12"))

        def cell(m, pool=True):
            if not m["runs"]:
                return "—"
            s = "over the painted 4 MiB" if m["overflow"] else n(m["stack"])
            return s + (" / %s" % n(m["pool"] or 0) if pool else "")
        w("| %s `%s` | %d | %s | %s | %s |" % (program, image, md["runs"], cell(md), cell(ml),
                                              cell(mg, False)))
    w("")
    w("## Recursion named")
    w("")
    w("| program | tool | cycles | which |")
    w("|---|---|---|---|")
    for program in ("lua", "sqlite"):
        image = IMAGES[program][0]
        for build, label in (("default", "ScopeAlloc (both policies)"), ("gcc12", "GCC 12, GCC's graph"),
                             ("gcc12t", "GCC 12 + targets")):
            cs = cycles(d.entry(program, build, image))
            w("| %s | %s | %d | %s |" % (program, label, len(cs), cycle_summary(cs)))
    w("")
    w("## Differences explained")
    w("")
    ends = {}
    for program, image in rows[:4]:
        for build in ("default", "limit0", "gcc12t"):
            e = d.entry(program, build, image)
            last = e["stack"]["chain"][-1] if e and e["stack"]["chain"] else None
            if last and last.get("assumed"):
                ends.setdefault("`%s` (%s)" % (base(last["function"]), n(last["frame"])), []).append(
                    "%s `%s` %s" % (program, image, {"default": "default", "limit0": "limit 0",
                                                      "gcc12t": "GCC"}[build]))
    w("**Assumed libc.** The bounded chains end in a call into glibc or the runtime, the one with "
      "the largest assumed size on a deep enough path: %s. The first table is therefore the own "
      "frames of the chain to that call plus its assumed size; the own-frames table compares the "
      "compilers. The largest, formatted output to `stderr`, is an error message in each of these "
      "programs: the tests never reach it."
      % "; ".join("%s in %s" % (k, ", ".join(v)) for k, v in sorted(ends.items())))
    w("")
    resolved, shown = [], set()
    for program, image in (("zlib", "minigzip"), ("zlib", "infcover"), ("bzip2", "bzip2")):
        path = os.path.join(d.results, "%s.targets.%s" % (program, image))
        lines = [l.split() for l in open(path)] if os.path.exists(path) else []
        lines = [l for l in lines if l and l[0] not in shown]  # infcover: libz's again
        shown.update(l[0] for l in lines)
        resolved.append("%s `%s`%s: %s" % (program, image, " (besides those)" if image == "infcover"
                                            else "", "; ".join(
            "`%s` → %s" % (l[0], ", ".join("`%s`" % t for t in l[1:])) for l in lines)))
    w("**Indirect calls.** GCC's call graph records an indirect call without its type or "
      "targets (one `__indirect_call` node): every program is unbounded on GCC's graph. "
      "`scopealloc-bound` resolves each by its IR type among the address-taken functions: "
      "%s (zlib's allocator hooks, deflate's per-level function table, inflateBack's "
      "input and output callbacks; bzip2's allocator hooks). *+ targets* gives GCC the same targets, so that the remaining differences are "
      "the compilers' and ScopeAlloc's." % ". ".join(resolved))
    w("")
    w("**Recursion.** Lua and SQLite stay unbounded on every side: the named cycles are real "
      "(a Lua script can nest calls until `LUAI_MAXCCALLS`; SQLite's statement compiler recurses "
      "with the nesting of the SQL). Through indirect calls resolved by type, the cycles merge "
      "into one large strongly connected component (every `lua_CFunction` has the type "
      "`i32 (ptr)`; SQLite's virtual tables and callbacks likewise); GCC's own graph, blind to "
      "indirect calls, sees smaller cycles and more of them (Lua: not the parser's, which is "
      "reached only through `luaD_pcall`'s function pointer). SQLite "
      "also has indirect calls no address-taken function matches (its table of system calls "
      "holds libc's functions, which have no facts): they stay unknown in both.")
    folded = sorted({"%s `%s`" % (program, c["function"]) for program in IMAGES
                     for image in IMAGES[program] for build in ("gcc12", "gcc12t")
                     for c in (d.entry(program, build, image) or {}).get("causes", [])
                     if c["kind"] == "no-facts"})
    if folded:
        w("")
        w("**Unknown callees on the GCC side.** %s: a local function GCC's graph calls but does "
          "not define (GCC folded it into an identical function, `-fipa-icf`, and the graph keeps "
          "the old name); the script names it instead of guessing." % ", ".join(folded))
    w("")
    for program, image in [("zlib", "minigzip"), ("zlib", "infcover"), ("zlib", "example"),
                           ("bzip2", "bzip2")]:
        w("### %s `%s`" % (program, image))
        w("")
        for s in diff_sentence(d, program, image):
            w(s)
            w("")
        for build, label in (("default", "ScopeAlloc default"), ("limit0", "ScopeAlloc limit 0"),
                             ("gcc12t", "GCC 12 + targets")):
            e = d.entry(program, build, image, own=True)
            w("- %s, own frames: %s" % (label, chain_text(e)))
        w("")
        w("| function | clang frame / pool, default | clang frame / pool, limit 0 | GCC frame | why they differ |")
        w("|---|---|---|---|---|")
        for name, a, b, g, why in chain_rows(d, program, image):
            def fp(x):
                if x is None or x["frame"] is None:
                    return "—"
                return "%s / %s" % (n(x["frame"] + 8), n(x["pool"]))
            w("| `%s` | %s | %s | %s | %s |" % (name, fp(a), fp(b), "—" if g is None else n(g), why))
        w("")
    w("Frames: `.stack_sizes` plus the 8-byte return address (clang), GCC's `.su` (which includes "
      "it); pool: the bytes the function takes from the workspace per call. Leaf functions add "
      "the 128-byte red zone in both tools' chains.")
    w("")
    w("**Measurement.** `peaks.c` interposes `__libc_start_main`, paints 4 MiB below the stack "
      "pointer `main` is called with, and after `main` (or in `exit`, when the program ends there) "
      "finds the deepest overwritten word. The programs run with `LD_BIND_NOW=1`: lazily bound, "
      "the first call through each PLT slot runs the dynamic linker's resolver, which saves the "
      "register state below the caller (about 3.2 KiB with AVX-512's XSAVE area on this machine) "
      "and which neither tool counts. A calibration program whose worst case is its only path is "
      "measured within 256 bytes of its bound first. The measured peaks are far below the bounds "
      "because the tests never take the chains the bounds end in (an error message on `stderr`, "
      "a pool to grow), and glibc's real use is below its assumed sizes on the paths taken.")
    w("")
    return "\n".join(L)


# ------------------------------------------------------------ doc compare

NUM = re.compile(r"\d[\d,]*")


def same_within(a, b):
    """The texts equal but for numbers within 10% (or 64) of each other."""
    ta, tb = NUM.split(a), NUM.split(b)
    na = [int(x.replace(",", "")) for x in NUM.findall(a)]
    nb = [int(x.replace(",", "")) for x in NUM.findall(b)]
    if ta != tb or len(na) != len(nb):
        return False
    return all(abs(x - y) <= max(64, 0.1 * max(x, y)) for x, y in zip(na, nb))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--results", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--src", help="the downloaded sources (default: <work>/src)")
    p.add_argument("--doc", required=True)
    p.add_argument("--update-doc", action="store_true")
    p.add_argument("--clang-major", required=True,
                   help="the major version of the clang the programs were built with")
    a = p.parse_args()
    d = Data(os.path.abspath(a.results), os.path.abspath(a.work))
    run_checks(d)
    text = table(d, a.src or os.path.join(a.work, "src"), a.clang_major)
    out = os.path.join(a.work, "bounds-comparison.md")
    with open(out, "w") as f:
        f.write(text)
    print("comparison: %s" % out)
    if a.update_doc:
        with open(a.doc, "w") as f:
            f.write(text)
        print("  wrote %s" % a.doc)
    else:
        old = open(a.doc).read() if os.path.exists(a.doc) else ""
        doc_clang = re.search(r"; clang (\d+) \(through", old)
        if doc_clang and doc_clang.group(1) != a.clang_major:
            # The page is the primary LLVM's; another version's frames differ.
            print("  note: %s is of clang %s, this run's is clang %s: not compared"
                  % (a.doc, doc_clang.group(1), a.clang_major))
        elif old == text:
            check(True, "%s is up to date" % a.doc)
        else:
            close = same_within(old, text)
            diff = difflib.unified_diff(old.splitlines(), text.splitlines(), a.doc, out, lineterm="", n=0)
            print("\n".join("    " + l for l in list(diff)[:60]))
            check(close, "%s matches the figures of this run%s (bash test/realworld/bounds.sh "
                  "--update-doc regenerates it)" % (a.doc, " within 10%" if close else ""))
    print("bounds: %s" % ("FAIL: " + "; ".join(failures) if failures else "pass"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
