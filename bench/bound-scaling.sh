#!/usr/bin/env bash
# How scopealloc-bound's time and memory grow with the image (issue 20
# items 8, 9): images from utils/gen_bound_image.py at doubling sizes,
# built through the installed scopealloc-clang (-O0, limit 0), each bounded
# under /usr/bin/time -v; prints CPU seconds (the least of three runs), max RSS,
# and the ratios to the size before (2.0 per doubling is linear, 4.0
# quadratic, 8.0 cubic). The ratios are of the parts above the tool's base,
# its time and RSS on an empty program (loading LLVM's shared library:
# about 40 ms and 50 MB), shown first.
#
#   bench/bound-scaling.sh [--prefix P] [--tool scopealloc-bound]
#                          [--pools "1000 2000 4000 8000 16000"]
#                          [--indirect "1000 2000 4000 8000 16000"]
#                          [--repeat 3] [--keep DIR]
#
# --tool compares another build of the tool on the same images; --keep
# keeps the images for another run (building the largest takes about a
# minute each); --repeat sets how many timed runs the best is taken of.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=${SCOPEALLOC_PREFIX:-$root/build/install}
tool= keep= repeat=3
pools="1000 2000 4000 8000 16000"
indirect="1000 2000 4000 8000 16000"
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --tool) tool=$2; shift 2 ;;
    --pools) pools=$2; shift 2 ;;
    --indirect) indirect=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    *) echo "bound-scaling.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
tool=${tool:-$prefix/bin/scopealloc-bound}
[ -x /usr/bin/time ] || { echo "bound-scaling.sh: needs /usr/bin/time (Debian: time)" >&2; exit 2; }
if [ -n "$keep" ]; then
  work=$keep
  mkdir -p "$work"
else
  work=$(mktemp -d /tmp/bound-scaling.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi

# The least CPU time (user + system) of $repeat runs: steadier than the
# wall time on a loaded machine, and finer than time -v's 10 ms steps.
best() {
  python3 - "$repeat" "$tool" "$1" <<'PY'
import resource, subprocess, sys
best = None
for _ in range(int(sys.argv[1])):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    best = t if best is None else min(best, t)
print("%.3f" % best)
PY
}

echo "tool: $tool"
# The base: an image with nothing in it.
echo 'int main(void) { return 0; }' > "$work/empty.c"
"$prefix/bin/scopealloc-clang" -O0 "$work/empty.c" -o "$work/empty"
/usr/bin/time -v "$tool" "$work/empty" > /dev/null 2> "$work/empty.time"
base=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/empty.time")
tbase=$(best "$work/empty")
echo "base: $tbase s, $(awk -v k="$base" 'BEGIN { printf "%.1f", k / 1024 }') MB"
printf '%-9s %6s %10s %9s %10s %8s %8s\n' kind n "image KB" "CPU s" "max RSS MB" "x time" "x RSS"
for kind in pools indirect; do
  sizes=$pools
  [ $kind = indirect ] && sizes=$indirect
  prev_t= prev_kb=
  for n in $sizes; do
    img=$work/$kind$n
    if [ ! -f "$img" ]; then
      python3 "$root/utils/gen_bound_image.py" $kind "$n" > "$img.c"
      "$prefix/bin/scopealloc-clang" -O0 -mllvm -scope-alloc-max-stack-alloca=0 \
        "$img.c" -o "$img"
    fi
    /usr/bin/time -v "$tool" "$img" > "$img.out" 2> "$img.time" || {
      echo "bound-scaling.sh: $tool $img failed:" >&2
      tail -5 "$img.time" >&2
      exit 1
    }
    t=$(best "$img")
    kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$img.time")
    m=$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')
    rt=- rm=-
    if [ -n "$prev_t" ]; then
      rt=$(awk -v a="$t" -v b="$prev_t" -v base="$tbase" \
        'BEGIN { printf "%.2f", (b > base ? (a - base) / (b - base) : 0) }')
      rm=$(awk -v a="$kb" -v b="$prev_kb" -v base="$base" \
        'BEGIN { printf "%.2f", (b > base ? (a - base) / (b - base) : 0) }')
    fi
    printf '%-9s %6s %10s %9s %10s %8s %8s\n' $kind "$n" \
      "$(( $(wc -c < "$img") / 1024 ))" "$t" "$m" "$rt" "$rm"
    prev_t=$t prev_kb=$kb
  done
done
