#!/usr/bin/env bash
# libpng from the Debian source package "libpng1.6", built the way the
# distribution builds it (autoreconf, since Debian's patches change
# Makefile.am; ./configure; the shared library libpng16.so linked with its
# own version script libpng.vers) with scopealloc-clang at limit 0, then:
#  - exports: libpng16.so exports only what libpng.vers lists, carries no
#    copy of the ScopeAlloc runtime and imports __scopealloc_* from
#    libscopealloc_rt.so (one arena per thread for the program and the
#    library);
#  - its own test suite, `make check` (33 tests), with statistics;
#  - png_errors (libpng/png_errors.c, built with scopealloc-clang against
#    this libpng16.so): one valid decode, then 10,000 corrupted copies, each
#    ending in png_error -> longjmp to the program's setjmp. The workspace
#    peak after 10,000 must equal the one after 100, nothing may stay in
#    use, and the process must hold one runtime (one statistics block at
#    exit, whose peak and current agree).
# Only the limit-0 build: the suite is about the shared runtime, not about
# output equality (about 45 s).
# SCOPEALLOC_RUNTIME=static in the environment reproduces a private runtime
# copy in libpng16.so (the wrappers before the shared runtime): the export
# check and the statistics at exit then fail, with the figures.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

src=$(rw_fetch_source libpng1.6) || exit 1
program=libpng
base=$RW_WORK/$program
mkdir -p "$base"
rw_ensure_packages autoconf automake libtool zlib1g-dev

build_libpng() { # BUILD DIR
  local build=$1 dir=$2 log=$2/build.log
  rw_fresh_tree "$src" "$dir" && : > "$log"
  (
    cd "$dir" || exit 1
    # As debian/rules: a patch cannot make the new test script executable.
    chmod +x tests/pnggetset
    export SCOPEALLOC_FLAGS="$(rw_scopealloc_flags "$build")"
    export CC="$(rw_cc "$build")" CFLAGS="$(rw_cflags "$build")"
    rw_run "$log" autoreconf -fi &&
      rw_run "$log" ./configure --disable-static &&
      rw_run "$log" make -j"$RW_JOBS"
  )
}

# Names of the defined dynamic symbols of a shared object.
defined_dynamic() {
  readelf --dyn-syms -W "$1" |
    awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && $8 != "" {sub(/@.*/, "", $8); print $8}' |
    sort -u
}

check_exports() { # DIR LOG
  local dir=$1 log=$2 so=$1/.libs/libpng16.so bad
  {
    echo "+ export checks of $so"
    grep -E "^checking if libraries can be versioned" "$dir/build.log" || true
  } >> "$log"
  if ! grep -q -- "--version-script=libpng.vers" "$dir/build.log"; then
    rw_log "libpng16.so was not linked with --version-script=libpng.vers"
    return 1
  fi
  # libpng.vers: PNG16_0 { global: png_...; local: *; };
  grep -oE '^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*;' "$dir/libpng.vers" |
    tr -d ' \t;' | sort -u > "$dir/vers.txt"
  defined_dynamic "$so" > "$dir/exported.txt"
  # Besides the listed API: the version node's own name.
  bad=$(comm -23 "$dir/exported.txt" "$dir/vers.txt" | grep -vx 'PNG16_0' || true)
  echo "exported: $(wc -l < "$dir/exported.txt") symbols, libpng.vers lists $(wc -l < "$dir/vers.txt")" >> "$log"
  if [ -n "$bad" ]; then
    rw_log "libpng16.so exports symbols libpng.vers does not list: $(echo "$bad" | head -n 8 | tr '\n' ' ')"
    return 1
  fi
  # No copy of the runtime inside (not even hidden by the version script).
  bad=$(nm "$so" 2>/dev/null | awk '$2 ~ /^[TtDdBbRr]$/ && $3 ~ /scopealloc/ {print $3}' | sort -u)
  if [ -n "$bad" ]; then
    rw_log "libpng16.so holds its own copy of the ScopeAlloc runtime (a private arena per thread):" \
      "$(echo "$bad" | head -n 6 | tr '\n' ' ')"
    return 1
  fi
  local imported
  imported=$(readelf --dyn-syms -W "$so" | awk '$7 == "UND" && $8 ~ /^__scopealloc_/ {sub(/@.*/, "", $8); print $8}' | sort -u)
  echo "imported: $(echo $imported)" >> "$log"
  if [ -z "$imported" ]; then
    rw_log "libpng16.so imports no __scopealloc_* symbol (plugin not applied?)"
    return 1
  fi
  if ! readelf -d "$so" | grep -q 'NEEDED.*\[libscopealloc_rt\.so'; then
    rw_log "libpng16.so does not link libscopealloc_rt.so"
    return 1
  fi
  # The TLS model of the arena pointer, for the log: TPOFF (initial-exec)
  # or DTPMOD/DTPOFF (general-dynamic, __tls_get_addr).
  echo "TLS relocations of __scopealloc_tls_pool: $(readelf -rW "$so" |
    awk '/__scopealloc_tls_pool/ {print $3}' | sort -u | tr '\n' ' ')" >> "$log"
  readelf -d "$so" | grep -E 'NEEDED|FLAGS' >> "$log"
}

# png_errors' verdict plus the statistics every runtime copy prints at exit.
check_errors() { # DIR LOG
  local dir=$1 log=$2 blocks
  (
    cd "$dir" || exit 1
    export SCOPEALLOC_FLAGS="$RW_LIMIT0"
    rw_run "$log" "$(rw_cc limit0)" -O2 -Wall -Wextra -I. -o png_errors \
      "$here/libpng/png_errors.c" -L.libs -lpng16 -lz -Wl,-rpath,"$dir/.libs" || exit 1
    rw_run "$log" env SCOPEALLOC_STATS=1 ./png_errors 10000
  ) || return 1
  blocks=$(grep -c '^scopealloc statistics' "$log")
  local peak current
  read -r peak current < <(awk '/^after [0-9]+ decodes:/ {p = $6; c = $8; sub(/;/, "", c)} END {print p, c}' "$log")
  if [ "$blocks" != 1 ]; then
    rw_log "png_errors: $blocks runtime copies printed statistics at exit (want 1):"
    awk '$1 == "workspace" && $2 ~ /^[0-9]+$/ {printf "    workspace current %s peak %s allocs %s\n", $2, $3, $5}' "$log" >&2
    return 1
  fi
  if ! awk -v peak="$peak" '$1 == "workspace" && $2 ~ /^[0-9]+$/ {
         if ($2 != 0 || $3 != peak) { print "    at exit: current " $2 ", peak " $3 " (the program saw peak " peak ")"; bad = 1 } }
       END { exit bad }' "$log" >&2; then
    rw_log "png_errors: the statistics at exit disagree with the program's"
    return 1
  fi
  rw_log "png_errors: workspace peak $peak after 100 and after 10,000 png_error longjmps, current $current"
}

check_libpng() { # BUILD DIR
  local build=$1 dir=$2 log=$2/check.log
  : > "$log"
  check_exports "$dir" "$log" || return 1
  (
    cd "$dir" || exit 1
    # shellcheck disable=SC2046
    export $(rw_run_env "$build")
    rw_run "$log" make -j"$RW_JOBS" check
  ) || {
    grep -E '^(FAIL|ERROR):' "$dir/test-suite.log" 2>/dev/null | sed 's/^/    /' >&2
    return 1
  }
  grep -E '^# (TOTAL|PASS|FAIL|ERROR):' "$log" | tr '\n' ' ' >&2
  echo >&2
  rw_need_allocs "$dir"/tests/*.log || return 1
}

shopt -s nullglob
dir=$base/limit0
status=0
if ! build_libpng limit0 "$dir"; then
  rw_record libpng limit0 "FAIL(build)"
  exit 1
fi
if check_libpng limit0 "$dir"; then
  rw_record libpng limit0 pass "$dir"/tests/*.log
else
  rw_record libpng limit0 "FAIL(check)" "$dir"/tests/*.log
  status=1
fi
: > "$dir/errors.log"
if check_errors "$dir" "$dir/errors.log"; then
  rw_record libpng 10k-errors pass "$dir/errors.log"
else
  rw_record libpng 10k-errors "FAIL(png_error)" "$dir/errors.log"
  status=1
fi
exit $status
