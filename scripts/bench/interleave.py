#!/usr/bin/env python3
"""Times several commands in interleaved rounds and writes the per-run and
median (and least) wall and CPU (user + system) times as JSON.

    interleave.py --rounds 5 --out FILE.json [--warmup 1] [--log FILE]
                  NAME=COMMAND NAME=COMMAND ...

COMMAND is split like a shell line (no shell runs; prefix `env VAR=value` to
set variables). Round r runs the variants rotated by r (ABC, BCA, CAB, ...),
so that a slow drift of the machine falls on every variant alike. Warm-up
rounds run first and are not recorded. stdout goes to /dev/null, stderr to
the log; a command that fails stops everything with its exit status.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time


def run_once(argv, log):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = proc.returncode = os.waitstatus_to_exitcode(status)  # reaped
    if code != 0:
        sys.exit(f"interleave.py: `{shlex.join(argv)}` failed with exit "
                 f"status {code}")
    return wall, usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=0)
    parser.add_argument("--out", required=True)
    parser.add_argument("--log", default=os.devnull)
    parser.add_argument("variants", nargs="+", metavar="NAME=COMMAND")
    args = parser.parse_args()

    variants = []
    for spec in args.variants:
        name, sep, command = spec.partition("=")
        if not sep or not name or not command.strip():
            parser.error(f"expected NAME=COMMAND, got {spec!r}")
        variants.append((name, shlex.split(command)))
    runs = {name: [] for name, _ in variants}

    with open(args.log, "a") as log:
        for r in range(args.warmup + args.rounds):
            k = r % len(variants)
            for name, argv in variants[k:] + variants[:k]:
                log.write(f"+ [{name}] {shlex.join(argv)}\n")
                log.flush()
                wall, cpu = run_once(argv, log)
                if r >= args.warmup:
                    runs[name].append({"wall_s": wall, "cpu_s": cpu})
                print(f"  round {r + 1 - args.warmup:>2} {name:<10} "
                      f"wall {wall:8.3f} s  cpu {cpu:8.3f} s"
                      + ("  (warm-up)" if r < args.warmup else ""),
                      file=sys.stderr)

    result = {"rounds": args.rounds, "warmup": args.warmup, "variants": []}
    for name, argv in variants:
        result["variants"].append({
            "name": name,
            "command": shlex.join(argv),
            "runs": runs[name],
            "wall_s": statistics.median(x["wall_s"] for x in runs[name]),
            "cpu_s": statistics.median(x["cpu_s"] for x in runs[name]),
            "min_wall_s": min(x["wall_s"] for x in runs[name]),
            "min_cpu_s": min(x["cpu_s"] for x in runs[name]),
        })
    with open(args.out, "w") as out:
        json.dump(result, out, indent=2)


if __name__ == "__main__":
    main()
