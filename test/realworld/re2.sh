#!/usr/bin/env bash
# re2 from the Debian source package "re2" (2022-06-01), C++ built with its
# own Makefile through scopealloc-clang++ at limit 0 (SCOPEALLOC_FLAGS), then
# upstream's quick tests, the Makefile's TESTS (what `make static-test` runs:
# charclass, compile, filtered_re2, mimics_pcre, parse, possible_match, re2,
# re2_arg, regexp, required_prefix, search, set, simplify,
# string_generator): each must end with PASS, and the runs must have used
# the workspace (SCOPEALLOC_STATS=1). The DFA's hot functions
# (DFA::AddToQueue, DFA::RunWorkqOnByte: a cold LogMessage beside clang's
# terminate landing pad) must bump their frames inline, calling no
# __scopealloc_mark/alloc/release (issue 23: they took the runtime calls,
# 1.6x the plain build's time). 31 s of CPU, nearly all of it the build
# (79 s wall on the shared 2-core machine at load 7). Not chosen: the BIGTESTS (dfa_test about 8 s, the exhaustive
# tests minutes); dfa_test is a benchmark (scripts/bench/run.sh --re2).
# Only the limit-0 build, as for zstd.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

src=$(rw_fetch_source re2) || exit 1
rw_re2_tables "$src" || rw_die "could not generate re2's Unicode tables"
program=re2
base=$RW_WORK/$program
mkdir -p "$base"
rw_ensure_packages binutils

re2_tests="charclass_test compile_test filtered_re2_test mimics_pcre_test
  parse_test possible_match_test re2_test re2_arg_test regexp_test
  required_prefix_test search_test set_test simplify_test
  string_generator_test"

build_re2() { # BUILD DIR
  local build=$1 dir=$2 log=$2/build.log t targets=
  rw_fresh_tree "$src" "$dir" && : > "$log"
  for t in $re2_tests; do targets="$targets obj/test/$t"; done
  (
    cd "$dir" || exit 1
    export SCOPEALLOC_FLAGS="$(rw_scopealloc_flags "$build")"
    # shellcheck disable=SC2086
    rw_run "$log" make -j"$RW_JOBS" CXX="$(rw_cc "$build")++" \
      CXXFLAGS="$(rw_cflags "$build")" $targets
  ) || return 1
  # Inline frames only in the DFA's inner loop: the pool's TLS, no call.
  local fn asm
  for fn in _ZN3re23DFA10AddToQueueEPNS0_5WorkqEij \
            _ZN3re23DFA14RunWorkqOnByteEPNS0_5WorkqES2_ijPb; do
    asm=$(objdump -dr --no-show-raw-insn --disassemble="$fn" "$dir/obj/re2/dfa.o")
    if ! grep -q '__scopealloc_tls_pool' <<< "$asm"; then
      rw_log "re2: $fn has no inline frame (nothing demoted at limit 0?)"
      return 1
    fi
    if grep -E '__scopealloc_(mark|alloc|release)\b' <<< "$asm" >&2; then
      rw_log "re2: $fn calls the runtime instead of bumping inline"
      return 1
    fi
  done
}

check_re2() { # BUILD DIR
  local build=$1 dir=$2 log=$2/check.log
  : > "$log"
  (
    cd "$dir" || exit 1
    # shellcheck disable=SC2046
    export $(rw_run_env "$build")
    # Each test prints its cases' names and PASS at the end (stdout); the
    # statistics go to stderr, into the log.
    for t in $re2_tests; do
      printf '+ obj/test/%s\n' "$t" >> "$log"
      if ! "obj/test/$t" > "$t.out" 2>> "$log"; then
        rw_log "re2: $t failed -- last lines of $log:"
        tail -n 25 "$log" | sed 's/^/    /' >&2
        exit 1
      fi
      out=$(tail -n 1 "$t.out")
      [ "$out" = PASS ] || { rw_log "re2: $t ended with '$out', not PASS"; exit 1; }
    done
  ) || return 1
  rw_need_allocs "$log" || return 1
}

dir=$base/limit0
if ! build_re2 limit0 "$dir"; then
  rw_record re2 limit0 "FAIL(build)"
  exit 1
fi
if check_re2 limit0 "$dir"; then
  rw_record re2 limit0 pass "$dir/check.log"
else
  rw_record re2 limit0 "FAIL(check)" "$dir/check.log"
  exit 1
fi
