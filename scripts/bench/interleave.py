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

Where a program's stack starts moves its time by up to 15% (speedtest1:
2.11 s to 2.78 s for one binary, with 0 to 3000 bytes more environment),
and the start depends on the program's path (the kernel copies it onto the
stack) and on the environment. So every program runs through a link of the
same length (<tmp>/v00, <tmp>/v01, ...), and every round sets
SCOPEALLOC_BENCH_PAD to a random number (0 to 4080, a multiple of 16) of
bytes, the same for every variant of the round: each variant is timed over
the same spread of stack positions, and two identical binaries time alike.
"""
import argparse
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run_once(argv, log, env=None):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log,
                            env=env)
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

    # The same path length for every program (see above).
    links = tempfile.mkdtemp(prefix="interleave-")
    linked = {}
    for i, (name, argv) in enumerate(variants):
        program = argv[0] if os.sep in argv[0] else shutil.which(argv[0])
        link = os.path.join(links, f"v{i:02d}")
        os.symlink(os.path.abspath(program), link)
        linked[name] = [link] + argv[1:]
    layout = random.Random(20261128)

    with open(args.log, "a") as log:
        for r in range(args.warmup + args.rounds):
            k = r % len(variants)
            env = dict(os.environ,
                       SCOPEALLOC_BENCH_PAD="x" * (16 * layout.randrange(256)))
            for name, argv in variants[k:] + variants[:k]:
                log.write(f"+ [{name}] {shlex.join(argv)} "
                          f"(pad {len(env['SCOPEALLOC_BENCH_PAD'])})\n")
                log.flush()
                wall, cpu = run_once(linked[name], log, env)
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
    shutil.rmtree(links)
    with open(args.out, "w") as out:
        json.dump(result, out, indent=2)


if __name__ == "__main__":
    main()
