#!/usr/bin/env bash
# A real package through ccache and scopealloc-clang, as a developer with two
# checkouts (or a CI with per-job build directories) builds it: zlib (Debian
# source package) built with `ccache scopealloc-clang -O2 -g` and a policy
# file (limit 0, then 100000), four times with one cache:
#   1. tree A, empty cache: every compile a miss;
#   2. tree B (another directory, same sources and configuration): every
#      compile a hit (base_dir and -ffile-prefix-map make the trees alike),
#      and every object identical to tree A's;
#   3. tree B again after the policy file changed: every compile a miss,
#      objects rebuilt under the new policy (different from 2's);
#   4. tree A again with the changed policy: hits, served from 3.
# Prints the hit rate of each step; fails when one is not as above.
#
#   bash test/realworld/ccache-rebuild.sh [--prefix P] [--work DIR] [--jobs N]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=${SCOPEALLOC_PREFIX:-$root/build/install}
work=$root/build/ccache-rebuild
jobs=$(nproc 2>/dev/null || echo 2)
. "$here/args.sh"
rw_parse_args ccache-rebuild.sh "$@"
[ ${#rw_rest[@]} -eq 0 ] || { echo "ccache-rebuild.sh: unknown argument ${rw_rest[0]}" >&2; exit 2; }
rw_check_prefix ccache-rebuild.sh bin/scopealloc-clang lib/ScopeAlloc.so
export RW_ROOT=$root RW_PREFIX=$prefix RW_WORK=$work RW_JOBS=$jobs
. "$here/common.sh"
rw_ensure_packages ccache

src=$(rw_fetch_source zlib) || exit 1
export CCACHE_DIR=$work/cache CCACHE_CONFIGPATH=$work/ccache.conf CCACHE_BASEDIR=$work
rm -rf "$CCACHE_DIR" && mkdir -p "$CCACHE_DIR" && : > "$CCACHE_CONFIGPATH"
policy=$work/policy.yaml
write_policy() { # LIMIT
  printf 'version: 1\ntargets:\n  host:\n    triples: ["x86_64-*"]\n    max-stack-alloca: %s\n' "$1" > "$policy"
}

stat_of() { ccache --print-stats | awk -v k="$1" '$1 == k { print $2 }'; }
# build TREE: configure (its probes not counted), then make's compiles.
build() {
  local tree=$work/$1 log=$work/$1.log
  rm -rf "$tree" && cp -a "$src" "$tree" && : > "$log"
  (
    cd "$tree" || exit 1
    export CC="ccache $prefix/bin/scopealloc-clang"
    export CFLAGS="-O2 -g -ffile-prefix-map=$tree=."
    export SCOPEALLOC_FLAGS="-mllvm -scope-alloc-policy=$policy"
    rw_run "$log" ./configure --static || exit 1
    ccache --zero-stats > /dev/null
    rw_run "$log" make -j"$jobs" libz.a
  ) || { echo "ccache-rebuild: FAIL (build in $tree; log $log)"; exit 1; }
  hits=$(( $(stat_of direct_cache_hit) + $(stat_of preprocessed_cache_hit) ))
  misses=$(stat_of cache_miss)
  objects=$(ls "$tree"/*.o | wc -l)
}
fail=0
step() { # NAME WANT(hits|misses)
  local rate=$(( 100 * hits / (hits + misses) ))
  printf '%-46s %3d objects  %3d hits  %3d misses  hit rate %3d%%\n' "$1" "$objects" "$hits" "$misses" "$rate"
  case $2 in
    hits) [ "$misses" -eq 0 ] && [ "$hits" -eq "$objects" ] || { echo "ccache-rebuild: FAIL: $1 should be all hits"; fail=1; } ;;
    misses) [ "$hits" -eq 0 ] && [ "$misses" -eq "$objects" ] || { echo "ccache-rebuild: FAIL: $1 should be all misses"; fail=1; } ;;
  esac
}
same_objects() { # TREE1 TREE2 -> number of differing objects
  local n=0 o
  for o in "$work/$1"/*.o; do cmp -s "$o" "$work/$2/$(basename "$o")" || n=$((n + 1)); done
  echo "$n"
}

start=$(date +%s)
write_policy 0
build a; step "1. tree A, empty cache" misses
build b; step "2. tree B, same configuration" hits
differ=$(same_objects a b)
echo "   objects of B that differ from A's: $differ"
[ "$differ" -eq 0 ] || { echo "ccache-rebuild: FAIL: a hit served another object"; fail=1; }
# The placement must show: at limit 0 every buffer is demoted.
calls=$(nm "$work/b"/*.o 2>/dev/null | grep -c "U __scopealloc_frame_thunk")
[ "$calls" -gt 0 ] || { echo "ccache-rebuild: FAIL: no object calls the runtime"; fail=1; }

cp -a "$work/b" "$work/b.before"
write_policy 100000
build b; step "3. tree B, policy file changed" misses
changed=$(same_objects b b.before)
echo "   objects of B that differ from before the change: $changed"
[ "$changed" -gt 0 ] || { echo "ccache-rebuild: FAIL: the new policy changed no object"; fail=1; }
build a; step "4. tree A, the changed policy" hits
echo "built 4 times in $(( $(date +%s) - start ))s"
[ $fail -eq 0 ] && echo "ccache-rebuild: PASS"
exit $fail
