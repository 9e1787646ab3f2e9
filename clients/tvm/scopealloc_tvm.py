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
"""

import os
import re
import shlex
import subprocess

__all__ = ["fcompile", "annotate_scope", "prefix", "compiler"]

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
    """
    if remarks not in (False, True, "all"):
        raise ValueError(f"scopealloc_tvm: remarks={remarks!r}: expected False, True or \"all\"")
    flags = _policy_flags(policy, target_tag, max_stack_alloca, frame_budget)
    flags += list(options)
    # Always: the summary and `placements` come from the remarks.
    flags += ["-Rpass=scope-alloc", "-Rpass-missed=scope-alloc"]

    def _compile(output, objects, options=None, cc=None, **_):
        # export_library adds TVM's include directories for C modules.
        extra = options if isinstance(options, (list, tuple)) else (
            [options] if options else [])
        cmd = [compiler(cxx=cc is not None and cc.endswith("++"))]
        # TVM writes its LLVM's host triple (x86_64-conda-linux-gnu for the
        # PyPI wheel); the wrapper's target of the same machine replaces it.
        cmd += ["-shared", "-fPIC", opt_level, "-Wno-override-module"]
        cmd += flags + list(extra)
        cmd += [os.fspath(o) for o in objects] + ["-o", os.fspath(output)]
        proc = subprocess.run(
            cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        lines = [_NO_LOCATION.sub("remark: ", l) for l in proc.stdout.splitlines()]
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
        pools = _undefined_pools(output)
        if pools:
            os.remove(output)
            raise RuntimeError(_missing_pools_message(output, pools))

    # Per link: the compiler's warnings, the remarks and the summary.
    _compile.log = []
    # Every buffer that moved, over all links.
    _compile.placements = []
    # export_library writes LLVM modules in this format (C modules as C).
    _compile.object_format = "bc"
    _compile.output_format = "so"
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
