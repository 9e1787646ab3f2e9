"""ScopeAlloc for Apache TVM: build TVM's modules through scopealloc-clang.

TVM decides by itself that a constant CPU buffer under 1024 bytes is an
alloca and that every other buffer is a TVMBackendAllocWorkspace call
(LowerTVMBuiltin's kMaxStackAlloca). With this module the target's policy
decides instead, at the link of the exported library:

    import scopealloc_tvm
    lib = tvm.compile(mod, target="llvm")
    lib.export_library("model.so", fcompile=scopealloc_tvm.fcompile(
        policy="host.yaml"))            # or max_stack_alloca=0, target_tag=...

export_library then writes the modules as LLVM bitcode (object_format
"bc") or C (the `c` target) and this fcompile links them with
scopealloc-clang: workspace calls within the limit become stack buffers
(also those made through TVM's @__TVMBackendAllocWorkspace slot), stack
buffers over it come from ScopeAlloc's per-thread arena, and the calls
that stay still reach TVM's own allocator. Installed in
<prefix>/share/scopealloc/python (put it on PYTHONPATH); it needs nothing
but the Python standard library and the installed ScopeAlloc.

annotate_scope(buffer, scope) gives one TIR buffer a scope that reaches the
pass (docs/code-generators.md#tvm).

On a microcontroller, where TVM 0.27 has no runtime: micro_harness(mod,
params, inputs, target) builds the model with TVM and writes a C harness
that makes the packed calls TVM's Relax VM would make, and
fcompile(..., output_format="a") compiles TVM's code into a static archive
for the firmware's own link (docs/tvm.md#on-a-cortex-m-how-to-run-it-there).
"""

import os
import re
import shlex
import subprocess

__all__ = ["fcompile", "annotate_scope", "micro_harness", "prefix", "compiler"]

# This file sits in <prefix>/share/scopealloc/python.
_PREFIX = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
)


def prefix():
    """The ScopeAlloc installation this module belongs to."""
    return os.environ.get("SCOPEALLOC_PREFIX", _PREFIX)


def compiler(cxx=False):
    """The installed wrapper, scopealloc-clang (or scopealloc-clang++)."""
    name = "scopealloc-clang++" if cxx else "scopealloc-clang"
    path = os.path.join(prefix(), "bin", name)
    if not os.access(path, os.X_OK):
        raise RuntimeError(
            f"scopealloc_tvm: {path} is not an installed ScopeAlloc wrapper; "
            "set SCOPEALLOC_PREFIX to the prefix of `cmake --install`"
        )
    return path


def _policy_flags(policy, target_tag, max_stack_alloca, frame_budget):
    flags = []
    if policy is not None:
        policy = os.path.abspath(os.fspath(policy))
        if not os.path.isfile(policy):
            raise FileNotFoundError(f"scopealloc_tvm: policy file {policy} does not exist")
        flags += ["-mllvm", f"-scope-alloc-policy={policy}"]
    if target_tag is not None:
        flags += ["-mllvm", f"-scope-alloc-target={target_tag}"]
    if max_stack_alloca is not None:
        flags += ["-mllvm", f"-scope-alloc-max-stack-alloca={int(max_stack_alloca)}"]
    if frame_budget is not None:
        flags += ["-mllvm", f"-scope-alloc-frame-budget={int(frame_budget)}"]
    return flags


# The pass's remarks (-Rpass=scope-alloc, -Rpass-missed=scope-alloc) on TVM's
# code. TVM's IR has no source locations, and clang spells that three ways:
# "remark: IRModule.CodeGenLLVM:0:0: ...", "IRModule.CodeGenLLVM:0:0: remark:
# ..." and "<unknown>:0:0: remark: ...". All become "remark: ...".
_NO_LOCATION = re.compile(r"^(?:remark: )?(?:[^\s:]+|<unknown>):0:0: (?:remark: )?")
# TVM's C (the `c` target) has them: "lib0.c:92:5: remark: ...".
_LOCATED = re.compile(r"^[^\s:]+\.(?:c|cc|cpp):\d+:\d+: remark: ")
_WORKSPACE_CALL = re.compile(
    r"^remark: workspace call '%?([^']*)' in '([^']*)' \([^)]*\) "
    r"(promoted|moved to pool '([^']*)'|not promoted)(.*)$")
_BUFFER = re.compile(
    r"^remark: '([^']*)' in '([^']*)'[^(]* \((?:(\d+) bytes|dynamic size)[^)]*\) "
    r"(moved to pool '([^']*)'|stays on the stack)")
_POOL_SYMBOL = "__scopealloc_pool_"
# The runtime's functions, not pools (analysis/Scope.cpp isReservedPoolName).
_RUNTIME_POOL_FUNCTIONS = {"mark", "alloc", "release"}


def _placements(remarks):
    """What moved, and what stayed, from the remarks of one link: a list of
    {"kernel", "buffer", "bytes", "from", "to"} for each buffer that moved
    (bytes None for a run-time size), and of {"kernel", "buffer", "bytes",
    "place"} for each that stayed where TVM put it."""
    moved, stayed, promoted = [], [], set()
    for line in remarks:
        m = _WORKSPACE_CALL.match(line)
        if m:
            buffer, kernel, verdict, pool, rest = m.groups()
            size = re.search(r"(\d+) bytes", rest)
            size = int(size.group(1)) if size else None
            if verdict == "promoted":
                promoted.add((kernel, buffer))
                moved.append({"kernel": kernel, "buffer": buffer, "bytes": size,
                              "from": "TVM workspace", "to": "stack"})
            elif pool is not None:
                sized = re.search(r"(\d+) bytes become", rest)
                moved.append({"kernel": kernel, "buffer": buffer,
                              "bytes": int(sized.group(1)) if sized else size,
                              "from": "TVM workspace", "to": f"pool {pool}"})
            else:
                stayed.append({"kernel": kernel, "buffer": buffer, "bytes": size,
                               "place": "TVM workspace"})
            continue
        m = _BUFFER.match(line)
        if m:
            buffer, kernel, size, verdict, pool = m.groups()
            size = int(size) if size else None
            if pool is not None:
                moved.append({"kernel": kernel, "buffer": buffer, "bytes": size,
                              "from": "stack", "to": f"pool {pool}"})
            elif (kernel, buffer.lstrip("%")) not in promoted:
                # A promoted workspace call's buffer stays: said above.
                stayed.append({"kernel": kernel, "buffer": buffer, "bytes": size,
                               "place": "stack"})
    return moved, stayed


def _summary(output, moved, stayed):
    """The summary remarks=True prints: per kernel, what moved where."""
    def size(b):
        return "run-time size" if b is None else f"{b} B"
    name = os.path.basename(os.fspath(output))
    lines = [f"scopealloc_tvm: {name}: {len(moved)} buffer"
             f"{'' if len(moved) == 1 else 's'} moved"]
    if moved:
        rows = [(m["kernel"], m["buffer"], size(m["bytes"]), m["from"] + " -> " + m["to"])
                for m in moved]
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        for r in rows:
            lines.append(f"  {r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  "
                         f"{r[2]:>{widths[2]}}  {r[3]}")
    for place in ("TVM workspace", "stack"):
        kept = [s for s in stayed if s["place"] == place]
        if kept:
            total = sum(s["bytes"] or 0 for s in kept)
            where = "with TVM's workspace allocator" if place == "TVM workspace" \
                else "on the stack"
            lines.append(f"  stay {where}: {len(kept)} buffer"
                         f"{'' if len(kept) == 1 else 's'}, {total} B")
    return "\n".join(lines) + "\n"


def _undefined_pools(output):
    """The pools the library uses and nothing in it defines."""
    nm = os.path.join(prefix(), "bin", "scopealloc-llvm-nm")
    proc = subprocess.run(
        [nm, "-D", "--undefined-only", "--format=just-symbols", os.fspath(output)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"scopealloc_tvm: cannot read the symbols of {output}: "
                           f"{proc.stderr.strip()}")
    pools = []
    for sym in proc.stdout.split():
        if sym.startswith(_POOL_SYMBOL):
            pool = sym[len(_POOL_SYMBOL):]
            if pool not in _RUNTIME_POOL_FUNCTIONS:
                pools.append(pool)
    return pools


def _missing_pools_message(output, pools):
    name = os.path.basename(os.fspath(output))
    first = pools[0]
    listed = ", ".join(f"'{p}'" for p in pools)
    defines = "\n".join(
        f"      SCOPEALLOC_DEFINE_POOL_SHARED({p}, 8 * 4096, 4096);"
        "   /* 8 threads, 4096 B each */" for p in pools)
    return (
        f"scopealloc_tvm: {name} uses pool{'s' if len(pools) > 1 else ''} {listed}, "
        "which nothing in the export defines: loading it would fail with "
        f"\"undefined symbol: {_POOL_SYMBOL}{first}\". Define "
        f"{'them' if len(pools) > 1 else 'it'} in a C file and give that file "
        "to export_library:\n"
        f"  export_library(\"{name}\", fcompile=..., addons=[\"pools.c\"])\n"
        "  pools.c:\n"
        "      #include <scopealloc/scopealloc.h>\n"
        f"{defines}"
    )


_MATH_SHIM = """/* scopealloc_tvm: what TVM's C code needs of <math.h>, for a firmware
 * without a C library (-idirafter: a real <math.h> comes first). The
 * functions are the firmware's to define (micro_harness defines expf). */
#ifndef SCOPEALLOC_TVM_MATH_SHIM_H
#define SCOPEALLOC_TVM_MATH_SHIM_H
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#define HUGE_VAL __builtin_huge_val()
#define HUGE_VALF __builtin_huge_valf()
""" + "".join(f"{t} {f}{s}({', '.join([t] * n)});\n"
              for f, n in [("exp", 1), ("exp2", 1), ("log", 1), ("log2", 1), ("log10", 1),
                           ("sqrt", 1), ("tanh", 1), ("sin", 1), ("cos", 1), ("tan", 1),
                           ("erf", 1), ("fabs", 1), ("floor", 1), ("ceil", 1),
                           ("round", 1), ("trunc", 1), ("nearbyint", 1), ("pow", 2),
                           ("fmod", 2), ("fmax", 2), ("fmin", 2), ("atan2", 2)]
              for t, s in [("double", ""), ("float", "f")]) + "#endif\n"


def _math_shim(directory):
    """A directory with the <math.h> of _MATH_SHIM in it."""
    shim = os.path.join(directory, "scopealloc-tvm-include")
    os.makedirs(shim, exist_ok=True)
    with open(os.path.join(shim, "math.h"), "w") as f:
        f.write(_MATH_SHIM)
    return shim


def fcompile(
    policy=None,
    target_tag=None,
    max_stack_alloca=None,
    frame_budget=None,
    options=(),
    opt_level="-O2",
    remarks=False,
    quiet=False,
    env=None,
    output_format="so",
):
    """An fcompile for Module.export_library that links through ScopeAlloc.

    policy: a policy file; target_tag: a target tag of it (or a built-in
    one); max_stack_alloca, frame_budget: the command-line overrides in
    bytes; options: more arguments for scopealloc-clang (e.g. a --target
    and -mcpu when TVM's target is not the host).

    remarks: False prints nothing about placement; True prints, after each
    link, a summary: per kernel, each buffer that moved, from where to where,
    and its bytes, then how many stay where TVM put them; "all" prints every
    remark of the pass first (one per buffer, also those that stay).

    quiet: print nothing (not even the compiler's warnings). Whatever
    remarks and quiet say, the returned function keeps, per link, in `log`
    (a list, one text per link) the compiler's warnings, every remark and
    the summary; and in `placements` (a list of dicts with "kernel",
    "buffer", "bytes", "from", "to") every buffer that moved.

    A library that uses a pool the export does not define (a policy's
    named pool without the addons= file that defines it) fails the export,
    with the lines to add, instead of failing when TVM loads it.

    output_format="a": a cross build for a firmware's own link. Each file
    export_library writes (the kernels' bitcode, TVM's C) is compiled with
    `-c` (objects beside it, also listed in `objects`) and the objects go
    into a static archive, `output` (e.g. "model.a"), with
    scopealloc-llvm-ar. Nothing is linked, so no pool is checked: the
    firmware defines its pools and its link checks them. Give the target in
    options, e.g. ["--target=thumbv7em-none-eabi", "-mcpu=cortex-m4",
    "-mfloat-abi=hard"].
    """
    if output_format not in ("so", "a"):
        raise ValueError(f"scopealloc_tvm: output_format={output_format!r}: expected \"so\" or \"a\"")
    if remarks not in (False, True, "all"):
        raise ValueError(f"scopealloc_tvm: remarks={remarks!r}: expected False, True or \"all\"")
    flags = _policy_flags(policy, target_tag, max_stack_alloca, frame_budget)
    flags += list(options)
    # Always: the summary and `placements` come from the remarks.
    flags += ["-Rpass=scope-alloc", "-Rpass-missed=scope-alloc"]

    def _compile_archive(cc_path, output, sources, extra):
        """Each source to an object (-c), all into the archive `output`."""
        outputs, objs = [], []
        for src in sources:
            src = os.fspath(src)
            obj = os.path.splitext(src)[0] + ".o"
            more = []
            if src.endswith(".c"):
                # TVM's C includes <math.h>, which a bare-metal target
                # without a C library lacks: declarations, searched last.
                more = ["-idirafter", _math_shim(os.path.dirname(os.path.abspath(src)))]
            cmd = [cc_path, "-c", opt_level, "-Wno-override-module"] + flags + \
                list(extra) + more + [src, "-o", obj]
            proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
            outputs.append(proc.stdout)
            if proc.returncode != 0:
                return proc, cmd
            objs.append(obj)
        if os.path.exists(output):
            os.remove(output)
        ar = os.path.join(prefix(), "bin", "scopealloc-llvm-ar")
        cmd = [ar, "rcs", os.fspath(output)] + objs
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        _compile.objects.extend(objs)
        proc.stdout = "".join(outputs) + proc.stdout
        return proc, cmd

    def _compile(output, objects, options=None, cc=None, **_):
        # export_library adds TVM's include directories for C modules.
        extra = options if isinstance(options, (list, tuple)) else (
            [options] if options else [])
        cc_path = compiler(cxx=cc is not None and cc.endswith("++"))
        if output_format == "a":
            proc, cmd = _compile_archive(cc_path, output, objects, extra)
        else:
            cmd = [cc_path]
            # TVM writes its LLVM's host triple (x86_64-conda-linux-gnu for the
            # PyPI wheel); the wrapper's target of the same machine replaces it.
            cmd += ["-shared", "-fPIC", opt_level, "-Wno-override-module"]
            cmd += flags + list(extra)
            cmd += [os.fspath(o) for o in objects] + ["-o", os.fspath(output)]
            proc = subprocess.run(
                cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            )
        lines = [_LOCATED.sub("remark: ", _NO_LOCATION.sub("remark: ", l))
                 for l in proc.stdout.splitlines()]
        said = [l for l in lines if l.startswith("remark: ")]
        other = [l for l in lines if not l.startswith("remark: ")]
        moved, stayed = _placements(said)
        summary = _summary(output, moved, stayed)
        other_text = "".join(l + "\n" for l in other)
        remark_text = "".join(l + "\n" for l in said)
        _compile.log.append(other_text + remark_text + summary)
        _compile.placements.extend(moved)
        if not quiet:
            shown = other_text
            if remarks == "all":
                shown += remark_text
            if remarks:
                shown += summary
            print(shown, end="", flush=True)
        if proc.returncode != 0:
            raise RuntimeError(
                "scopealloc_tvm: the link failed:\n  " + shlex.join(cmd)
            )
        if output_format == "a":
            return
        pools = _undefined_pools(output)
        if pools:
            os.remove(output)
            raise RuntimeError(_missing_pools_message(output, pools))

    # Per link: the compiler's warnings, the remarks and the summary.
    _compile.log = []
    # Every buffer that moved, over all links.
    _compile.placements = []
    # The objects of a cross build (output_format="a"), over all exports.
    _compile.objects = []
    # export_library writes LLVM modules in this format (C modules as C).
    _compile.object_format = "bc"
    _compile.output_format = output_format
    return _compile


def annotate_scope(buffer, scope):
    """A TIR statement that gives `buffer` a ScopeAlloc scope.

    Put it in the PrimFunc after the buffer's allocation, e.g. in TVMScript:

        pad = T.alloc_buffer((4, 18, 18), "float32")
        T.evaluate(scopealloc_tvm.annotate_scope(pad, "global.sram"))

    TVM's LLVM codegen emits it as llvm.var.annotation(ptr, "scope:<scope>"),
    which the pass reads on an alloca and on a workspace call alike (the
    same call clang emits for __attribute__((annotate("scope:..."))) on a
    local). The scope wins over the policy's size rule: "global.<pool>"
    puts the buffer in that pool, "global.stack" keeps it on the stack,
    "global.workspace" in ScopeAlloc's default pool.
    """
    import tvm  # imported here: the fcompile needs no TVM

    tirx = tvm.tirx
    data = buffer.data if hasattr(buffer, "data") else buffer
    return tirx.call_llvm_intrin(
        "void",
        "llvm.var.annotation",
        data,
        tvm.ir.StringImm("scope:" + scope),
        tvm.ir.StringImm("tvm"),
        tirx.const(0, "int32"),
        tirx.reinterpret("handle", tirx.const(0, "uint64")),
    )


# ---------------------------------------------------------------------------
# micro_harness: TVM's kernels on a microcontroller, without TVM's runtime.

_MICRO_SKIPPED_OPS = {"relax.null_value", "relax.vm.kill_object"}
_MICRO_SKIPPED_PACKED = {"vm.builtin.check_tensor_info", "vm.builtin.match_shape"}


def _ir_name(v):
    for attr in ("name", "name_hint"):
        n = getattr(v, attr, None)
        if isinstance(n, str) and n:
            return n
    return str(v)


def _c_ident(text):
    return re.sub(r"\W", "_", text)


def _ints(shape_expr):
    return [int(v) for v in shape_expr.values]


def _dtype_text(const):
    m = re.search(r'dtype\("([^"]+)"\)', str(const))
    if m:
        return m.group(1)
    return str(getattr(const, "value", const))


def _workspaces(source, kind):
    """{kernel: [constant sizes of its TVMBackendAllocWorkspace calls]} from
    the compiled module's source (LLVM IR of the llvm target, C of `c`);
    a size TVM does not know until run time is None."""
    found = {}
    if kind == "llvm":
        # scopealloc_tvm.annotate_scope on a workspace: llvm.var.annotation
        # of the call's result with "scope:<scope>". A pool's scope (or the
        # stack's) makes the call a buffer of that pool (or the stack) in
        # the pass: the harness leaves it out.
        scopes = dict(re.findall(r'^@([\w.$]+) = [^\n]*c"scope:([^"\\]*)\\00"', source, re.M))
        for m in re.finditer(r"^define [^@\n]*@([\w.$]+)\(.*?^}$", source, re.M | re.S):
            body = m.group(0)
            if "@__TVMBackendAllocWorkspace" not in body and \
                    "@TVMBackendAllocWorkspace" not in body:
                continue
            scoped = {v: scopes[g] for v, g in re.findall(
                r"@llvm\.var\.annotation[\w.]*\(ptr (?:nonnull )?(%[\w.]+), "
                r"ptr (?:nonnull )?@([\w.$]+)", body) if g in scopes}
            sizes = []
            for call in re.finditer(r"(%[\w.]+) = (?:tail )?call (?:noalias )?ptr "
                                    r"(%[\w.]+|@TVMBackendAllocWorkspace)"
                                    r"\(i32 [^,]+, i32 [^,]+, i64 ([^,]+),", body):
                result, callee, size = call.groups()
                if scoped.get(result, "global.workspace") not in ("global.workspace", "global"):
                    continue
                sizes.append(int(size) if size.isdigit() else None)
            if sizes:
                found[m.group(1)] = sizes
    else:
        current = None
        for line in source.splitlines():
            d = re.match(r"^[A-Za-z_][\w \*]*?\b(\w+)\(.*\)\s*\{\s*$", line)
            if d:
                current = d.group(1)
            for call in re.finditer(r"TVMBackendAllocWorkspace\(\d+, \w+, \(uint64_t\)(\w+?)(?:ULL)?, ", line):
                size = call.group(1)
                found.setdefault(current, []).append(int(size) if size.isdigit() else None)
    kernels = {}
    for fn, sizes in found.items():
        kernel = fn[len("__tvm_ffi_"):] if fn.startswith("__tvm_ffi_") else \
            re.sub(r"_compute_$", "", fn)
        kernels.setdefault(kernel, []).extend(sizes)
    return kernels


def _align(n, a=64):
    return (n + a - 1) // a * a


class MicroHarness:
    """What micro_harness found in a built model, and the C it writes.

    executable: TVM's build (relax.build of `lowered`); export it with
    export_library(path, fcompile=fcompile(..., output_format="a")) for
    the firmware's link. lowered: the Relax module after TVM's default
    build pipeline, whose function the harness replays. calls: one dict per
    packed call, in order: "kernel", "symbol" (__tvm_ffi_<kernel>),
    "args" (tensor names), "workspace" (bytes the harness reserves for
    TVM's workspace calls of that kernel), "workspaces" (their sizes).
    output: {"name", "shape", "dtype"} of the function's result.
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def source(self, pools=None, sections=None, stack_marks=True, builtins=True):
        """The harness, C for the firmware's own build.

        pools: {pool: bytes} to define in the harness (SCOPEALLOC_DEFINE_POOL;
        leave out pools the firmware defines); sections: {pool: section}
        for those to place in a linker-script section (e.g. {"npu_sram":
        ".npu_sram"}); stack_marks: paint the stack below each packed call
        and print what the call used (needs the linker script's
        __stack_bottom and __stack_top, and an Arm core); builtins: define
        what TVM's code calls and a firmware without a C library lacks
        (expf, memcpy/memset and the __aeabi_ forms, the unwinder's
        personality stubs).
        """
        return _harness_source(self, pools or {}, sections or {}, stack_marks, builtins)

    def write(self, path, **kw):
        with open(path, "w") as f:
            f.write(self.source(**kw))
        return path

    @staticmethod
    def include_dirs():
        """Where the harness's <tvm/ffi/c_api.h> and <dlpack/dlpack.h> are."""
        import tvm_ffi.libinfo as li
        return [li.find_include_path(), li.find_dlpack_include_path()]


def micro_harness(mod, params, inputs, target, function="forward", name=None):
    """Builds `mod` with TVM for `target` and writes the C harness that runs
    its `function` on a microcontroller, without TVM's runtime.

    mod: the Relax IRModule (as for relax.build); inputs: the function's
    inputs (numpy arrays, in order); params: the rest of its parameters
    (numpy arrays in order, or {name: array}); target: TVM's target (a
    tvm.target.Target, or what Target() takes, e.g. {"kind": "llvm",
    "mtriple": "thumbv7em-none-eabi", "mcpu": "cortex-m4", "mfloat-abi":
    "hard"}, or "c").

    TVM runs its default build pipeline; the function is then the sequence
    the Relax VM would run: storage of a planned size, tensors at offsets
    in it, packed calls of the kernels (TVM's call_tir), reshapes that are
    views. The harness has each storage as a static array, each input and
    parameter as a constant array (the values given, bit for bit), the
    TVMFFIAny arguments of each packed call as constants, and one wrapper
    per call that holds the kernel's TVM workspaces in a local array (which
    the policy places: limit 0 puts it in its pool) and hands them out
    through TVMBackendAllocWorkspace, which fills TVM's slots
    (@__TVMBackendAllocWorkspace) for the llvm target and is called
    directly by the `c` target. TVMFFIErrorSetRaisedFromCStrParts prints the
    error and stops. main() runs the calls, then prints each call's stack
    and a hash of its output, the output bit for bit, the pools and the
    stack's high-water mark, through the board's board_puts/board_exit
    (examples/bare-metal/board.h).
    """
    import numpy as np
    import tvm
    from tvm import relax

    if not isinstance(target, tvm.target.Target):
        target = tvm.target.Target(target)
    with target:
        lowered = relax.get_pipeline("default")(mod)
    executable = relax.build(lowered, target, relax_pipeline=None)
    kind = target.kind.name
    lib = executable.mod.imports[0] if executable.mod.imports else executable.mod
    source = lib.inspect_source("ll") if kind == "llvm" else lib.inspect_source()
    workspaces = _workspaces(source, kind)

    fn = lowered[function]
    num_input = int(fn.attrs["num_input"]) if fn.attrs and "num_input" in fn.attrs \
        else len(inputs)
    names = [_ir_name(p) for p in fn.params]
    if isinstance(params, dict):
        params = [params[n] for n in names[num_input:]]
    values = list(inputs) + list(params)
    if len(values) != len(names):
        raise ValueError(f"scopealloc_tvm: {function} takes {len(names)} arguments "
                         f"({', '.join(names)}), given {len(values)}")
    tensors = {}      # var name -> {"kind", ...}
    constants = []    # (c name, numpy array)
    storages = []     # (c name, bytes)
    # Keyed by the Relax variable: names repeat (TVM's printer numbers them).
    for param, pname, value in zip(fn.params, names, values):
        value = np.ascontiguousarray(value)
        cname = f"sa_arg{len(constants)}_{_c_ident(pname)}"
        constants.append((cname, value))
        tensors[param] = {"name": pname, "data": cname, "offset": 0,
                          "shape": list(value.shape), "dtype": str(value.dtype),
                          "what": f"argument {pname}"}
    calls = []
    bindings = [b for block in fn.body.blocks for b in block.bindings]
    storage_of = {}
    for b in bindings:
        var, value = _ir_name(b.var), b.value
        op = getattr(value, "op", None)
        op_kind = type(op).__name__
        if op_kind == "Op":
            opname = _ir_name(op)
            if opname in _MICRO_SKIPPED_OPS:
                continue
            if opname == "relax.vm.alloc_storage":
                size = _ints(value.args[0])[0]
                cname = f"sa_storage{len(storages)}"
                storages.append((cname, size))
                storage_of[b.var] = cname
                continue
            if opname == "relax.vm.alloc_tensor":
                st = storage_of[value.args[0]]
                tensors[b.var] = {"name": var, "data": st, "offset": int(value.args[1]),
                                  "shape": _ints(value.args[2]),
                                  "dtype": _dtype_text(value.args[3]),
                                  "what": f"{st} + {int(value.args[1])}"}
                continue
            raise NotImplementedError(f"scopealloc_tvm: micro_harness: {function} "
                                      f"uses {opname}, which the harness does not replay")
        if op_kind == "ExternFunc":
            sym = str(getattr(op, "global_symbol", "")) or re.sub(
                r'.*ExternFunc\("([^"]+)"\).*', r"\1", str(op))
            if sym in _MICRO_SKIPPED_PACKED:
                continue
            if sym == "vm.builtin.reshape":
                src = tensors[value.args[0]]
                tensors[b.var] = dict(src, name=var, shape=_ints(value.args[1]),
                                      what=f"view of {src['name']}")
                continue
            raise NotImplementedError(f"scopealloc_tvm: micro_harness: {function} "
                                      f"calls {sym}, which the harness does not replay")
        if op_kind == "GlobalVar":
            callee = lowered[op]
            symbol = str(callee.attrs["global_symbol"]) if callee.attrs and \
                "global_symbol" in callee.attrs else _ir_name(op)
            for a in value.args:
                if a not in tensors:
                    raise NotImplementedError(f"scopealloc_tvm: micro_harness: argument "
                                              f"{_ir_name(a)} of {symbol} is not a tensor")
            keys = list(value.args)
            args = [tensors[a]["name"] for a in keys]
            sizes = workspaces.get(symbol, [])
            if any(s is None for s in sizes):
                raise NotImplementedError(f"scopealloc_tvm: micro_harness: {symbol} asks "
                                          "TVM for a workspace of a run-time size")
            # 64-byte aligned workspaces, last in first out: their sum, each
            # rounded, and 56 bytes for the array's own start (the pool
            # gives 8-byte alignment; TVM relies on 64).
            calls.append({"kernel": symbol, "symbol": "__tvm_ffi_" + symbol,
                          "args": args, "keys": keys, "workspaces": sizes,
                          "workspace": sum(_align(s) for s in sizes) + 56 if sizes else 0})
            continue
        raise NotImplementedError(f"scopealloc_tvm: micro_harness: {function} binds "
                                  f"{var} to {type(value).__name__}, which the harness "
                                  "does not replay")
    out = fn.body.body
    if out not in tensors:
        raise NotImplementedError(f"scopealloc_tvm: micro_harness: {function} returns "
                                  f"{_ir_name(out)}, not a tensor")
    need_expf = bool(re.search(r"@expf\b|@llvm\.exp\.f32|\bexpf\(", source))
    return MicroHarness(
        executable=executable, lowered=lowered, target=target, kind=kind,
        function=function, name=name or "a Relax module", calls=calls, tensors=tensors,
        constants=constants, storages=storages,
        output=dict(key=out, name=tensors[out]["name"], shape=tensors[out]["shape"],
                    dtype=tensors[out]["dtype"]),
        need_expf=need_expf, tvm_version=tvm.__version__)


_DLTYPES = {"int": "kDLInt", "uint": "kDLUInt", "float": "kDLFloat", "bfloat": "kDLBfloat",
            "bool": "kDLBool"}


def _dl_dtype(text):
    m = re.match(r"^(bool|bfloat|float|uint|int)(\d*)(?:x(\d+))?$", text)
    if not m:
        raise NotImplementedError(f"scopealloc_tvm: micro_harness: dtype {text}")
    code, bits, lanes = m.group(1), int(m.group(2) or 8), int(m.group(3) or 1)
    return f"{{{_DLTYPES[code]}, {bits}, {lanes}}}"


_HARNESS_BUILTINS = r'''
/* ---- What TVM's code calls and a firmware without a C library lacks ---- */
#if SA_HARNESS_BUILTINS
void *memcpy(void *d, const void *s, size_t n) {
  unsigned char *dp = d;
  const unsigned char *sp = s;
  while (n--)
    *dp++ = *sp++;
  return d;
}
void *memmove(void *d, const void *s, size_t n) {
  unsigned char *dp = d;
  const unsigned char *sp = s;
  if (dp < sp)
    while (n--)
      *dp++ = *sp++;
  else
    while (n--)
      dp[n] = sp[n];
  return d;
}
void *memset(void *d, int c, size_t n) {
  unsigned char *dp = d;
  while (n--)
    *dp++ = (unsigned char)c;
  return d;
}
#if defined(__ARM_EABI__)
void __aeabi_memcpy(void *d, const void *s, size_t n) { memcpy(d, s, n); }
void __aeabi_memcpy4(void *d, const void *s, size_t n) { memcpy(d, s, n); }
void __aeabi_memcpy8(void *d, const void *s, size_t n) { memcpy(d, s, n); }
void __aeabi_memmove(void *d, const void *s, size_t n) { memmove(d, s, n); }
void __aeabi_memmove4(void *d, const void *s, size_t n) { memmove(d, s, n); }
void __aeabi_memmove8(void *d, const void *s, size_t n) { memmove(d, s, n); }
void __aeabi_memset(void *d, size_t n, int c) { memset(d, c, n); }
void __aeabi_memset4(void *d, size_t n, int c) { memset(d, c, n); }
void __aeabi_memset8(void *d, size_t n, int c) { memset(d, c, n); }
void __aeabi_memclr(void *d, size_t n) { memset(d, 0, n); }
void __aeabi_memclr4(void *d, size_t n) { memset(d, 0, n); }
void __aeabi_memclr8(void *d, size_t n) { memset(d, 0, n); }
/* TVM's objects have unwind tables, which name the personality routines;
 * nothing unwinds on this board. */
void __aeabi_unwind_cpp_pr0(void) { sa_stop("unwinding: not supported"); }
void __aeabi_unwind_cpp_pr1(void) { sa_stop("unwinding: not supported"); }
void __aeabi_unwind_cpp_pr2(void) { sa_stop("unwinding: not supported"); }
#endif
#if SA_HARNESS_EXPF
/* expf for softmax and friends (Cephes' single-precision exp: within 1 ulp
 * of the C library's, not bit for bit). */
float expf(float x) {
  union { uint32_t u; float f; } v;
  if (x != x)
    return x;
  if (x > 88.72283935546875f) {
    v.u = 0x7f800000u;
    return v.f;
  }
  if (x < -103.97208404541015625f)
    return 0.0f;
  int k = (int)(x * 1.44269504088896341f + (x >= 0.0f ? 0.5f : -0.5f));
  float r = x - (float)k * 0.693359375f;
  r = r - (float)k * -2.12194440e-4f;
  float y = 1.9875691500e-4f;
  y = y * r + 1.3981999507e-3f;
  y = y * r + 8.3334519073e-3f;
  y = y * r + 4.1665795894e-2f;
  y = y * r + 1.6666665459e-1f;
  y = y * r + 5.0000001201e-1f;
  y = y * (r * r) + r + 1.0f;
  if (k < -126) {
    v.u = (uint32_t)(k + 100 + 127) << 23;
    return y * v.f * 7.88860905e-31f; /* 2^-100 */
  }
  if (k > 127) {
    v.u = (uint32_t)(k - 1 + 127) << 23;
    return y * v.f * 2.0f;
  }
  v.u = (uint32_t)(k + 127) << 23;
  return y * v.f;
}
#endif
#endif
'''


def _harness_source(h, pools, sections, stack_marks, builtins):
    import numpy as np

    out = []
    w = out.append
    w(f"/* Generated by scopealloc_tvm.micro_harness: `{h.function}` of {h.name}, built by\n"
      f" * TVM {h.tvm_version} for {h.target.kind.name} {h.target.attrs.get('mtriple', '')}"
      .rstrip() + ".\n"
      " * The packed calls TVM's Relax VM would make, without TVM's runtime: static\n"
      " * tensors, constant TVMFFIAny arguments, TVM's workspaces from a local array\n"
      " * per call (the ScopeAlloc policy places it), tvm-ffi's error function as a\n"
      " * stub that reports and stops. Output through board_puts (board.h). */\n")
    w("#include <stddef.h>\n#include <stdint.h>\n#include <tvm/ffi/c_api.h>\n"
      "#include <scopealloc/scopealloc.h>\n\n")
    w("void board_puts(const char *s);\n"
      "__attribute__((noreturn)) void board_exit(int status);\n\n")
    marks = 1 if stack_marks else 0
    w(f"#ifndef SA_STACK_MARKS\n#define SA_STACK_MARKS {marks}\n#endif\n"
      f"#ifndef SA_HARNESS_BUILTINS\n#define SA_HARNESS_BUILTINS {1 if builtins else 0}\n#endif\n"
      f"#define SA_HARNESS_EXPF {1 if h.need_expf else 0}\n"
      "#define SA_ALIGN __attribute__((aligned(64)))\n\n")
    if pools:
        w("/* The pools the policy's buffers come from. */\n")
        for pool, size in pools.items():
            if pool in sections:
                w(f"SCOPEALLOC_DEFINE_POOL_IN_SECTION({pool}, {int(size)}, \"{sections[pool]}\");\n")
            else:
                w(f"SCOPEALLOC_DEFINE_POOL({pool}, {int(size)});\n")
        w("\n")
    w(r'''/* The harness's own buffers are static: on the stack, a policy of limit 0
 * would move them to its pool beside TVM's buffers. */
static void sa_put_hex(uint32_t v) {
  static char buf[11];
  buf[0] = '0', buf[1] = 'x';
  for (int i = 0; i < 8; i++)
    buf[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15];
  buf[10] = 0;
  board_puts(buf);
}

static void sa_put_uint(uint32_t v) {
  static char buf[11];
  char *p = buf + sizeof buf - 1;
  *p = 0;
  do
    *--p = (char)('0' + v % 10);
  while (v /= 10);
  board_puts(p);
}

__attribute__((noreturn)) static void sa_stop(const char *why) {
  board_puts("harness: ");
  board_puts(why);
  board_puts("\n");
  board_exit(1);
}

/* ---- tvm-ffi: the one function TVM's kernels call, to report an error ---- */
void TVMFFIErrorSetRaisedFromCStrParts(const char *kind, const char **parts,
                                       int32_t num_parts) {
  board_puts("tvm-ffi error: ");
  board_puts(kind ? kind : "Error");
  board_puts(": ");
  for (int32_t i = 0; i < num_parts; i++)
    if (parts[i])
      board_puts(parts[i]);
  board_puts("\n");
  board_exit(1);
}

/* ---- TVM's workspaces: handed out, last in first out, from the array the
 * running call's wrapper holds (sa_call_*), 64-byte aligned as TVM needs ---- */
static uint8_t *sa_ws_cur, *sa_ws_end;

void *TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                               int dtype_code_hint, int dtype_bits_hint) {
  (void)device_id, (void)dtype_code_hint, (void)dtype_bits_hint;
  uintptr_t p = ((uintptr_t)sa_ws_cur + 63u) & ~(uintptr_t)63u;
  if (device_type != 1 || !sa_ws_cur || p > (uintptr_t)sa_ws_end ||
      nbytes > (uint64_t)((uintptr_t)sa_ws_end - p)) {
    board_puts("harness: TVM asked for a workspace of ");
    sa_put_uint((uint32_t)nbytes);
    sa_stop("bytes, more than the call's array holds");
  }
  sa_ws_cur = (uint8_t *)(p + (uintptr_t)nbytes);
  return (void *)p;
}

int TVMBackendFreeWorkspace(int device_type, int device_id, void *ptr) {
  (void)device_type, (void)device_id;
  sa_ws_cur = (uint8_t *)ptr;
  return 0;
}
''')
    if h.kind == "llvm":
        w("/* The slots TVM's LLVM code calls the two through (TVM's module loader\n"
          " * fills them on a host; main() does here). Weak: where every workspace\n"
          " * carries a pool's scope, the pass leaves no call through them, and the\n"
          " * slots are gone. */\n"
          "extern __attribute__((weak)) void *(*__TVMBackendAllocWorkspace)(int, int, uint64_t,\n"
          "                                                                 int, int);\n"
          "extern __attribute__((weak)) int (*__TVMBackendFreeWorkspace)(int, int, void *);\n\n")
    w(r'''#if SA_STACK_MARKS
/* The stack below each packed call is painted before it and read after. */
extern uint32_t __stack_bottom[], __stack_top[];
#define SA_PAINT 0xa5a5a5a5u
static const uint32_t *sa_deepest;
#define SA_MARK_BEGIN()                                                        \
  uint32_t *sa_sp;                                                             \
  __asm__ volatile("mov %0, sp" : "=r"(sa_sp));                                \
  for (volatile uint32_t *d = __stack_bottom; d < sa_sp;)                      \
    *d++ = SA_PAINT
#define SA_MARK_END(i)                                                         \
  do {                                                                         \
    const uint32_t *p = __stack_bottom;                                        \
    while (p < sa_sp && *p == SA_PAINT)                                        \
      p++;                                                                     \
    sa_stack[i] = (uint32_t)((uintptr_t)sa_sp - (uintptr_t)p);                 \
    if (!sa_deepest || p < sa_deepest)                                         \
      sa_deepest = p;                                                          \
  } while (0)
#else
#define SA_MARK_BEGIN() (void)0
#define SA_MARK_END(i) (void)0
#endif

''')
    w("/* ---- The inputs and parameters, bit for bit ---- */\n")
    for cname, value in h.constants:
        raw = value.tobytes()
        if len(raw) % 4 == 0:
            words = np.frombuffer(raw, dtype="<u4")
            ctype, items = "uint32_t", [f"0x{int(x):08x}" for x in words]
        else:
            ctype, items = "uint8_t", [f"0x{b:02x}" for b in raw]
        w(f"/* {value.dtype} {tuple(value.shape)} */\n"
          f"static const {ctype} {cname}[{max(len(items), 1)}] SA_ALIGN = {{\n")
        for i in range(0, len(items), 8):
            w("  " + ", ".join(items[i:i + 8]) + ",\n")
        w("};\n")
    w("\n/* ---- The storage TVM's memory plan gives the intermediate tensors ---- */\n")
    for cname, size in h.storages:
        w(f"static uint8_t {cname}[{size}] SA_ALIGN;\n")
    w("\n/* ---- The tensors (DLTensor), views included ---- */\n")
    tensor_c = {}
    for i, (key, t) in enumerate(h.tensors.items()):
        cname = f"sa_t{i}"
        tensor_c[key] = cname
        tname = t["name"]
        shape = t["shape"]
        w(f"static int64_t {cname}_shape[{max(len(shape), 1)}] = "
          f"{{{', '.join(str(d) for d in shape) or '0'}}};\n"
          f"static DLTensor {cname} = {{(void *)((const uint8_t *){t['data']} + {t['offset']}), "
          f"{{kDLCPU, 0}}, {len(shape)}, {_dl_dtype(t['dtype'])}, {cname}_shape, NULL, 0}};"
          f" /* {tname}: {t['dtype']} {tuple(shape)}, {t['what']} */\n")
    w("\n/* ---- The packed calls, in the order TVM's VM makes them ---- */\n")
    n = len(h.calls)
    w(f"#define SA_CALLS {n}\n"
      "static uint32_t sa_stack[SA_CALLS], sa_workspace[SA_CALLS], sa_hash[SA_CALLS];\n"
      "static uint32_t sa_fnv1a(const DLTensor *t);\n"
      "static TVMFFIAny sa_ret; /* what a packed call returns (nothing, here) */\n"
      "static const char *const sa_kernel[SA_CALLS] = {"
      + ", ".join(f'"{c["kernel"]}"' for c in h.calls) + "};\n"
      "\n")
    declared = set()
    for i, c in enumerate(h.calls):
        if c["symbol"] not in declared:
            declared.add(c["symbol"])
            w(f"int {c['symbol']}(void *self, const TVMFFIAny *args, int32_t num_args,\n"
              f"    TVMFFIAny *result);\n")
        argv = ", ".join(
            f"{{.type_index = kTVMFFIDLTensorPtr, .zero_padding = 0, .v_ptr = &{tensor_c[a]}}}"
            for a in c["keys"])
        w(f"static const TVMFFIAny sa_args{i}[{len(c['args'])}] = {{\n  {argv}}};\n")
        w(f"/* {c['kernel']}({', '.join(c['args'])})")
        if c["workspaces"]:
            w(f"; TVM's workspaces: {' + '.join(str(s) for s in c['workspaces'])} B")
        w(" */\n")
        w(f"__attribute__((noinline)) static int sa_call{i}(void) {{\n")
        if c["workspace"]:
            w(f"  uint64_t workspace[{c['workspace'] // 8}];\n"
              "  sa_ws_cur = (uint8_t *)workspace, sa_ws_end = sa_ws_cur + sizeof workspace;\n"
              f"  sa_workspace[{i}] = sizeof workspace;\n")
        w("  SA_MARK_BEGIN();\n"
          f"  int rc = {c['symbol']}(NULL, sa_args{i}, {len(c['args'])}, &sa_ret);\n"
          f"  SA_MARK_END({i});\n"
          f"  sa_hash[{i}] = sa_fnv1a(&{tensor_c[c['keys'][-1]]});\n")
        if c["workspace"]:
            w("  if (sa_ws_cur != (uint8_t *)workspace)\n"
              "    sa_stop(\"a TVM workspace was not freed\");\n"
              "  sa_ws_cur = sa_ws_end = NULL;\n")
        w("  return rc;\n}\n")
    w("\nstatic int (*const sa_call[SA_CALLS])(void) = {"
      + ", ".join(f"sa_call{i}" for i in range(n)) + "};\n")
    o = h.output
    w(f'''
static uint32_t sa_fnv1a(const DLTensor *t) {{
  size_t n = (size_t)((t->dtype.bits * t->dtype.lanes + 7) / 8);
  for (int i = 0; i < t->ndim; i++)
    n *= (size_t)t->shape[i];
  const uint8_t *p = (const uint8_t *)t->data;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 16777619u;
  return h;
}}

static void sa_print_pool(const scopealloc_pool *pool, void *ctx) {{
  static scopealloc_stats st;
  (void)ctx;
  scopealloc_pool_stats(pool, &st);
  board_puts("pool ");
  board_puts(st.name);
  board_puts(": peak ");
  sa_put_uint((uint32_t)st.peak);
  board_puts(", capacity ");
  sa_put_uint((uint32_t)st.capacity);
  board_puts(", current ");
  sa_put_uint((uint32_t)st.current);
  board_puts(", allocs ");
  sa_put_uint((uint32_t)st.allocs);
  board_puts("\\n");
}}

int main(void) {{
''')
    if h.kind == "llvm":
        w("  if (&__TVMBackendAllocWorkspace)\n"
          "    __TVMBackendAllocWorkspace = TVMBackendAllocWorkspace;\n"
          "  if (&__TVMBackendFreeWorkspace)\n"
          "    __TVMBackendFreeWorkspace = TVMBackendFreeWorkspace;\n")
    w(f'''  for (int i = 0; i < SA_CALLS; i++)
    if (sa_call[i]() != 0) {{
      board_puts(sa_kernel[i]);
      sa_stop(": the packed call failed");
    }}
  for (int i = 0; i < SA_CALLS; i++) {{
    board_puts("call ");
    sa_put_uint((uint32_t)i);
    board_puts(" ");
    board_puts(sa_kernel[i]);
    board_puts(": stack ");
    sa_put_uint(sa_stack[i]);
    board_puts(", workspace ");
    sa_put_uint(sa_workspace[i]);
    board_puts(", result fnv1a ");
    sa_put_hex(sa_hash[i]);
    board_puts("\\n");
  }}
  const DLTensor *out = &{tensor_c[o["key"]]};
  const uint32_t *words = (const uint32_t *)out->data;
  size_t n = (size_t)((out->dtype.bits * out->dtype.lanes + 7) / 8);
  for (int i = 0; i < out->ndim; i++)
    n *= (size_t)out->shape[i];
  board_puts("output {o['name']} {o['dtype']} {'x'.join(str(d) for d in o['shape'])}:");
  for (size_t i = 0; i < n / 4; i++) {{
    board_puts(" ");
    sa_put_hex(words[i]);
  }}
  board_puts("\\n");
  scopealloc_for_each_pool(sa_print_pool, NULL);
#if SA_STACK_MARKS
  const uint32_t *p = __stack_bottom;
  while (p < __stack_top && *p == SA_PAINT)
    p++;
  if (sa_deepest && sa_deepest < p)
    p = sa_deepest;
  board_puts("stack high-water: ");
  sa_put_uint((uint32_t)((uintptr_t)__stack_top - (uintptr_t)p));
  board_puts(" bytes\\n");
#endif
  return 0;
}}
''')
    w(_HARNESS_BUILTINS)
    return "".join(out)
