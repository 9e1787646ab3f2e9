#!/usr/bin/env python3
"""Checks scopealloc-bound's critical chains against per-function numbers.

  check_chain.py BOUND.json STACK_SIZES.txt DUMP.txt ENTRY...

BOUND.json is `scopealloc-bound --json`, STACK_SIZES.txt is
`llvm-readobj --stack-sizes` of the same image (LLVM's own reader), DUMP.txt
is `scopealloc-bound --dump-facts` (the pools each function takes). For each
ENTRY: every step of the stack chain is the function's .stack_sizes frame
plus the per-call overhead (plus the red zone on a leaf), consecutive steps
are calls the facts name, and the bound is the sum; every pool chain step is
the function's pool frame rounded to the minimum alignment plus the padding
a larger alignment may need, and the pool's bound is the sum. Interrupt
handlers nested on top of an entry (`interrupts`) each count their own
entry's worst case, and the bound is the chain's sum (`own_bytes`) plus
theirs. Prints one line per checked bound; exits 1 on the first mismatch.
"""
import json
import re
import sys

MIN_ALIGN = 8


def fail(msg):
    print("check_chain: FAIL: " + msg)
    sys.exit(1)


def stack_sizes(path):
    sizes, name = {}, None
    for line in open(path):
        m = re.match(r"\s*Functions: \[(.*)\]", line)
        if m:
            name = m.group(1).split(",")[0].strip()
        m = re.match(r"\s*Size: (0x[0-9a-fA-F]+|\d+)", line)
        if m and name:
            sizes[name] = int(m.group(1), 0)
            name = None
    return sizes


def dump(path):
    funcs, cur = {}, None
    for line in open(path):
        m = re.match(r"function (\S+)", line)
        if m:
            cur = funcs.setdefault(m.group(1), {"pools": {}, "calls": set(),
                                               "indirect": False})
            continue
        if cur is None:
            continue
        m = re.match(r"  pool (\S+): (\d+) bytes, align (\d+)", line)
        if m:
            size, align = int(m.group(2)), int(m.group(3))
            rounded = (size + MIN_ALIGN - 1) // MIN_ALIGN * MIN_ALIGN
            cur["pools"][m.group(1)] = cur["pools"].get(m.group(1), 0) + \
                rounded + max(align, MIN_ALIGN) - MIN_ALIGN
        m = re.match(r"  call (\S+)", line)
        if m:
            cur["calls"].add(m.group(1))
        if line.startswith("  indirect call"):
            cur["indirect"] = True
    return funcs


def own_bytes(bound):
    return bound.get("own_bytes", bound["bytes"])


def nested(entries, name, what, bound, own):
    """Checks that BOUND is OWN, the chain's sum, plus the interrupt
    handlers nested on top, each its own entry's worst case; returns it."""
    if own_bytes(bound) != own:
        fail("%s: %s: own part %d, chain sums to %d" %
             (name, what, own_bytes(bound), own))
    total = own
    for n in bound.get("interrupts", []):
        handler = entries.get(n["function"])
        if handler is None:
            fail("%s: %s: nested handler %s is no entry" %
                 (name, what, n["function"]))
        if what == "stack":
            theirs = handler["stack"]
        else:
            theirs = handler["pools"].get(what[len("pool "):])
        if theirs is None or own_bytes(theirs) != n["bytes"]:
            fail("%s: %s: nested %s counts %d bytes, its own worst case is %s"
                 % (name, what, n["function"], n["bytes"],
                    theirs and own_bytes(theirs)))
        total += n["bytes"]
    if bound["bytes"] != total:
        fail("%s: %s bound %d, the chain and nested handlers sum to %d" %
             (name, what, bound["bytes"], total))
    return total


def main():
    bound = json.load(open(sys.argv[1]))
    frames = stack_sizes(sys.argv[2])
    facts = dump(sys.argv[3])
    entries = {e["function"]: e for e in bound["entries"]}
    for name in sys.argv[4:]:
        if name not in entries:
            fail("no entry %s (entries: %s)" % (name, sorted(entries)))
        e = entries[name]
        chain = e["stack"]["chain"]
        total = 0
        for i, step in enumerate(chain):
            fn = step["function"]
            if fn == "(exception frame)":
                want = bound["exception_frame"]
            elif step.get("assumed"):
                want = step["frame"] + bound["call_overhead"]
            else:
                if fn not in frames:
                    fail("%s: %s has no .stack_sizes entry" % (name, fn))
                want = frames[fn] + bound["call_overhead"]
                leaf = fn in facts and not facts[fn]["calls"] and \
                    not facts[fn]["indirect"]
                if leaf:
                    want += bound["red_zone"]
                if step["frame"] != frames[fn]:
                    fail("%s: frame of %s is %d, .stack_sizes says %d" %
                         (name, fn, step["frame"], frames[fn]))
                nxt = chain[i + 1]["function"] if i + 1 < len(chain) else None
                if nxt and fn in facts and nxt not in facts[fn]["calls"] \
                        and not facts[fn]["indirect"]:
                    fail("%s: %s does not call %s" % (name, fn, nxt))
            want *= step.get("repeat", 1)  # a cycle's declared depth
            if step["bytes"] != want:
                fail("%s: %s counts %d bytes, expected %d" %
                     (name, fn, step["bytes"], want))
            total += want
        own = total
        total = nested(entries, name, "stack", e["stack"], own)
        print("%s: stack %d bytes = %s%s" % (
            name, total, " + ".join(str(s["bytes"]) for s in chain),
            "".join(" + %d %s" % (n["bytes"], n["function"])
                    for n in e["stack"].get("interrupts", []))))
        for pool, b in sorted(e["pools"].items()):
            total = 0
            for step in b["chain"]:
                want = facts.get(step["function"], {"pools": {}})["pools"] \
                    .get(pool, 0) * step.get("repeat", 1)
                if step["bytes"] != want:
                    fail("%s: pool %s: %s counts %d bytes, expected %d" %
                         (name, pool, step["function"], step["bytes"], want))
                total += want
            total = nested(entries, name, "pool " + pool, b, total)
            print("%s: pool %s %d bytes" % (name, pool, total))


main()
