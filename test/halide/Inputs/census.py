#!/usr/bin/env python3
"""Census of the memory a Halide pipeline's LLVM IR asks for.

    census.py <pipeline.ll>     (textual IR of LLVM 19: llvm-dis-19 pipeline.bc)

One line per function that allocates, with where it runs (a closure passed to
halide_do_par_for runs on Halide's worker threads, the rest on the calling
thread), then its allocas (size in bytes, alignment) and halide_malloc calls
(constant size, or "dynamic") and the number of halide_free calls.
"""
import re
import sys
from collections import OrderedDict

SCALAR = {"i1": (1, 1), "i8": (1, 1), "i16": (2, 2), "i32": (4, 4),
          "i64": (8, 8), "half": (2, 2), "float": (4, 4), "double": (8, 8),
          "ptr": (8, 8)}


def type_size_align(t):
    """Size and ABI alignment of an LLVM type (x86-64 data layout)."""
    t = t.strip()
    if t in SCALAR:
        return SCALAR[t]
    m = re.fullmatch(r"\[(\d+) x (.+)\]", t)
    if m:
        size, align = type_size_align(m.group(2))
        return int(m.group(1)) * size, align
    m = re.fullmatch(r"<(\d+) x (.+)>", t)
    if m:
        size, _ = type_size_align(m.group(2))
        total = int(m.group(1)) * size
        return total, total
    m = re.fullmatch(r"\{(.*)\}", t)
    if m:
        offset, max_align = 0, 1
        for field in split_fields(m.group(1)):
            size, align = type_size_align(field)
            offset = (offset + align - 1) // align * align + size
            max_align = max(max_align, align)
        return (offset + max_align - 1) // max_align * max_align, max_align
    raise ValueError("type not handled: " + t)


def split_fields(s):
    fields, depth, cur = [], 0, ""
    for c in s:
        if c in "[{<":
            depth += 1
        elif c in "]}>":
            depth -= 1
        if c == "," and depth == 0:
            fields.append(cur)
            cur = ""
        else:
            cur += c
    if cur.strip():
        fields.append(cur)
    return fields


def main():
    text = open(sys.argv[1]).read()
    functions = OrderedDict()
    current = None
    par_for = set()
    for line in text.splitlines():
        m = re.match(r"define .*@([\w.$]+)\(", line)
        if m:
            current = functions.setdefault(
                m.group(1), {"allocas": [], "mallocs": [], "frees": 0})
            continue
        if line.startswith("}"):
            current = None
            continue
        if current is None:
            continue
        m = re.match(r"\s+(%[\w.$\"]+) = alloca (.+?)(, align (\d+))?(, !.*)?$", line)
        if m:
            size, _ = type_size_align(m.group(2))
            current["allocas"].append((m.group(1), size, m.group(4)))
        m = re.search(r"call ptr @halide_malloc\(ptr [^,]+, i64 (%?[\w.]+)\)", line)
        if m:
            size = m.group(1)
            current["mallocs"].append(size if not size.startswith("%") else "dynamic")
        if re.search(r"call void @halide_free\(", line):
            current["frees"] += 1
        m = re.search(r"call i32 @halide_do_par_for\([^,]+, ptr (nonnull )?@([\w.$]+)", line)
        if m:
            par_for.add(m.group(2))
    for name, f in functions.items():
        if not f["allocas"] and not f["mallocs"]:
            continue
        where = ("parallel closure (halide_do_par_for tasks: worker threads and the caller)"
                 if name in par_for else "calling thread")
        print("function %s: %s" % (name, where))
        for value, size, align in f["allocas"]:
            print("  alloca %s %d bytes align %s" % (value, size, align))
        sizes = OrderedDict()
        for size in f["mallocs"]:
            sizes[size] = sizes.get(size, 0) + 1
        for size, count in sizes.items():
            print("  halide_malloc %s bytes x %d" % (size, count))
        print("  halide_free x %d" % f["frees"])


if __name__ == "__main__":
    main()
