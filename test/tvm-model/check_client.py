"""What docs/tvm.md says scopealloc_tvm.fcompile prints is what it prints.

  python check_client.py --prefix <ScopeAlloc install> --work <dir> --docs docs/tvm.md

Each block of docs/tvm.md after a marker
  <!-- tvm-client: fcompile(<arguments>) -->        what the export prints
  <!-- tvm-client: error fcompile(<arguments>) -->  the export's error
is compared with what exporting tvm_model.Net (the LLVM target) to
<work>/model.so with scopealloc_tvm.fcompile(<arguments>) prints, relative
paths in the arguments taken from the source tree. Then what `quiet` keeps:
nothing printed, each link's remarks and summary in `log`, what moved in
`placements`; and remarks="all": every remark in one form, `remark: ...`.
Exits non-zero on the first difference.
"""

import argparse
import contextlib
import io
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MARK = re.compile(r"^<!--\s*tvm-client:\s*(error\s+)?fcompile\((.*)\)\s*-->\s*$")


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def blocks(path):
    """(line, is_error, arguments, expected lines) per marked block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    for i, line in enumerate(lines):
        m = MARK.match(line)
        if not m:
            continue
        j = i + 1
        while not lines[j].startswith("```"):
            j += 1
        k = j + 1
        while not lines[k].startswith("```"):
            k += 1
        out.append((i + 1, bool(m.group(1)), m.group(2), lines[j + 1:k]))
    return out


def export(scopealloc_tvm, ex, path, kwargs):
    """Exports; returns (what it printed, the error or None, the fcompile)."""
    f = scopealloc_tvm.fcompile(**kwargs)
    printed = io.StringIO()
    error = None
    with contextlib.redirect_stdout(printed):
        try:
            ex.export_library(path, fcompile=f)
        except RuntimeError as e:
            error = str(e)
    return printed.getvalue(), error, f


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs", "tvm.md"))
    a = ap.parse_args()
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.join(a.prefix, "share", "scopealloc", "python"))
    import scopealloc_tvm
    import tvm_model

    os.makedirs(a.work, exist_ok=True)
    os.chdir(ROOT)  # the documented arguments name examples/...
    ex, _ = tvm_model.build()
    model = os.path.join(a.work, "model.so")
    found = blocks(a.docs)
    if not found:
        fail(f"{a.docs} has no <!-- tvm-client: ... --> blocks")
    for line, is_error, args, expected in found:
        kwargs = eval(f"dict({args})")  # the documented call's arguments
        printed, error, _ = export(scopealloc_tvm, ex, model, kwargs)
        if is_error:
            if error is None:
                fail(f"{a.docs}:{line}: fcompile({args}) exported without an error")
            actual = error.split("\n")
            if os.path.exists(model):
                fail(f"{a.docs}:{line}: the failed export left {model}")
        else:
            if error is not None:
                fail(f"{a.docs}:{line}: fcompile({args}) failed: {error}")
            actual = printed.rstrip("\n").split("\n")
        if actual != expected:
            fail(f"{a.docs}:{line}: fcompile({args}) prints\n" + "\n".join(actual)
                 + "\nwhere the page quotes\n" + "\n".join(expected))
        print(f"ok: {a.docs}:{line}: fcompile({args})", flush=True)

    # quiet: nothing printed; log and placements keep what happened.
    printed, error, f = export(scopealloc_tvm, ex, model,
                               dict(max_stack_alloca=0, quiet=True))
    if error or printed:
        fail(f"quiet=True printed {printed!r} (error {error})")
    if len(f.log) != 1 or "scopealloc_tvm: model.so: 3 buffers moved" not in f.log[0] \
            or "remark: 'pad_temp' in 'conv2d2_compute_'" not in f.log[0]:
        fail(f"quiet=True: log should hold the link's remarks and summary: {f.log}")
    if {"kernel": "conv2d2_compute_", "buffer": "pad_temp", "bytes": 800,
            "from": "stack", "to": "pool workspace"} not in f.placements:
        fail(f"quiet=True: placements should have conv2d2's buffer: {f.placements}")
    print("ok: quiet=True prints nothing, keeps the remarks and summary in log")

    # remarks="all": one location form.
    printed, error, _ = export(scopealloc_tvm, ex, model,
                               dict(max_stack_alloca=32768, remarks="all"))
    said = [l for l in printed.split("\n") if "remark" in l]
    odd = [l for l in said if not re.match(r"remark: ('|workspace call ')", l)]
    if error or len(said) < 5 or odd:
        fail(f"remarks='all' should print each remark as 'remark: ...': {printed} {error}")
    print(f"ok: remarks='all' prints {len(said)} remarks, each as 'remark: ...'")
    print("PASS")


if __name__ == "__main__":
    main()
