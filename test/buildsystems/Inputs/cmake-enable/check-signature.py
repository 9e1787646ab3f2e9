"""Checks that the scopealloc_enable() signature in a page names every keyword
the function accepts: argv[1] is the configure log of a call with an unknown
keyword (its message lists the known ones), argv[2] the page. Prints the
signature; exits 1 naming the keywords it lacks."""
import re
import sys

log = " ".join(open(sys.argv[1]).read().split())
known = re.search(r"\(known: ([^)]*)\)", log)
if not known:
    sys.exit("no '(known: ...)' list in %s" % sys.argv[1])
keywords = [k.strip() for k in known.group(1).split(",")]
page = open(sys.argv[2]).read()
signature = re.search(r"`scopealloc_enable\(<target>.*?\)`", page, re.S)
if not signature:
    sys.exit("no `scopealloc_enable(<target> ...)` signature in %s" % sys.argv[2])
text = " ".join(signature.group(0).split())
print(text)
missing = [k for k in keywords if not re.search(r"\[%s[\] ]" % k, text)]
if missing:
    sys.exit("the signature in %s lacks %s" % (sys.argv[2], ", ".join(missing)))
