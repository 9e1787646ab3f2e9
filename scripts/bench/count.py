#!/usr/bin/env python3
"""Counts the instructions each of several commands executes, one run each,
and writes them as JSON: what scripts/bench/run.sh judges whole programs by,
where a 2-core machine shared with other work moves their times by 10-30%
from run to run (issue 48 part 4).

    count.py --out FILE.json [--tool auto|perf|callgrind] [--keep DIR]
             NAME=COMMAND NAME=COMMAND ...

COMMAND is split like a shell line (no shell runs). The tool:
  perf       `perf stat -e instructions:u` (user-mode instructions retired),
             where the machine has the counter (not in most VMs);
  callgrind  Valgrind's callgrind (instructions executed by the program
             and its libraries; rep-prefixed string instructions count one
             per iteration), deterministic for a deterministic program;
             about 50 times slower than a native run. --keep DIR keeps each
             variant's callgrind.out (DIR/callgrind-NAME.out) for
             callgrind_annotate.
  auto       perf if it counts here, else callgrind (the default).
Every variant is counted with the same tool; stdout goes to /dev/null, a
failing command stops everything. The JSON: {"tool": ..., "variants":
[{"name", "command", "instructions"}]}."""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile


def perf_works():
    if not shutil.which("perf"):
        return False
    proc = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u",
                           "true"], capture_output=True, text=True)
    fields = proc.stderr.strip().splitlines()[-1].split(",") if proc.stderr else []
    return proc.returncode == 0 and bool(fields) and fields[0].isdigit()


def count_perf(argv):
    with tempfile.NamedTemporaryFile("r", suffix=".perf") as f:
        subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u", "-o",
                        f.name, "--"] + argv, stdout=subprocess.DEVNULL,
                       check=True)
        for line in f.read().splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2].startswith("instructions"):
                return int(fields[0])
    sys.exit(f"count.py: perf counted nothing for `{shlex.join(argv)}`")


def count_callgrind(argv, keep, name):
    out = (os.path.join(keep, f"callgrind-{name}.out") if keep
           else tempfile.mktemp(suffix=".callgrind"))
    try:
        subprocess.run(["valgrind", "--tool=callgrind", "-q",
                        f"--callgrind-out-file={out}"] + argv,
                       stdout=subprocess.DEVNULL, check=True)
        with open(out) as f:
            for line in f:
                m = re.match(r"(summary|totals): (\d+)", line)
                if m:
                    return int(m.group(2))
    finally:
        if not keep and os.path.exists(out):
            os.unlink(out)
    sys.exit(f"count.py: callgrind counted nothing for `{shlex.join(argv)}`")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--tool", default="auto",
                        choices=["auto", "perf", "callgrind"])
    parser.add_argument("--keep")
    parser.add_argument("variants", nargs="+", metavar="NAME=COMMAND")
    args = parser.parse_args()
    tool = args.tool
    if tool == "auto":
        tool = "perf" if perf_works() else "callgrind"
    if tool == "callgrind" and not shutil.which("valgrind"):
        sys.exit("count.py: no perf counters here and no valgrind")
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    result = {"tool": tool, "variants": []}
    for spec in args.variants:
        name, _, command = spec.partition("=")
        argv = shlex.split(command)
        n = (count_perf(argv) if tool == "perf"
             else count_callgrind(argv, args.keep, name))
        print(f"[count] {name}: {n:,} instructions ({tool})", file=sys.stderr)
        result["variants"].append({"name": name, "command": command,
                                   "instructions": n})
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
