"""Reads clang's .su file and ScopeAlloc's .pu file of one compile, and the
JSON reports of the same compile, and checks that they agree:

  - the .pu lines have the .su line format (file:line:function, bytes,
    static|dynamic) plus the pool, so .su readers read them;
  - both files list the same functions, at the same file:line;
  - each .pu line's bytes are the frame demotion laid out for that function
    and pool (frame_bytes in the report).

Prints "ok: <functions>" for FileCheck.

  python3 stack-usage.py FILE.su FILE.pu REPORT_DIR
"""
import glob
import json
import os
import re
import sys

LINE = re.compile(r"^(?P<where>.+:\d+):(?P<function>[^:\t]+)\t(?P<bytes>\d+)"
                  r"\t(?P<qualifier>static|dynamic)(?:\t(?P<pool>\S+))?$")


def fail(msg):
    print("mismatch: " + msg)
    sys.exit(1)


def read(path, with_pool):
    entries = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m or bool(m.group("pool")) != with_pool:
                fail("%s: not a %s line: %r" %
                     (path, ".pu" if with_pool else ".su", line))
            entries.setdefault(m.group("function"), []).append(m.groupdict())
    return entries


su = read(sys.argv[1], with_pool=False)
pu = read(sys.argv[2], with_pool=True)
if set(su) != set(pu):
    fail("functions: .su %s, .pu %s" % (sorted(su), sorted(pu)))

frames = {}
for path in glob.glob(os.path.join(sys.argv[3], "*.json")):
    with open(path) as f:
        for function in json.load(f)["functions"]:
            for pool, place in function["totals"]["pools"].items():
                frames[(function["name"], pool)] = place["frame_bytes"]

for name, lines in sorted(pu.items()):
    if any(line["where"] != su[name][0]["where"] for line in lines):
        fail("%s: .su at %s, .pu at %s" %
             (name, su[name][0]["where"], [l["where"] for l in lines]))
    for line in lines:
        frame = frames.get((name, line["pool"]))
        if frame != int(line["bytes"]):
            fail("%s in pool %s: .pu says %s bytes, the report %s" %
                 (name, line["pool"], line["bytes"], frame))
print("ok: " + " ".join(sorted(pu)))
