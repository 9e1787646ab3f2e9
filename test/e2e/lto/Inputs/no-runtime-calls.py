"""The named functions of an objdump -d listing call
nothing of the ScopeAlloc runtime (no __scopealloc_* symbol in their code)."""
import re
import sys

listing, names = sys.argv[1], set(sys.argv[2:])
current, seen = None, set()
bad = []
for line in open(listing):
    m = re.match(r"^[0-9a-f]+ <([^>]+)>:", line)
    if m:
        current = m.group(1)
        if current in names:
            seen.add(current)
        continue
    if current in names and "__scopealloc" in line:
        bad.append("%s: %s" % (current, line.strip()))
missing = names - seen
if missing:
    sys.exit("not in the listing (inlined?): " + ", ".join(sorted(missing)))
if bad:
    sys.exit("runtime use in planned functions:\n" + "\n".join(bad))
