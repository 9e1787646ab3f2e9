"""TVM's kernels run on a microcontroller (QEMU netduinoplus2, Cortex-M4F),
through the C harness scopealloc_tvm.micro_harness writes (docs/tvm.md).

  python check_micro.py --prefix <ScopeAlloc install> --work <dir> [--only NAME]

For each model (test/tvm-model's net, and dwnet.py's depthwise-separable
block) and each policy:

  micro  limit 0 (-scope-alloc-max-stack-alloca=0), pool workspace;
  npu    examples/npu-policy.yaml, target ethos-u55: everything in pool
         npu_sram, which the harness places in the linker script's
         .npu_sram section (SRAM2);

TVM builds the model for thumbv7em-none-eabi (the llvm target, and the
`c` target for the first model under micro), scopealloc_tvm.fcompile(...,
output_format="a") compiles its code into an archive, micro_harness writes
the harness, and scopealloc-clang links startup.c, the harness and the
archive with micro.ld. A first link gives scopealloc-bound's worst cases;
the harness is written again with each pool of exactly that size, and the
link checks it against a policy holding those pool-sizes and the stack
bound. QEMU runs the image. Required:

  - the output equal to host TVM's (its Relax VM) bit for bit, or, where
    the harness's expf stands in for the C library's (softmax), within
    4 ulp; each call's result compared with host TVM's by hash;
  - the stack's painted high-water mark within the bound of Reset_Handler
    (its own chain), each packed call's painted stack within the bound of
    its __tvm_ffi_ function;
  - each pool's peak equal to what the link check sized, less the arrays of
    TVM's error paths (__tvm_set_raised_*), which a run without an error
    does not reach;
  - npu: no buffer left on the stack (the remarks), pool npu_sram in
    .npu_sram.

Prints the figures per build; exits non-zero on the first difference, 77
when qemu-system-arm is missing.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
M4_TARGET = {"kind": "llvm", "mtriple": "thumbv7em-none-eabi", "mcpu": "cortex-m4",
             "mfloat-abi": "hard"}
M4 = ["--target=thumbv7em-none-eabi", "-mcpu=cortex-m4", "-mfloat-abi=hard"]
QEMU = ["qemu-system-arm", "-M", "netduinoplus2", "-display", "none", "-serial", "null",
        "-monitor", "none", "-semihosting-config", "enable=on,target=native", "-kernel"]
ULP_TOLERANCE = 4


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def run(cmd, **kw):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kw)
    if proc.returncode != 0:
        fail(f"{' '.join(cmd)} exited with {proc.returncode}:\n{proc.stdout}")
    return proc.stdout


def fnv1a(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def host_reference(mod, args):
    """Host TVM (llvm target, Relax VM): the output and, per packed call of
    a TIR kernel, the hash of its result (its last argument)."""
    import tvm
    from tvm import relax

    ex = relax.build(mod, tvm.target.Target("llvm"))
    vm = relax.VirtualMachine(ex, tvm.cpu())
    hashes = []

    def instrument(func, symbol, before, ret, *call_args):
        if not before and not symbol.startswith("vm.") and call_args:
            hashes.append((symbol, fnv1a(call_args[-1].numpy().tobytes())))
        return 0

    vm.set_instrument(instrument)
    out = vm["forward"](*[tvm.runtime.tensor(a) for a in args]).numpy()
    return out, hashes


def ulps(a, b):
    ia = a.view(np.int32).astype(np.int64)
    ib = b.view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(ia & 0x7FFFFFFF), ia)
    ib = np.where(ib < 0, -(ib & 0x7FFFFFFF), ib)
    return np.abs(ia - ib)


def policy_text(variant, bounds=None, pools=()):
    """The policy of the harness's compile and of the link (with bounds)."""
    if variant == "npu":
        text = open(os.path.join(ROOT, "examples", "npu-policy.yaml")).read()
        tag = "ethos-u55"
    else:
        text = ("version: 1\n" + (f"pools: [{', '.join(pools)}]\n" if pools else "") +
                "targets:\n  tvm-micro:\n    max-stack-alloca: 0\n    frame-budget: 0\n")
        tag = "tvm-micro"
    if bounds:
        stack, pools = bounds
        text = text.rstrip("\n") + "\n" + f"    stack-bound: {stack}\n" + \
            "    pool-sizes: { " + ", ".join(f"{p}: {b}" for p, b in pools.items()) + " }\n"
    return text, tag


def bound(prefix, elf, entries):
    out = run([os.path.join(prefix, "bin", "scopealloc-bound"), "--json"] +
              [f"--entry={e}" for e in entries] + [elf])
    return {e["function"]: e for e in json.loads(out)["entries"]}


def build_variant(a, scopealloc_tvm, h, host, variant, kind, work, model):
    """One model under one policy and target, on QEMU: returns its row."""
    name = f"{model.__name__}-{variant}-{kind}"
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    cc = os.path.join(a.prefix, "bin", "scopealloc-clang")
    policy_file = os.path.join(d, "policy.yaml")
    text, tag = policy_text(variant, pools=getattr(model, "POOLS", ()))
    with open(policy_file, "w") as f:
        f.write(text)
    # TVM's code: the kernels under the policy itself (npu: the example file).
    if variant == "npu":
        kpolicy = dict(policy=os.path.join(ROOT, "examples", "npu-policy.yaml"),
                       target_tag="ethos-u55")
    else:
        kpolicy = dict(max_stack_alloca=0)
    f = scopealloc_tvm.fcompile(options=M4 + ["-ffreestanding"], output_format="a",
                                quiet=True, **kpolicy)
    archive = os.path.join(d, "model.a")
    h.executable.export_library(archive, fcompile=f, workspace_dir=d)
    log = "".join(f.log)
    stayed = re.search(r"stay on the stack: (\d+) buffer", log)
    pool = "npu_sram" if variant == "npu" else "workspace"
    sections = {"npu_sram": ".npu_sram"} if variant == "npu" else {}
    flags = ["-mllvm", f"-scope-alloc-policy={policy_file}", "-mllvm",
             f"-scope-alloc-target={tag}"]
    inc = [f"-I{p}" for p in h.include_dirs()]
    startup = os.path.join(d, "startup.o")
    run([cc] + M4 + ["-ffreestanding", "-O2", "-mllvm", "-scope-alloc-facts-only", "-c",
                     os.path.join(HERE, "startup.c"), "-o", startup])
    entries = ["Reset_Handler"] + sorted({c["symbol"] for c in h.calls})

    def link(pools, elf, link_flags, tamper=None):
        src = os.path.join(d, "harness.c")
        h.write(src, pools=pools, sections=sections)
        if tamper:
            with open(src) as fp:
                text = fp.read()
            with open(src, "w") as fp:
                fp.write(text.replace(*tamper, 1))
        obj = os.path.join(d, "harness.o")
        remarks = run([cc] + M4 + ["-ffreestanding", "-O2"] + inc + flags +
                      ["-Rpass=scope-alloc", "-c", src, "-o", obj])
        run([cc] + M4 + ["-nostdlib", "-T", os.path.join(HERE, "micro.ld"),
                         "-Wl,--gc-sections"] + link_flags + [startup, obj, archive,
                                                              "-o", elf])
        return remarks

    # 1. Generous pools: what do the bounds say?
    first = os.path.join(d, "sizing.elf")
    generous = {p: 16384 for p in (pool,) + getattr(model, "POOLS", ())}
    link(generous, first, flags)
    b = bound(a.prefix, first, entries)
    reset = b["Reset_Handler"]
    sized = {p: v["bytes"] for p, v in reset["pools"].items() if v["bounded"]}
    if not reset["stack"]["bounded"] or pool not in sized:
        fail(f"{name}: Reset_Handler is not bounded: {json.dumps(reset)[:2000]}")
    if variant == "micro" and kind == "llvm":
        # tvm-ffi's error function: the harness's stub reports and stops.
        # The input's shape spoilt (its last dimension one more): the first
        # kernel's argument check fails.
        dims = h.tensors[next(iter(h.tensors))]["shape"]
        shape = ", ".join(str(n) for n in dims)
        spoilt = ", ".join(str(n) for n in dims[:-1] + [dims[-1] + 1])
        bad = os.path.join(d, "error.elf")
        link(generous, bad, flags, tamper=(f"sa_t0_shape[{len(dims)}] = {{{shape}}}",
                                           f"sa_t0_shape[{len(dims)}] = {{{spoilt}}}"))
        proc = subprocess.run(["timeout", "120"] + QEMU + [bad], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 1 or not proc.stdout.startswith("tvm-ffi error: ValueError: ") \
                or "output" in proc.stdout:
            fail(f"{name}: a wrong input shape should stop at tvm-ffi's error "
                 f"({proc.returncode}):\n{proc.stdout}")
        print(f"  {name}, input shape ({spoilt}): {proc.stdout.strip()[:160]}...", flush=True)
    # 2. Pools of exactly that size, and a link that checks them.
    bounded_text, _ = policy_text(variant, (reset["stack"]["bytes"], sized),
                                  getattr(model, "POOLS", ()))
    checked_policy = os.path.join(d, "policy-bounds.yaml")
    with open(checked_policy, "w") as fp:
        fp.write(bounded_text)
    elf = os.path.join(d, "fw.elf")
    check_flags = ["-mllvm", f"-scope-alloc-policy={checked_policy}", "-mllvm",
                   f"-scope-alloc-target={tag}"]
    harness_remarks = link(sized, elf, check_flags)
    b = bound(a.prefix, elf, entries)
    reset = b["Reset_Handler"]
    proc = subprocess.run(["timeout", "120"] + QEMU + [elf], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    out = proc.stdout
    if proc.returncode != 0:
        fail(f"{name}: the image failed on QEMU ({proc.returncode}):\n{out}")
    m = re.search(r"^output \S+ float32 \S+:((?: 0x[0-9a-f]{8})+)$", out, re.M)
    if not m:
        fail(f"{name}: no output line:\n{out}")
    device = np.array([int(x, 16) for x in m.group(1).split()], dtype=np.uint32).view(np.float32)
    want, host_hashes = host
    want = want.reshape(-1)
    diff = ulps(device, want)
    exact = device.tobytes() == want.tobytes()
    if not exact and (not h.need_expf or diff.max() > ULP_TOLERANCE):
        fail(f"{name}: output differs from host TVM's by up to {diff.max()} ulp\n"
             f"  device {device}\n  host   {want}")
    calls = [(c.group(2), int(c.group(3)), int(c.group(4)), int(c.group(5), 16))
             for c in re.finditer(r"^call (\d+) (\w+): stack (\d+), workspace (\d+), "
                                  r"result fnv1a 0x([0-9a-f]+)$", out, re.M)]
    if [c[0] for c in calls] != [s for s, _ in host_hashes]:
        fail(f"{name}: the calls {[c[0] for c in calls]} are not host TVM's "
             f"{[s for s, _ in host_hashes]}")
    per_kernel = []
    for (kernel, stack, ws, hsh), (_, host_hash) in zip(calls, host_hashes):
        e = b["__tvm_ffi_" + kernel]["stack"]
        kbound = e.get("own_bytes", e["bytes"])
        if not e["bounded"] or stack > kbound:
            fail(f"{name}: {kernel} used {stack} bytes of stack, over its bound {kbound}")
        per_kernel.append((kernel, stack, kbound, ws, hsh == host_hash))
    hw = int(re.search(r"^stack high-water: (\d+) bytes$", out, re.M).group(1))
    own = reset["stack"].get("own_bytes", reset["stack"]["bytes"])
    if hw > own:
        fail(f"{name}: stack high-water {hw} over the bound {own}")
    peaks = {p.group(1): (int(p.group(2)), int(p.group(3)))
             for p in re.finditer(r"^pool (\w+): peak (\d+), capacity (\d+), current 0",
                                  out, re.M)}
    pool_rows = []
    for p, size in sized.items():
        chain = reset["pools"][p]["chain"]
        error_path = sum(s["bytes"] for s in chain
                         if s["function"].startswith("__tvm_set_raised_"))
        peak, capacity = peaks.get(p, (None, None))
        # The bound also counts what a 64-byte aligned frame (TVM's
        # buffers) may need to reach its alignment from the pool's 8: 56.
        padding = size - error_path - (peak or 0)
        if capacity != size or peak is None or padding not in (0, 56):
            fail(f"{name}: pool {p}: peak {peak} (capacity {capacity}) is not the "
                 f"{size} bytes the link check sized less the error paths' {error_path}"
                 f" (and at most 56 of alignment)\n{out}")
        pool_rows.append((p, peak, size, error_path, padding))
    if getattr(model, "POOLS", ()):
        # Workspaces with a pool's scope: no array in the harness, both
        # buffers (256 + 4096 B) in the pool, no call through TVM's slot.
        if any(k[3] for k in per_kernel) or peaks.get("sram", (0,))[0] < 4352 or \
                "TVMBackendAllocWorkspace" in str(b["Reset_Handler"]["pools"]):
            fail(f"{name}: the scoped workspace should be in pool sram, not the "
                 f"harness's array: {per_kernel}, {peaks}")
    if variant == "npu":
        left = re.findall(r"remark: .* stays on the stack.*", log + harness_remarks)
        if (stayed and int(stayed.group(1))) or left:
            fail(f"{name}: buffers left on the stack under the NPU policy: {left or stayed.group(0)}")
        sym = run([os.path.join(a.prefix, "bin", "scopealloc-llvm-objdump"), "-t", elf])
        line = [l for l in sym.splitlines() if l.endswith(" scopealloc_buffer_npu_sram")]
        if not line or ".npu_sram" not in line[0] or not line[0].startswith("2001c"):
            fail(f"{name}: pool npu_sram is not in .npu_sram at 0x2001c000: {line}")
    return {"name": name, "device": device, "host": want, "exact": exact,
            "max_ulp": int(diff.max()), "per_kernel": per_kernel, "hw": hw,
            "own": own, "stack_bound": reset["stack"]["bytes"], "pools": pool_rows}


DOC_MARK = re.compile(r"^<!--\s*tvm-micro:\s*(\w+)\s*(.*?)\s*-->\s*$")


def check_docs(a, work):
    """Runs the blocks of docs/tvm.md marked <!-- tvm-micro: ... -->, in
    order, in a fresh directory: `file NAME` writes the next fenced block,
    `commands` runs it with sh -e, `output run: CMD` requires CMD to print
    exactly the block. $P is the installed tree, $S the source tree; the
    virtual environment's python3 comes first on PATH. Returns the outputs."""
    d = os.path.join(work, "docs")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    env = dict(os.environ, P=a.prefix, S=ROOT,
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    env = {k: v for k, v in env.items() if not k.startswith("SCOPEALLOC_")}
    lines = open(os.path.join(ROOT, "docs", "tvm.md")).read().split("\n")
    outputs, i, blocks = [], 0, 0
    while i < len(lines):
        m = DOC_MARK.match(lines[i])
        i += 1
        if not m:
            continue
        while not lines[i].startswith("```"):
            i += 1
        j = i + 1
        while not lines[j].startswith("```"):
            j += 1
        body = "\n".join(lines[i + 1:j]) + "\n"
        where = f"docs/tvm.md:{i + 1}"
        i = j + 1
        blocks += 1
        kind, arg = m.group(1), m.group(2)
        if kind == "file":
            with open(os.path.join(d, arg), "w") as f:
                f.write(body)
        elif kind == "commands":
            proc = subprocess.run(["sh", "-ec", body], cwd=d, env=env, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if proc.returncode != 0:
                fail(f"{where}: the commands failed ({proc.returncode}):\n{proc.stdout}")
        elif kind == "output" and arg.startswith("run:"):
            proc = subprocess.run(["sh", "-c", arg[4:].strip()], cwd=d, env=env, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            got = "".join(l.rstrip() + "\n" for l in proc.stdout.splitlines())
            outputs.append(got)
            if got.rstrip("\n") != body.rstrip("\n"):
                fail(f"{where}: `{arg[4:].strip()}` prints\n{got}\nnot what the page says:\n{body}")
        else:
            fail(f"{where}: unknown tvm-micro marker {kind}")
    if blocks < 5:
        fail(f"docs/tvm.md has {blocks} tvm-micro blocks, expected the 5 of its Cortex-M steps")
    # What the page says of a pool below the worst case: the link fails.
    with open(os.path.join(d, "micro.yaml")) as f:
        text = f.read()
    with open(os.path.join(d, "small.yaml"), "w") as f:
        f.write(text.replace("workspace: 4008", "workspace: 4000"))
    proc = subprocess.run(
        ["sh", "-c", "$P/bin/scopealloc-clang --target=thumbv7em-none-eabi -mcpu=cortex-m4 "
         "-mfloat-abi=hard -nostdlib -T micro.ld -Wl,--gc-sections -mllvm "
         "-scope-alloc-policy=small.yaml -mllvm -scope-alloc-target=tvm-micro "
         "startup.o harness.o model.a -o small.elf"],
        cwd=d, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if proc.returncode == 0 or "pool workspace" not in proc.stdout or \
            "sa_call0" not in proc.stdout:
        fail(f"a link with pool-sizes workspace 4000 should fail naming the pool and "
             f"its chain ({proc.returncode}):\n{proc.stdout}")
    print(f"docs/tvm.md: {blocks} blocks run; a pool of 4000 bytes fails the link:\n  "
          + next(l for l in proc.stdout.splitlines() if "pool workspace" in l), flush=True)
    return outputs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--only", help="build only the variants whose name contains this "
                    "(\"docs\": only the blocks of docs/tvm.md)")
    a = ap.parse_args()
    if not shutil.which("qemu-system-arm"):
        print("tvm-micro: qemu-system-arm not found (scripts/setup.sh installs it): skipped")
        sys.exit(77)
    a.prefix = os.path.abspath(a.prefix)
    os.environ["SCOPEALLOC_PREFIX"] = a.prefix
    sys.path.insert(0, os.path.join(a.prefix, "share", "scopealloc", "python"))
    sys.path.insert(0, os.path.join(ROOT, "test", "tvm-model"))
    sys.path.insert(0, HERE)
    import scopealloc_tvm
    import tvm
    import tvm_model
    import dwnet
    import scoped

    print(f"TVM {tvm.__version__}, ScopeAlloc at {a.prefix}", flush=True)
    os.makedirs(a.work, exist_ok=True)
    rows = []
    plan = [(tvm_model, "micro", "llvm"), (tvm_model, "npu", "llvm"),
            (dwnet, "micro", "llvm"), (dwnet, "npu", "llvm"), (tvm_model, "micro", "c"),
            (scoped, "micro", "llvm")]
    if a.only == "docs":
        plan = []
        check_docs(a, a.work)
    hosts, harnesses = {}, {}   # one TVM build per model and target
    for model, variant, kind in plan:
        name = f"{model.__name__}-{variant}-{kind}"
        if a.only and a.only not in name:
            continue
        mod, params = model.relax_module()
        args = model.arguments(params)
        if model not in hosts:
            hosts[model] = host_reference(mod, args)
        if (model, kind) not in harnesses:
            harnesses[model, kind] = scopealloc_tvm.micro_harness(
                mod, args[1:], args[:1], M4_TARGET if kind == "llvm" else "c")
        row = build_variant(a, scopealloc_tvm, harnesses[model, kind], hosts[model],
                            variant, kind, a.work, model)
        rows.append(row)
        print(f"\n== {name}: passed", flush=True)
        print("  output (device): " + " ".join(f"{v:.9g}" for v in row["device"]))
        print("  output (host):   " + " ".join(f"{v:.9g}" for v in row["host"]))
        print(f"  {'bitwise equal' if row['exact'] else 'max ' + str(row['max_ulp']) + ' ulp'}"
              " to host TVM's")
        print(f"  stack high-water {row['hw']} B, bound {row['own']} B "
              f"({row['stack_bound']} with the fault handlers)")
        for p, peak, size, err, pad in row["pools"]:
            print(f"  pool {p}: peak {peak} B, sized by the link check {size} B "
                  f"(= peak + {err} B of TVM's error paths"
                  + (f" + {pad} B a 64-byte aligned frame may need)" if pad else ")"))
        print("  | kernel | painted stack (B) | bound (B) | workspace array (B) | result vs host |")
        print("  |---|---:|---:|---:|---|")
        for kernel, stack, kb, ws, same in row["per_kernel"]:
            print(f"  | {kernel} | {stack} | {kb} | {ws} | {'bitwise' if same else 'differs'} |")
    if not a.only:
        check_docs(a, a.work)
    print("\nPASS", flush=True)


if __name__ == "__main__":
    main()
