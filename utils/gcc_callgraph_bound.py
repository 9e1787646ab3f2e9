#!/usr/bin/env python3
"""Worst-case stack per entry point from GCC's own call graph.

    gcc_callgraph_bound.py [options] FILE.ci...

Reads the call graphs GCC writes with -fcallgraph-info=su (one VCG file
per object, <object>.ci) and, as a cross-check, the .su files of
-fstack-usage beside them, links the graphs of the objects of one program
by symbol name, and sums the worst-case stack from each entry point (main
by default): the counterpart of `scopealloc-bound` for a GCC build, so that
the two can be compared (test/realworld/bounds.sh, docs/bounds-comparison.md).

What GCC's files give, and how it is counted:
  - A function's bytes are GCC's static stack usage, which on x86-64
    includes the return address (scopealloc-bound adds it as the call
    overhead instead). "dynamic,bounded" is GCC's bound of a frame with a
    dynamic part; "dynamic" (a VLA or alloca) has no bound.
  - GCC does not count the red zone: a leaf function (no calls) may use
    --red-zone bytes (default 128, as scopealloc-bound on x86-64) below
    the stack pointer without them; they are added to each leaf.
  - Calls are those left after inlining, tail calls included (a tail call
    reuses its caller's frame: counting both is safe, a little high).
  - A function titled "file:name" is local to its object; others are
    global and resolve calls by name from other objects. A name called but
    defined in none of the given objects is external: its size comes from
    --assume/--config ('assume <f> <bytes>', the format of scopealloc-bound
    --config: callees included, the return address into it excluded, which
    --call-overhead adds as scopealloc-bound does), else the bound is
    unknown ("no-facts").
  - GCC records an indirect call without its type or targets (one
    "__indirect_call" node): every indirect call leaves the bound unknown
    ("indirect-call"), named with its caller and number of call sites.
    With --indirect-targets FILE (lines '<caller> <target>...', e.g. from
    test/realworld/bounds/indirect_targets.py, which resolves them by type
    as scopealloc-bound does), a caller listed there calls those targets
    instead; a "?" target keeps the call unknown. Names match across GCC's
    clones (f.part.0, f.isra.0, f.constprop.0 are f).
  - A cycle of calls (recursion) is unbounded unless a depth is given
    ('recursion <f> <depth>' or --recursion-bound); named with its
    functions.
As scopealloc-bound, an unbounded result still reports its known part: the
worst path with unknown callees counted as 0 and each cycle once.

Output: text (default) or --json: {"schema": "gcc-callgraph-bound",
"version": 1, "entries": [{"function", "stack": {"bounded", "bytes",
"chain": [{"function", "bytes", "frame", "assumed"?, "repeat"?,
"source"?}]}, "causes": [{"kind", "function", "text", "cycle"?,
"detail"?}]}], "functions", "objects", "frames": {function: bytes},
"calls": {function: [callee]}} (frames and calls: every defined function
by name, same-named local functions merged, the largest frame).
"""

import argparse
import json
import os
import re
import sys

NODE = re.compile(r'^node:\s*\{\s*title:\s*"((?:[^"\\]|\\.)*)"\s*label:\s*"((?:[^"\\]|\\.)*)"(.*)\}\s*$')
EDGE = re.compile(r'^edge:\s*\{\s*sourcename:\s*"((?:[^"\\]|\\.)*)"\s*targetname:\s*"((?:[^"\\]|\\.)*)"(?:\s*label:\s*"((?:[^"\\]|\\.)*)")?')
SIZE = re.compile(r'^(\d+) bytes \(([a-z,]+)\)$')
INDIRECT = "__indirect_call"
CLONE = re.compile(r"\.(?:part|isra|constprop|cold|lto_priv|localalias)(?:\.\d+)?$")


def base_name(name):
    """f for GCC's clones f.part.0, f.isra.0, f.constprop.0.isra.0, ..."""
    while True:
        stripped = CLONE.sub("", name)
        if stripped == name:
            return name
        name = stripped


class Function:
    def __init__(self, key, name, obj):
        self.key = key          # unique: "<object>|<title>"
        self.name = name        # the symbol name (title without "file:")
        self.obj = obj
        self.defined = False
        self.local = False
        self.bytes = None       # GCC's stack usage, return address included
        self.qualifier = None   # static, dynamic, "dynamic,bounded"
        self.source = ""
        self.callees = []       # keys, resolved later; INDIRECT for indirect
        self.indirect_sites = 0
        self.indirect_resolved = 0
        self.assumed = None
        self.assumed_from = ""


def read_config(path, assumed, recursion, entries):
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            where = "%s:%d" % (path, number)
            if words[0] == "entry" and len(words) == 2:
                entries.append(words[1])
            elif words[0] in ("assume", "recursion") and len(words) == 3 and words[2].isdigit():
                if words[0] == "assume":
                    assumed[words[1]] = (int(words[2]), where)
                else:
                    recursion[words[1]] = int(words[2])
            else:
                sys.exit("%s: expected 'entry <f>', 'recursion <f> <depth>' or "
                         "'assume <f> <bytes>'" % where)


def unescape(s):
    return s.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")


def read_su(path):
    """{(file:line:col, name): (bytes, qualifier)} of one .su file."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3:
                continue
            where, name = parts[0].rsplit(":", 1)
            out[(where, name)] = (int(parts[1]), parts[2])
    return out


SU_CHECKED = [0]


def read_ci(path, functions, problems):
    """Adds the functions of one object's graph; returns their keys by title."""
    obj = os.path.basename(path)[:-3]
    su = read_su(path[:-3] + ".su")
    titles = {}
    edges = []
    with open(path, errors="replace") as f:
        for line in f:
            m = NODE.match(line)
            if m:
                title, label, rest = unescape(m.group(1)), unescape(m.group(2)), m.group(3)
                titles[title] = (label, "ellipse" in rest)
                continue
            m = EDGE.match(line)
            if m:
                edges.append((unescape(m.group(1)), unescape(m.group(2))))
    keys = {}
    for title, (label, ellipse) in titles.items():
        lines = label.split("\n")
        size = SIZE.match(lines[-1]) if len(lines) >= 3 else None
        if ellipse or not size:
            continue  # declared here, defined elsewhere (or the placeholder)
        local = ":" in title
        name = title.rsplit(":", 1)[1] if local else title
        fn = Function(obj + "|" + title, name, obj)
        fn.defined, fn.local = True, local
        fn.bytes, fn.qualifier = int(size.group(1)), size.group(2)
        fn.source = lines[1]
        # The .su line of the same function must agree (its name there is
        # the label's, without a clone's number).
        where = lines[1]
        check = su.get((where, lines[0]))
        SU_CHECKED[0] += bool(check)
        if su and check and check != (fn.bytes, fn.qualifier):
            problems.append("%s: %s: .ci says %d (%s), .su says %d (%s)"
                            % (path, title, fn.bytes, fn.qualifier, check[0], check[1]))
        functions[fn.key] = fn
        keys[title] = fn.key
    for source, target in edges:
        if source not in keys:
            problems.append("%s: a call from %s, which the graph does not define" % (path, source))
            continue
        fn = functions[keys[source]]
        if target == INDIRECT:
            fn.indirect_sites += 1
            continue
        # "|name": by name, later; "*name" is an assembler name
        # (__REDIRECT, e.g. fopen -> "*fopen64"), without the prefix.
        # "file:name": a local function the graph calls but does not
        # define (GCC folded it into an identical one, -fipa-icf).
        if target not in keys and ":" in target:
            missing = obj + "|" + target
            if missing not in functions:
                functions[missing] = Function(missing, target.rsplit(":", 1)[1], obj)
                functions[missing].local = True
            fn.callees.append(missing)
            continue
        fn.callees.append(keys.get(target, "|" + target.lstrip("*")))
    return keys


def resolve(functions):
    """Calls by name go to the global definition of that name."""
    globals_ = {}
    for fn in list(functions.values()):
        if fn.defined and not fn.local:
            globals_.setdefault(fn.name, []).append(fn.key)
    duplicates = {n: k for n, k in globals_.items() if len(k) > 1}
    for fn in list(functions.values()):
        out = []
        for c in fn.callees:
            if c.startswith("|"):
                name = c[1:]
                if name in globals_:
                    c = globals_[name][0]
                else:
                    c = "|" + name
                    if c not in functions:
                        ext = Function(c, name, "")
                        functions[c] = ext
            if c not in out:
                out.append(c)
        fn.callees = out
    return duplicates


def resolve_indirect(functions, path):
    """Indirect calls of the callers listed in PATH go to their targets."""
    targets = {}
    with open(path) as f:
        for line in f:
            words = line.split()
            if words:
                targets[words[0]] = words[1:]
    by_base = {}
    for fn in functions.values():
        if fn.defined:
            by_base.setdefault(base_name(fn.name), []).append(fn)
    for fn in list(functions.values()):
        if not fn.defined or not fn.indirect_sites:
            continue
        listed = targets.get(base_name(fn.name))
        if listed is None:
            continue
        for t in listed:
            if t == "?":
                continue
            defs = by_base.get(t, [])
            globals_ = [d for d in defs if not d.local]
            for d in globals_ or defs:  # all same-named locals: the worst
                if d.key not in fn.callees:
                    fn.callees.append(d.key)
        if "?" not in listed:
            fn.indirect_resolved, fn.indirect_sites = fn.indirect_sites, 0


def components(functions, order):
    """Tarjan's strongly connected components, callees first (iterative)."""
    index, low, on_stack, stack, comps, comp_of = {}, {}, set(), [], [], {}
    counter = [0]
    for root in order:
        if root in index:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edge = work[-1]
            callees = functions[node].callees
            if edge < len(callees):
                work[-1] = (node, edge + 1)
                w = callees[edge]
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, 0))
                elif w in on_stack:
                    low[node] = min(low[node], index[w])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp_of[w] = len(comps)
                    members.append(w)
                    if w == node:
                        break
                members.reverse()
                comps.append(members)
    return comps, comp_of


def bound(functions, entry_key, red_zone, call_overhead, recursion):
    reach = []
    seen = {entry_key}
    work = [entry_key]
    while work:
        k = work.pop()
        reach.append(k)
        for c in functions[k].callees:
            if c not in seen:
                seen.add(c)
                work.append(c)
    comps, comp_of = components(functions, reach)
    causes = []
    value = {}  # component -> (bytes, unbounded, step, next component)

    def own(k):
        fn = functions[k]
        step = {"function": fn.name}
        unknown = False
        if fn.defined:
            leaf = not fn.callees and not fn.indirect_sites
            step["frame"] = fn.bytes
            step["bytes"] = fn.bytes + (red_zone if leaf else 0)
            if fn.source:
                step["source"] = fn.source
            if fn.qualifier == "dynamic":
                unknown = True
                causes.append({"kind": "dynamic-stack", "function": fn.name,
                               "text": "%s has a dynamic stack allocation (GCC: 'dynamic')" % fn.name})
            if fn.indirect_sites:
                unknown = True
                causes.append({"kind": "indirect-call", "function": fn.name,
                               "detail": "%d call site(s)" % fn.indirect_sites,
                               "text": "indirect call in %s (%d call site(s); GCC records no targets)"
                               % (fn.name, fn.indirect_sites)})
        elif fn.assumed is not None:
            step["frame"] = fn.assumed
            step["bytes"] = fn.assumed + call_overhead
            step["assumed"] = True
        else:
            step["frame"] = step["bytes"] = 0
            unknown = True
            callers = sorted({functions[c].name for c in reach if k in functions[c].callees})
            where = ("a local function of %s that GCC's graph calls but does not define "
                     "(folded into an identical one?)" % fn.obj) if fn.local else "not in the objects"
            causes.append({"kind": "no-facts", "function": fn.name,
                           "detail": "%s; called from %s" % (where, ", ".join(callers[:3])),
                           "text": "call into code without a frame size: %s (%s; called from %s)"
                           % (fn.name, where, ", ".join(callers[:3]))})
        if unknown:
            step["unbounded"] = True
        return step, unknown

    for ci, members in enumerate(comps):  # callees first
        steps = [own(k) for k in members]
        largest = max(steps, key=lambda s: s[0]["bytes"])[0]
        unknown = any(u for _, u in steps)
        cycle = len(members) > 1 or members[0] in functions[members[0]].callees
        step = dict(largest)
        cycle_unbounded = False
        if cycle:
            depths = [recursion[functions[m].name] for m in members
                      if functions[m].name in recursion]
            if depths:
                step["repeat"] = min(depths)
                step["bytes"] = largest["bytes"] * min(depths)
            else:
                cycle_unbounded = True
                names = [functions[m].name for m in members]
                causes.append({"kind": "recursion", "function": names[0], "cycle": names,
                               "text": "recursion: %s" % " -> ".join(names + [names[0]])
                               if len(names) <= 8 else
                               "recursion: a cycle of %d functions through %s"
                               % (len(names), ", ".join(sorted(names)[:8]) + ", ...")})
        exit_bytes, exit_unbounded, nxt = 0, False, None
        for m in members:
            for c in functions[m].callees:
                d = comp_of[c]
                if d == ci:
                    continue
                b, u, _, _ = value[d]
                exit_unbounded |= u
                if nxt is None or b > exit_bytes:
                    exit_bytes, nxt = b, d
        if unknown or cycle_unbounded:
            step["unbounded"] = True
        value[ci] = (step["bytes"] + exit_bytes, unknown or exit_unbounded or cycle_unbounded,
                     step, nxt)
    total, unbounded, _, _ = value[comp_of[entry_key]]
    chain = []
    at = comp_of[entry_key]
    while at is not None:
        chain.append(value[at][2])
        at = value[at][3]
    # One cause per kind and function, in a stable order.
    unique = {}
    for c in causes:
        unique.setdefault((c["kind"], c["function"]), c)
    ordered = sorted(unique.values(), key=lambda c: (c["kind"], c["function"]))
    return {"bounded": not unbounded, "bytes": total, "chain": chain}, ordered


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("ci", nargs="+", help="the objects' .ci files")
    p.add_argument("--entry", action="append", default=[], help="entry point (default: main)")
    p.add_argument("--config", help="settings: 'assume <f> <bytes>', 'recursion <f> <depth>', 'entry <f>'")
    p.add_argument("--assume", action="append", default=[], metavar="F=BYTES")
    p.add_argument("--recursion-bound", action="append", default=[], metavar="F=DEPTH")
    p.add_argument("--red-zone", type=int, default=128,
                   help="bytes a leaf may use below the stack pointer (default 128, x86-64)")
    p.add_argument("--indirect-targets", metavar="FILE",
                   help="lines '<caller> <target>...': what each caller's indirect calls reach")
    p.add_argument("--call-overhead", type=int, default=8,
                   help="bytes a call adds to an assumed size (default 8, x86-64: the "
                   "return address, which GCC's own sizes include)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()

    assumed, recursion, entries = {}, {}, []
    if a.config:
        read_config(a.config, assumed, recursion, entries)
    for spec, into in ((a.assume, assumed), (a.recursion_bound, recursion)):
        for s in spec:
            name, _, n = s.rpartition("=")
            if not name or not n.isdigit():
                sys.exit("expected <function>=<number>: %s" % s)
            into[name] = (int(n), "option") if into is assumed else int(n)
    entries = a.entry + entries or ["main"]

    functions, problems = {}, []
    for path in a.ci:
        if not path.endswith(".ci"):
            sys.exit("%s: not a .ci file" % path)
        read_ci(path, functions, problems)
    duplicates = resolve(functions)
    if a.indirect_targets:
        resolve_indirect(functions, a.indirect_targets)
    for name, keys in sorted(duplicates.items()):
        problems.append("global %s defined in several objects (%s): calls go to the first"
                        % (name, ", ".join(functions[k].obj for k in keys)))
    frames, calls = {}, {}
    for fn in functions.values():
        if fn.defined:
            frames[fn.name] = max(frames.get(fn.name, 0), fn.bytes)
            calls.setdefault(fn.name, set()).update(functions[c].name for c in fn.callees)
    for fn in functions.values():
        if not fn.defined and fn.name in assumed:
            fn.assumed, fn.assumed_from = assumed[fn.name]
    out = {"schema": "gcc-callgraph-bound", "version": 1, "objects": len(a.ci),
           "su_checked": SU_CHECKED[0],
           "functions": sum(1 for f in functions.values() if f.defined),
           "frames": frames, "calls": {k: sorted(v) for k, v in calls.items()}, "red_zone": a.red_zone, "call_overhead": a.call_overhead, "entries": [], "warnings": problems}
    for e in entries:
        keys = [k for k, f in functions.items() if f.defined and not f.local and f.name == e]
        if not keys:
            keys = [k for k, f in functions.items() if f.defined and f.name == e]
        if not keys:
            problems.append("entry %s is not defined in the given objects" % e)
            continue
        stack, causes = bound(functions, keys[0], a.red_zone, a.call_overhead, recursion)
        out["entries"].append({"function": e, "stack": stack, "causes": causes})

    if a.json:
        json.dump(out, sys.stdout, indent=2, sort_keys=True)
        print()
        return
    print("gcc_callgraph_bound: %d objects, %d functions with a stack size (%d of them "
          "agreeing with their .su line); frames include the return address; leaves add %d "
          "bytes (the red zone)" % (out["objects"], out["functions"], out["su_checked"], a.red_zone))
    for w in problems:
        print("warning: " + w)
    for e in out["entries"]:
        s = e["stack"]
        print("\nentry %s" % e["function"])
        print("  stack: %s%d bytes%s" % ("" if s["bounded"] else "unbounded (known part: ",
                                          s["bytes"], "" if s["bounded"] else ")"))
        print("         bytes     frame  function")
        for st in s["chain"]:
            note = ""
            if st.get("assumed"):
                note = "  [assumed: %s]" % functions["|" + st["function"]].assumed_from
            if st.get("repeat"):
                note += "  [x%d]" % st["repeat"]
            if st.get("unbounded"):
                note += "  [unbounded]"
            print("  %12d  %8d  %s%s" % (st["bytes"], st["frame"], st["function"], note))
        if e["causes"]:
            print("  unbounded because of:")
            for c in e["causes"]:
                print("    " + c["text"])


if __name__ == "__main__":
    main()
