#!/usr/bin/env python3
"""Indirect-call targets as scopealloc-bound resolves them, for the GCC side.

    indirect_targets.py < (scopealloc-bound --dump-facts IMAGE) > TARGETS

GCC's call graph records an indirect call without a type or targets;
scopealloc-bound resolves one by its IR type signature among the
address-taken functions of that type. This reads the facts records of a
ScopeAlloc build of the same program (as --dump-facts prints them) and
writes, per function with indirect calls, the functions such a call may
reach, one line each, for utils/gcc_callgraph_bound.py --indirect-targets:

    <caller> <target>...        (a lone "?" target: a type no address-taken
                                 function has; the call stays unknown)

Address-taken: the record's flag, or named by another record's "address
of". (scopealloc-bound also counts function addresses found in the
image's data, which the dump does not show: a target reached only that
way is missed here, and the GCC figure that uses these targets is then a
little optimistic; zlib's and bzip2's tables of functions are in the
same file as the functions, which sets the flag.)
"""
import re
import sys

records = {}
order = []
current = None
for line in sys.stdin:
    m = re.match(r"^function (\S+) at ", line)
    if m:
        current = {"type": None, "taken": False, "indirect": [], "refs": []}
        records[m.group(1)] = current
        order.append(m.group(1))
        continue
    if current is None:
        continue
    line = line.rstrip("\n")
    if line.startswith("  type: "):
        current["type"] = line[len("  type: "):]
    elif line.startswith("  flags: "):
        current["taken"] = "address-taken" in line.split()
    elif line.startswith("  indirect call: "):
        m = re.match(r"^  indirect call: (.*) \((\d+) sites?\)$", line)
        if m:
            current["indirect"].append(m.group(1))
    elif line.startswith("  address of "):
        current["refs"].append(line[len("  address of "):].split()[0])

taken = {name for name, r in records.items() if r["taken"]}
for r in records.values():
    taken.update(x for x in r["refs"] if x in records)
by_type = {}
for name in order:
    if name in taken and records[name]["type"]:
        by_type.setdefault(records[name]["type"], []).append(name)
for name in order:
    r = records[name]
    if not r["indirect"]:
        continue
    targets = []
    for t in r["indirect"]:
        found = by_type.get(t)
        for f in found or ["?"]:
            if f not in targets:
                targets.append(f)
    print(name, " ".join(targets))
