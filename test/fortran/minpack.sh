#!/usr/bin/env bash
# MINPACK (Debian source package "minpack", Fortran 77) built by plain flang
# and by scopealloc-flang at limit 0, then Debian's own test set of the
# package (debian/tests/examples: the drivers ex/file14-20 of the double
# precision routines, fed ex/file21-23): the outputs must be byte for byte
# the plain build's, with every stack buffer of library and drivers moved.
#   minpack.sh --prefix <ScopeAlloc install> --work <dir> --llvm-bin <dir>
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../client-args.sh"
RW_WORK=$work
. "$(dirname "${BASH_SOURCE[0]}")/../realworld/common.sh"

src=$(rw_fetch_source minpack) || exit 1
build() { # <dir> <compiler words...>: the library, the drivers, their output
  local dir=$1 n
  shift
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
  for f in "$src"/*.f; do
    "$@" -O2 -c "$f" -o "$(basename "${f%.f}").o" 2>> remarks || fail "compiling $f: $(tail -5 remarks)"
  done
  "$llvm_bin/llvm-ar" rcs libminpack.a ./*.o
  for n in 14 15 16 17 18 19 20; do
    cp "$src/ex/file$n" "test$n.f"
    "$@" -O2 "test$n.f" libminpack.a -o "test$n" 2>> remarks || fail "building test$n: $(tail -5 remarks)"
  done
  # As debian/tests/examples runs them.
  {
    ./test14
    ./test15 < "$src/ex/file21"; ./test16 < "$src/ex/file21"
    ./test17 < "$src/ex/file22"; ./test18 < "$src/ex/file22"; ./test19 < "$src/ex/file22"
    ./test20 < "$src/ex/file23"
  } > out.txt 2> err.txt || fail "$dir: a test program failed: $(tail -5 err.txt)"
}
build "$work/plain" "$llvm_bin/flang"
build "$work/limit0" "$prefix/bin/scopealloc-flang" -mllvm -scope-alloc-max-stack-alloca=0 -Rpass=scope-alloc
lines=$(wc -l < "$work/plain/out.txt")
[ "$lines" -gt 1000 ] || fail "the plain build printed only $lines lines"
cmp "$work/plain/out.txt" "$work/limit0/out.txt" || fail "limit 0's output differs from plain flang's"
moved=$(grep -c "moved to pool 'workspace'" "$work/limit0/remarks")
stays=$(grep -c "stays on the stack" "$work/limit0/remarks")
[ "$moved" -gt 0 ] && [ "$stays" = 0 ] || fail "limit 0 should move every buffer ($moved moved, $stays stay)"
echo "minpack $(basename "$src"): $lines lines of Debian's test output, identical; $moved buffers moved to the workspace at limit 0"
echo PASS
