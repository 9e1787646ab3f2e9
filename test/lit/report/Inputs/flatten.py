"""Prints a ScopeAlloc report one fact per line, for FileCheck, after
checking that it is self-consistent: every total is the sum of what it
sums, and every function the pass saw is accounted for.

  python3 flatten.py REPORT.json
"""
import json
import sys

DECISIONS = ("keep", "demote", "pinned")


def fail(msg):
    print("inconsistent: " + msg)
    sys.exit(1)


def totals_of(allocations):
    t = {"allocations": len(allocations),
         "decisions": {d: 0 for d in DECISIONS},
         "dynamic": {d: 0 for d in DECISIONS},
         "stack": {"bytes": 0, "allocations": 0, "dynamic": 0},
         "pools": {}}
    for a in allocations:
        t["decisions"][a["decision"]] += 1
        if a["decision"] == "demote":
            place = t["pools"].setdefault(
                a["pool"], {"bytes": 0, "allocations": 0, "dynamic": 0})
        else:
            place = t["stack"]
        place["allocations"] += 1
        if a["static"]:
            place["bytes"] += a["size"]
        else:
            place["dynamic"] += 1
            t["dynamic"][a["decision"]] += 1
    return t


def without_frames(t):
    t = json.loads(json.dumps(t))
    for p in t["pools"].values():
        p.pop("frame_bytes")
    return t


def add(into, t):
    into["allocations"] += t["allocations"]
    for key in ("decisions", "dynamic"):
        for d in DECISIONS:
            into[key][d] += t[key][d]
    for key in ("bytes", "allocations", "dynamic"):
        into["stack"][key] += t["stack"][key]
    for pool, p in t["pools"].items():
        q = into["pools"].setdefault(pool, {"bytes": 0, "allocations": 0,
                                            "dynamic": 0})
        for key in ("bytes", "allocations", "dynamic"):
            q[key] += p[key]


doc = json.load(open(sys.argv[1]))
module_sum = totals_of([])
for f in doc["functions"]:
    expected = totals_of(f["allocations"])
    if without_frames(f["totals"]) != expected:
        fail("totals of %s: %s, allocations sum to %s" %
             (f["name"], f["totals"], expected))
    add(module_sum, expected)
if without_frames(doc["totals"]) != module_sum:
    fail("module totals %s, functions sum to %s" % (doc["totals"], module_sum))
accounted = (len(doc["functions"]) + doc["functions_without_allocations"] +
             doc["functions_not_handled"] + len(doc["failed_functions"]))
if accounted != doc["functions_seen"]:
    fail("functions_seen %d, accounted for %d" % (doc["functions_seen"],
                                                  accounted))
print("consistent")

print("module %s schema=%s version=%s triple=%s complete=%s" %
      (doc["source_file"].rsplit("/", 1)[-1], doc["schema"], doc["version"],
       doc["target_triple"], doc["complete"]))
print("seen=%d without=%d not_handled=%d failed=%s" %
      (doc["functions_seen"], doc["functions_without_allocations"],
       doc["functions_not_handled"], ",".join(doc["failed_functions"])))


def place_text(t):
    s = "stack=%d/%d/%d" % (t["stack"]["bytes"], t["stack"]["allocations"],
                            t["stack"]["dynamic"])
    for pool, p in sorted(t["pools"].items()):
        s += " %s=%d/%d/%d/%d" % (pool, p["bytes"], p["frame_bytes"],
                                  p["allocations"], p["dynamic"])
    return s


print("totals " + place_text(doc["totals"]))
for f in doc["functions"]:
    loc = "%s:%s" % (f["file"], f["line"]) if f["file"] else "-"
    print("function %s demangled=%s at=%s %s" %
          (f["name"], f["demangled"], loc, place_text(f["totals"])))
    p = f["policy"]
    for key in ("max_stack_alloca", "frame_budget", "dynamic", "pool",
                "stack_scope_over_budget"):
        print("  policy %s=%s (%s)" % (key, json.dumps(p[key]["value"]),
                                       p[key]["source"]))
    for a in f["allocations"]:
        loc = "%s:%s" % (a["file"], a["line"]) if a["file"] else "-"
        print("  alloc %s ir=%s at=%s inlined_from=%s size=%s align=%d "
              "static=%s scope=%s %s pool=%s rule=%s" %
              (a["name"], a["ir_name"], loc, a["inlined_from"],
               json.dumps(a["size"]), a["align"], a["static"], a["scope"],
               a["decision"], a["pool"], a["rule"]))
        print("    reason: " + a["reason"])
