"""Reads `llvm-objdump -d` of an x86-64 program on stdin and fails unless
every function in argv[2:] reserves at most argv[1] bytes of stack (its
largest `sub $N, %rsp`). Prints each function's frame."""
import re
import sys

limit = int(sys.argv[1])
wanted = set(sys.argv[2:])
frames = {}
function = None
for line in sys.stdin:
    m = re.match(r"^[0-9a-f]+ <([^>]+)>:", line)
    if m:
        function = m.group(1)
        continue
    m = re.search(r"\bsubq?\s+\$(0x[0-9a-f]+|\d+), %rsp", line)
    if m and function in wanted:
        frames[function] = max(frames.get(function, 0), int(m.group(1), 0))
for name in sorted(wanted):
    print("%s %d" % (name, frames.get(name, 0)))
over = [n for n, f in frames.items() if f > limit]
if over:
    sys.exit("frames over %d bytes: %s" % (limit, ", ".join(sorted(over))))
