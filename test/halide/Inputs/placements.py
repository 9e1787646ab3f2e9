#!/usr/bin/env python3
"""One line per allocation of a ScopeAlloc build report (-scope-alloc-report):

    <function>: <ir name> <size> bytes -> <stack|pool> (<decision>, <rule>)

then, per function and pool, the pool frame one call takes:

    <function>: frame <pool> <bytes> bytes

Value names lose Halide's uniquing suffix (blur_x165 -> blur_x), so the
lines do not change when Halide numbers its values differently.
"""
import json
import re
import sys

report = json.load(open(sys.argv[1]))
for function in report["functions"]:
    name = function["name"]
    for a in function["allocations"]:
        ir_name = re.sub(r"\d+$", "", a["ir_name"] or "") or "<unnamed>"
        size = "dynamic" if a["size"] is None else "%d bytes" % a["size"]
        place = "stack" if a["decision"] == "keep" else a["pool"]
        print("%s: %s %s -> %s (%s, %s)" % (name, ir_name, size, place,
                                           a["decision"], a["rule"]))
    for pool, totals in function["totals"]["pools"].items():
        print("%s: frame %s %d bytes" % (name, pool, totals["frame_bytes"]))
