"""Inference time of the TVM model (test/tvm-model/tvm_model.py), plain TVM
and through ScopeAlloc, side by side in one process.

  build/venv/bin/python3 bench/tvm-model.py --prefix <install> --work <dir>
      --clang <clang of the plugin's LLVM> [--rounds 7] [--runs 2000]

Builds the model once with TVM 0.27, exports it plainly (TVM's own objects
and link), as bitcode linked by clang -O2 without ScopeAlloc (the same
compile route as ScopeAlloc's, so its ratio is the placement's cost alone),
under the host policy (limit 32 KiB: TVM's workspaces promoted to
the stack) and at limit 0 (its stack buffer from ScopeAlloc's arena), loads
all three into TVM's Relax VM in this process, checks that their outputs are
bitwise equal, then times --runs inferences of each per round, the variants
rotated every round so that drift falls on each alike. Prints the median
time per inference and its ratio to plain TVM's; asserts no timing.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--clang", required=True)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--runs", type=int, default=2000)
    a = ap.parse_args()
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "test", "tvm-model"))
    sys.path.insert(0, os.path.join(a.prefix, "share", "scopealloc", "python"))
    import scopealloc_tvm
    import tvm_model

    os.makedirs(a.work, exist_ok=True)
    ex, args = tvm_model.build()
    def clang_o2(output, files, **_):
        subprocess.run([a.clang, "-shared", "-fPIC", "-O2", "-Wno-override-module"]
                       + files + ["-o", output], check=True)
    clang_o2.object_format = "bc"

    policies = [("plain TVM", None),
                ("clang -O2, no ScopeAlloc", clang_o2),
                ("promoted (limit 32 KiB)", {"max_stack_alloca": 32768}),
                ("limit 0", {"max_stack_alloca": 0})]
    loaded = []
    for i, (name, policy) in enumerate(policies):
        path = os.path.join(a.work, f"model{i}.so")
        if policy is None:
            ex.export_library(path)
        elif callable(policy):
            ex.export_library(path, fcompile=policy)
        else:
            ex.export_library(path, fcompile=scopealloc_tvm.fcompile(quiet=True, **policy))
        loaded.append((name, tvm_model.Loaded(path, args)))
    want = loaded[0][1].run().tobytes()
    for name, model in loaded:
        if model.run().tobytes() != want:
            sys.exit(f"tvm-model bench: {name}'s output differs from plain TVM's")

    times = {name: [] for name, _ in loaded}
    for r in range(a.rounds + 1):  # round 0 warms up
        order = loaded[r % len(loaded):] + loaded[:r % len(loaded)]
        for name, model in order:
            start = time.perf_counter()
            for _ in range(a.runs):
                model.run()
            if r:
                times[name].append((time.perf_counter() - start) / a.runs)
    base = statistics.median(times[loaded[0][0]])
    route = statistics.median(times[loaded[1][0]])
    print(f"TVM model inference ({a.rounds} interleaved rounds of {a.runs} "
          f"runs, medians; outputs bitwise equal)")
    print(f"{'variant':26} {'us/inference':>12} {'x plain':>8} {'x clang -O2':>11}")
    for name, _ in loaded:
        t = statistics.median(times[name])
        print(f"{name:26} {t * 1e6:12.2f} {t / base:7.3f}x {t / route:10.3f}x")


if __name__ == "__main__":
    main()
