#!/usr/bin/env bash
# check_named_pool_only.sh <nm> <program> <link map>
#
# named_pool_only.c, linked against the static runtime, must have taken
# only the layers below the default pool: no thread arena or fiber object,
# no mmap, no default-pool entry point or TLS pool (issue 11: a layered
# runtime). The named pools' own pthread key (their thread-exit work: a
# thread that dies holding a pool gives it back) is theirs, not the
# arena's, and allowed. Then it must run, and SCOPEALLOC_STATS=1 must still
# print its pool at exit.
set -euo pipefail
nm=$1 program=$2 map=$3
status=0
fail() { echo "check_named_pool_only: $*" >&2; status=1; }

grep -q 'libscopealloc_rt\.a(named_pool\.c\.o)' "$map" ||
  fail "$map: the program did not link named_pool.c.o from libscopealloc_rt.a"
for member in thread_arena fiber runtime_identity asan_names; do
  if grep -q "libscopealloc_rt\\.a($member\\.c\\.o)" "$map"; then
    fail "$map: a named-pool-only program linked $member.c.o"
  fi
done
symbols=$("$nm" "$program")
for sym in mmap mmap64 __scopealloc_mark __scopealloc_alloc __scopealloc_tls_pool; do
  if grep -Eq " $sym(@.*)?\$" <<<"$symbols"; then
    fail "$program: a named-pool-only program has $(grep -E " $sym(@.*)?\$" <<<"$symbols" | head -1)"
  fi
done

out=$(SCOPEALLOC_STATS=1 "$program" 2>&1) || fail "$program failed: $out"
grep -q '^named pool only ok$' <<<"$out" || fail "$program: no 'named pool only ok' in: $out"
# current 0, peak 1000 (the holder thread), capacity 4096, 5 allocs, 2 failures.
grep -Eq '^  only_pool +0 +1000 +4096 +5 +2$' <<<"$out" ||
  fail "$program: SCOPEALLOC_STATS=1 printed no only_pool row: $out"

[ "$status" = 0 ] && echo "named pool only: no thread arena linked, runs"
exit "$status"
