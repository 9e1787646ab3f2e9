#!/bin/sh
# make check: the program's output must be exact.
out=$(./bigapp) || exit 1
echo "$out"
test "$out" = "big_checksum 1572352 big_add 42" || { echo "unexpected output: $out" >&2; exit 1; }
