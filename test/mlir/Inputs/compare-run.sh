#!/usr/bin/env bash
# compare-run.sh <plain> <app> <kernel> <n>
# Runs one kernel of the plain build (plain clang, no plugin) and of the
# ScopeAlloc build; both must exit 0 with the same stdout. Prints that stdout,
# then the ScopeAlloc build's SCOPEALLOC_STATS=1 table (its stderr), for
# FileCheck. A failing run prints its stderr (e.g. a pool's exhaustion
# message) and exits 1.
set -uo pipefail
plain=$1 app=$2 kernel=$3 n=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$plain" "$kernel" "$n" > "$tmp/plain.out" 2> "$tmp/plain.err"; then
  echo "FAIL: $plain $kernel $n exited non-zero:"
  cat "$tmp/plain.err"
  exit 1
fi
if ! env SCOPEALLOC_STATS=1 "$app" "$kernel" "$n" > "$tmp/app.out" 2> "$tmp/app.err"; then
  echo "FAIL: $app $kernel $n exited non-zero:"
  cat "$tmp/app.err"
  exit 1
fi
if ! cmp -s "$tmp/plain.out" "$tmp/app.out"; then
  echo "FAIL: $kernel $n: outputs differ (plain, then ScopeAlloc):"
  cat "$tmp/plain.out" "$tmp/app.out"
  exit 1
fi
cat "$tmp/app.out" "$tmp/app.err"
