#!/usr/bin/env python3
"""Attach a ScopeAlloc scope to the buffers Halide allocates for some Funcs.

    tag_scope.py <in.ll> <out.ll> <scope> <Func>...

Halide 14 names the entry-block alloca of a Func's stack buffer after the
Func plus a uniquing number (%blur_x165 = alloca [4420 x i16]), in
CodeGen_Posix::create_allocation. This step stands in for the one-line
change to that function that would emit the scope itself
(docs/code-generators-halide.md): every such alloca of a named Func gets
`!scope !{!"<scope>"}`. Prints one line per tagged alloca.
"""
import re
import sys

src, dst, scope, funcs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
lines = open(src).read().splitlines()
numbers = [int(n) for n in re.findall(r"^!(\d+) = ", "\n".join(lines), re.M)]
node = "!%d" % (max(numbers, default=-1) + 1)
alloca = re.compile(r"^(\s+%((?:" + "|".join(map(re.escape, funcs)) +
                    r")\d*) = alloca [^!]*?)$")
function = None
tagged = 0
for i, line in enumerate(lines):
    m = re.match(r"define .*@([\w.$]+)\(", line)
    if m:
        function = m.group(1)
    m = alloca.match(line)
    if m:
        lines[i] = m.group(1) + ", !scope " + node
        print("%s: %s -> scope %s" % (function, re.sub(r"\d+$", "", m.group(2)), scope))
        tagged += 1
if not tagged:
    sys.exit("tag_scope.py: no alloca of %s in %s" % (", ".join(funcs), src))
lines.append('%s = !{!"%s"}' % (node, scope))
open(dst, "w").write("\n".join(lines) + "\n")
