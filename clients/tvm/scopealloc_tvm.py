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
    and -mcpu when TVM's target is not the host); remarks: print
    ScopeAlloc's remarks (what moved and why); quiet: keep what the link
    prints in the returned function's `log` (a list, one text per link)
    instead of printing it.
    """
    flags = _policy_flags(policy, target_tag, max_stack_alloca, frame_budget)
    flags += list(options)
    if remarks:
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
        _compile.log.append(proc.stdout)
        if proc.stdout and not quiet:
            print(proc.stdout, end="", flush=True)
        if proc.returncode != 0:
            raise RuntimeError(
                "scopealloc_tvm: the link failed:\n  " + shlex.join(cmd)
            )

    # What each link printed (the remarks), for a caller that counts them.
    _compile.log = []
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
