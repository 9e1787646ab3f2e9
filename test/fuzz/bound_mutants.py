#!/usr/bin/env python3
"""Bit-flip mutants of ELF images through scopealloc-bound.

Each mutant flips 1-4 bits of one image: half of the mutants in the ELF
header and the section header table (where one flip moves a section's
offset, size, link or name), the other half anywhere in the file. Every
run must end with exit code 0 or 1; a failure must be one line on stderr,
"scopealloc-bound: error: <file>...". A signal, an abort, an "LLVM
ERROR", a stack dump, a timeout or a multi-line error is a crash; crashing
mutants are kept under --keep.

  bound_mutants.py --tool scopealloc-bound --count 2500 --seed 1 img1 img2 ...
"""
import argparse
import os
import random
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor


def header_span(data):
    """(offset, length) of the section header table, or None."""
    if len(data) < 0x40 or data[:4] != b"\x7fELF":
        return None
    wide = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    try:
        if wide:
            shoff, = struct.unpack_from(end + "Q", data, 0x28)
            shentsize, shnum = struct.unpack_from(end + "HH", data, 0x3A)
        else:
            shoff, = struct.unpack_from(end + "I", data, 0x20)
            shentsize, shnum = struct.unpack_from(end + "HH", data, 0x2E)
    except struct.error:
        return None
    if shoff >= len(data) or not shnum:
        return None
    return shoff, min(shentsize * shnum, len(data) - shoff)


def mutate(data, rng):
    data = bytearray(data)
    span = header_span(data)
    for _ in range(rng.randint(1, 4)):
        if span and rng.random() < 0.5:
            if rng.random() < 0.15:
                pos = rng.randrange(0, 0x40)  # the ELF header
            else:
                pos = span[0] + rng.randrange(span[1])
        else:
            pos = rng.randrange(len(data))
        data[pos] ^= 1 << rng.randrange(8)
    return bytes(data)


def classify(tool, path, timeout):
    try:
        p = subprocess.run([tool, path], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode not in (0, 1):
        return "crash (exit %d)" % p.returncode, err
    if "LLVM ERROR" in err or "PLEASE submit" in err or "Stack dump" in err:
        return "crash (LLVM error)", err
    if p.returncode == 1:
        lines = [l for l in err.splitlines() if l.strip()]
        prefix = "scopealloc-bound: error: %s" % path
        if len(lines) != 1 or not lines[0].startswith(prefix):
            return "bad error message", err
        return "error", err
    return "ok", err


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", required=True)
    ap.add_argument("--count", type=int, default=2500,
                    help="mutants in all, shared by the images")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--keep", help="directory for crashing mutants")
    ap.add_argument("images", nargs="+")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    originals = [open(i, "rb").read() for i in args.images]
    tmp = tempfile.mkdtemp(prefix="bound-mutants-")
    jobs = []
    for n in range(args.count):
        k = n % len(originals)
        path = os.path.join(tmp, "m%05d-%s" % (n, os.path.basename(args.images[k])))
        with open(path, "wb") as f:
            f.write(mutate(originals[k], rng))
        os.chmod(path, 0o755)
        jobs.append((k, path))
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(
            lambda j: classify(args.tool, j[1], args.timeout), jobs))
    bad = 0
    tally = {}
    for (k, path), (kind, err) in zip(jobs, results):
        key = (os.path.basename(args.images[k]), kind.split(" (")[0])
        tally[key] = tally.get(key, 0) + 1
        if kind in ("ok", "error"):
            os.unlink(path)
            continue
        bad += 1
        kept = path
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            kept = os.path.join(args.keep, os.path.basename(path))
            os.replace(path, kept)
        first = err.strip().splitlines()[:2]
        print("%s: %s: %s" % (kind, kept, " | ".join(first)))
    for (image, kind), n in sorted(tally.items()):
        print("%-24s %-18s %5d" % (image, kind, n))
    print("%d mutants of %d images: %d crashes" % (args.count, len(originals), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
