"""A real model built by TVM 0.27, linked through ScopeAlloc, run by TVM's
Relax VM: both directions of apache/tvm#9022 (docs/tvm.md).

  python check_model.py --prefix <ScopeAlloc install> --work <dir> --llvm-bin <dir>

Builds tvm_model.Net with TVM (the LLVM target, also as a system library,
and the `c` target), exports it plainly and with scopealloc_tvm.fcompile
under each policy, runs every build in its own process (SCOPEALLOC_STATS=1)
and requires outputs bitwise equal to plain TVM's, with what moved:

  host   limit 32 KiB: TVM's two workspaces (3888 + 3200 B) promoted to
         the stack, through the @__TVMBackendAllocWorkspace slot, the
         direct calls of a system library and the `c` target's calls;
  micro  limit 0: the 800-byte stack buffer (and the error paths' arrays)
         from ScopeAlloc's arena; the kernels' frames measured against the
         plain build's, for the host and for a Cortex-M4;
  npu    examples/npu-policy.yaml's ethos-u55 tag: the same into the
         application's pool npu_sram, defined by an addon of the export;
  scope  a TIR kernel whose buffers carry scopealloc_tvm.annotate_scope:
         both (a stack buffer and a workspace) in pool sram.

Prints a summary table; exits non-zero on the first difference.
"""

import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def run_in_process(path, work, name, system_lib=False):
    """Runs an exported model in a fresh process; returns (output, stats)."""
    out = os.path.join(work, name + ".npy")
    cmd = [sys.executable, __file__, "--run", path, "--out", out]
    if system_lib:
        cmd.append("--system-lib")
    env = dict(os.environ, SCOPEALLOC_STATS="1")
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        fail(f"{name}: running {path} failed:\n{proc.stdout}{proc.stderr}")
    return np.load(out), pool_peaks(proc.stderr)


def pool_peaks(stderr):
    """{pool: peak bytes} from SCOPEALLOC_STATS's table."""
    peaks = {}
    for line in stderr.splitlines():
        m = re.match(r"\s+(\w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", line)
        if m:
            peaks[m.group(1)] = int(m.group(3))
    return peaks


def moved(log):
    """What the remarks say: promoted workspace calls and demoted buffers."""
    text = "".join(log)
    promoted = [int(b) for b in re.findall(
        r"workspace call '[^']*' in '[^']*' \([^)]*\) promoted: (\d+) bytes", text)]
    to_pool = [int(b) for b in re.findall(
        r"workspace call '[^']*' in '[^']*' \([^)]*\) moved to pool '[^']*': .*?: (\d+) bytes", text)]
    demoted = [(int(b), pool) for b, pool in re.findall(
        r"' \((\d+) bytes, align \d+, scope [^)]*\) moved to pool '([^']*)'", text)]
    kept_calls = len(re.findall(r"workspace call '[^']*' in '[^']*' \([^)]*\) not promoted", text))
    return {"promoted": promoted, "to_pool": to_pool, "demoted": demoted,
            "kept_calls": kept_calls}


def stack_sizes(obj, llvm_bin):
    """{function: frame bytes} from an object's .stack_sizes section."""
    out = subprocess.run(
        [os.path.join(llvm_bin, "llvm-readobj"), "--stack-sizes",
         "--elf-output-style=JSON", obj],
        check=True, stdout=subprocess.PIPE, text=True).stdout
    sizes = {}
    for entry in json.loads(out)[0].get("StackSizes", []):
        for fn in entry["Entry"]["Functions"]:
            sizes[fn] = entry["Entry"]["Size"]
    return sizes


def compile_object(cmd, bc, obj):
    subprocess.run(cmd + ["-O2", "-c", "-fstack-size-section",
                          "-Wno-override-module", bc, "-o", obj], check=True)


def kernel_frames(bc, work, tag, plain_cc, scopealloc_cc, policy_flags, llvm_bin):
    """Frames of TVM's kernels (`*_compute_`), plain and through ScopeAlloc."""
    plain_o = os.path.join(work, f"{tag}-plain.o")
    ours_o = os.path.join(work, f"{tag}-scopealloc.o")
    compile_object(plain_cc, bc, plain_o)
    compile_object(scopealloc_cc + policy_flags, bc, ours_o)
    plain, ours = stack_sizes(plain_o, llvm_bin), stack_sizes(ours_o, llvm_bin)
    return {fn: (plain[fn], ours.get(fn)) for fn in sorted(plain)
            if fn.endswith("_compute_")}


def keep_files(into):
    """An fcompile that only keeps what export_library wrote (bitcode)."""
    def f(output, files, **_):
        for path in files:
            os.replace(path, os.path.join(into, os.path.basename(path)))
    f.object_format = "bc"
    return f


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix")
    ap.add_argument("--work")
    ap.add_argument("--llvm-bin")
    ap.add_argument("--run")
    ap.add_argument("--out")
    ap.add_argument("--system-lib", action="store_true")
    a = ap.parse_args()
    sys.path.insert(0, HERE)
    import tvm_model

    if a.run:  # one build, in its own process: output to --out
        _, args = tvm_model.build()
        np.save(a.out, tvm_model.Loaded(a.run, args, a.system_lib).run())
        return

    sys.path.insert(0, os.path.join(a.prefix, "share", "scopealloc", "python"))
    import scopealloc_tvm
    import tvm

    work = a.work
    os.makedirs(work, exist_ok=True)
    root = os.path.dirname(os.path.dirname(HERE))
    npu_policy = os.path.join(root, "examples", "npu-policy.yaml")
    print(f"TVM {tvm.__version__}, ScopeAlloc at {a.prefix}", flush=True)

    ex, _ = tvm_model.build()
    ex.export_library(os.path.join(work, "plain.so"))
    plain, _ = run_in_process(os.path.join(work, "plain.so"), work, "plain")
    rows = []

    def through(name, ex, system_lib=False, addons=None, **policy):
        f = scopealloc_tvm.fcompile(remarks=True, quiet=True, **policy)
        path = os.path.join(work, name + ".so")
        ex.export_library(path, fcompile=f, addons=addons,
                          workspace_dir=os.path.join(work, name))
        out, peaks = run_in_process(path, work, name, system_lib)
        m = moved(f.log)
        same = out.tobytes() == plain.tobytes()
        rows.append((name, m, peaks, same))
        if not same:
            fail(f"{name}: output differs from plain TVM's "
                 f"(max abs diff {np.abs(out - plain).max()})")
        return m, peaks

    # host: TVM's workspaces promoted, in each of TVM's three call shapes.
    for name, target, system_lib in [("host", "llvm", False),
                                     ("host-system-lib", "llvm", True),
                                     ("host-c", "c", False)]:
        os.makedirs(os.path.join(work, name), exist_ok=True)
        ex_form = ex if name == "host" else tvm_model.build(target, system_lib)[0]
        m, _ = through(name, ex_form, system_lib, max_stack_alloca=32768)
        if sorted(m["promoted"]) != [3200, 3888]:
            fail(f"{name}: expected TVM's 3888 and 3200-byte workspaces "
                 f"promoted, remarks say {m['promoted']}")
    # micro: limit 0; TVM's stack buffer from the arena.
    os.makedirs(os.path.join(work, "micro"), exist_ok=True)
    m, peaks = through("micro", ex, max_stack_alloca=0)
    if (800, "workspace") not in m["demoted"] or m["promoted"]:
        fail(f"micro: expected the 800-byte buffer demoted and nothing "
             f"promoted, remarks say {m}")
    if peaks.get("workspace", 0) < 800:
        fail(f"micro: the arena's peak is {peaks}, expected at least 800")
    # npu: the ethos-u55 tag, into the application's pool.
    os.makedirs(os.path.join(work, "npu"), exist_ok=True)
    pool_c = os.path.join(work, "npu_sram_pool.c")
    with open(pool_c, "w") as f:
        f.write("#include <scopealloc/scopealloc.h>\n"
                "/* TVM may run kernels on its worker threads: one partition each. */\n"
                "SCOPEALLOC_DEFINE_POOL_SHARED(npu_sram, 8 * 4096, 4096);\n")
    m, peaks = through("npu", ex, addons=[pool_c], policy=npu_policy,
                       target_tag="ethos-u55")
    if (800, "npu_sram") not in m["demoted"] or peaks.get("npu_sram", 0) < 800:
        fail(f"npu: expected the 800-byte buffer in npu_sram, remarks say "
             f"{m['demoted']}, pools {peaks}")

    # The kernels' own frames, plain and under the micro policy: host and
    # a Cortex-M4 (TVM's LLVM target with its triple).
    wrapper = [scopealloc_tvm.compiler()]
    clang = [os.path.join(a.llvm_bin, "clang")]
    limit0 = ["-mllvm", "-scope-alloc-max-stack-alloca=0"]
    frames = kernel_frames(os.path.join(work, "micro", "lib0.bc"), work, "host",
                           clang, wrapper, limit0, a.llvm_bin)
    m4 = ["--target=thumbv7em-none-eabi", "-mcpu=cortex-m4", "-mfloat-abi=hard"]
    m4_dir = os.path.join(work, "cortex-m4")
    os.makedirs(m4_dir, exist_ok=True)
    ex_m4, _ = tvm_model.build({"kind": "llvm", "mtriple": "thumbv7em-none-eabi",
                                "mcpu": "cortex-m4", "mfloat-abi": "hard"})
    ex_m4.export_library(os.path.join(m4_dir, "unused.so"), fcompile=keep_files(m4_dir))
    frames_m4 = kernel_frames(os.path.join(m4_dir, "lib0.bc"), work, "m4",
                              clang + m4, wrapper + m4, limit0, a.llvm_bin)
    for tag, table in [("host", frames), ("cortex-m4", frames_m4)]:
        # The buffer leaves the frame; the arena's pointers may cost spills.
        conv3 = table.get("conv2d2_compute_")
        if not conv3 or conv3[1] is None or conv3[0] - conv3[1] < 400:
            fail(f"{tag}: conv3's frame should lose most of its 800-byte "
                 f"buffer at limit 0, frames are {table}")
        for fn, (p, o) in table.items():
            if o is None or o > p:
                fail(f"{tag}: {fn}'s frame grew at limit 0 ({p} -> {o})")

    # As far as a Cortex-M goes without TVM's runtime: the limit-0 kernels
    # linked into an image (TVM's runtime functions left unresolved: the CRT
    # that defined them is gone) and bounded per packed function.
    m4_obj = os.path.join(work, "m4-scopealloc.o")
    image = os.path.join(work, "cortex-m4-kernels.elf")
    subprocess.run(wrapper + m4 + ["-nostdlib", m4_obj,
                                   "-Wl,--unresolved-symbols=ignore-all",
                                   "-Wl,-e,__tvm_ffi_conv2d2", "-o", image],
                   check=True)
    bound = subprocess.run(
        [os.path.join(a.prefix, "bin", "scopealloc-bound"),
         "--entry=__tvm_ffi_conv2d2", image],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    if not re.search(r"^\s+808\s+conv2d2_compute_", bound, re.M):
        fail(f"cortex-m4: scopealloc-bound should put conv3's 800-byte "
             f"buffer (808 with the frame record) in the workspace pool:\n{bound}")

    # scope: a TIR kernel whose buffers carry annotate_scope('global.sram').
    scope_rows = check_annotated_kernel(scopealloc_tvm, work)

    print("\n| build | workspace calls promoted (B) | kept with TVM | "
          "buffers moved (B, pool) | pool peaks (B) | output |")
    print("|---|---|---|---|---|---|")
    for name, m, peaks, same in rows + scope_rows:
        print(f"| {name} | {len(m['promoted'])}: {sum(m['promoted'])} "
              f"{sorted(m['promoted'])} | {m['kept_calls']} | "
              f"{len(m['demoted'])}: {sorted(m['demoted'])} | "
              f"{peaks} | {'bitwise equal' if same else 'DIFFERENT'} |")
    for tag, table in [("host x86-64", frames), ("Cortex-M4", frames_m4)]:
        print(f"\nKernel frames, {tag}: plain clang -O2 vs scopealloc-clang -O2 at limit 0 (bytes)")
        print("| kernel | plain | limit 0 |\n|---|---:|---:|")
        for fn, (p, o) in table.items():
            print(f"| {fn} | {p} | {o} |")
    print("\nscopealloc-bound of the Cortex-M4 kernels at limit 0 (conv3):")
    print(bound)
    print("PASS", flush=True)


def check_annotated_kernel(scopealloc_tvm, work):
    """annotate_scope on a stack buffer and on a workspace: both in sram."""
    import tvm
    from tvm.script import tirx as T

    @T.prim_func
    def scaled(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "scaled", "tir.noalias": True})
        small = T.alloc_buffer((64,), "float32")    # 256 B: TVM's alloca
        big = T.alloc_buffer((1024,), "float32")    # 4 KiB: TVM's workspace
        T.evaluate(scopealloc_tvm.annotate_scope(small, "global.sram"))
        T.evaluate(scopealloc_tvm.annotate_scope(big, "global.sram"))
        for i in range(64):
            small[i] = A[i] * T.float32(2)
        for i in range(1024):
            big[i] = small[i % 64] + T.float32(i)
        for i in range(64):
            B[i] = small[63 - i] + big[i * 16]

    lib = tvm.tirx.build(tvm.IRModule({"scaled": scaled}), target="llvm")
    pool_c = os.path.join(work, "sram_pool.c")
    with open(pool_c, "w") as f:
        f.write("#include <scopealloc/scopealloc.h>\n"
                "SCOPEALLOC_DEFINE_POOL(sram, 16384);\n")
    f = scopealloc_tvm.fcompile(remarks=True, quiet=True)
    path = os.path.join(work, "scope.so")
    os.makedirs(os.path.join(work, "scope"), exist_ok=True)
    lib.export_library(path, fcompile=f, addons=[pool_c],
                       workspace_dir=os.path.join(work, "scope"))
    code = (
        "import sys, numpy as np, tvm\n"
        "f = tvm.runtime.load_module(sys.argv[1])['scaled']\n"
        "a = np.arange(64, dtype='float32'); b = np.zeros(64, 'float32')\n"
        "ta, tb = tvm.runtime.tensor(a), tvm.runtime.tensor(b)\n"
        "f(ta, tb)\n"
        "want = a[::-1] * 2 + (a[np.arange(64) * 16 % 64] * 2 + np.arange(64) * 16)\n"
        "sys.exit(0 if tb.numpy().tobytes() == want.astype('float32').tobytes() else 3)\n")
    proc = subprocess.run([sys.executable, "-c", code, path],
                          env=dict(os.environ, SCOPEALLOC_STATS="1"),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    m = moved(f.log)
    peaks = pool_peaks(proc.stderr)
    if proc.returncode != 0:
        fail(f"scope: the annotated kernel computed a wrong result or failed "
             f"({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    if m["to_pool"] != [4096] or (256, "sram") not in m["demoted"] \
            or peaks.get("sram", 0) < 4096 + 256:
        fail(f"scope: expected both buffers in pool sram; remarks say {m}, "
             f"pools {peaks}")
    return [("scope (annotate_scope)", m, peaks, True)]


if __name__ == "__main__":
    main()
