#!/usr/bin/env bash
# SQLite from the Debian source package "sqlite3" (the canonical source
# tree): the amalgamation (sqlite3.c, shell.c) is generated once with the
# package's own ./configure && make sqlite3.c shell.c (needs tclsh) and
# cached next to the sources; every build compiles it into the `sqlite3`
# shell with Debian's feature flags. The shell runs
# test/realworld/sqlite/*.sql on a fresh database file; stdout, stderr
# (statistics removed) and the exit status must equal those of the plain
# clang -O2 build, and each script must reach its last statement.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

src=$(rw_fetch_source sqlite3) || exit 1
program=sqlite
base=$RW_WORK/$program
mkdir -p "$base"
sqls=$(cd "$here/sqlite" && ls ./*.sql | sort)
rw_lto=thin
builds=$(rw_builds)

defs=$RW_SQLITE_DEFS

# The amalgamation, generated once per source tree.
if ! amalg=$(rw_sqlite_amalgamation "$src"); then
  rw_record $program "all" "FAIL(amalgamation)"
  exit 1
fi

# All builds at once, so that make -j overlaps the slow sqlite3.c compiles
# (longest first).
mk=$base/Makefile
{
  echo "all:"
  for build in $builds; do
    d=$(rw_dirname "$build")
    echo "all: $d/sqlite3"
    echo "$d/sqlite3.o $d/shell.o $d/sqlite3: CC := $(rw_cc "$build")"
    echo "$d/sqlite3.o $d/shell.o $d/sqlite3: CFLAGS := $(rw_cflags "$build")"
    echo "$d/sqlite3.o $d/shell.o $d/sqlite3: export SCOPEALLOC_FLAGS := $(rw_scopealloc_flags "$build")"
    echo "$d/sqlite3.o: $amalg/sqlite3.c ; \$(CC) \$(CFLAGS) $(echo $defs) -I$amalg -c \$< -o \$@"
    echo "$d/shell.o: $amalg/shell.c ; \$(CC) \$(CFLAGS) $(echo $defs) -I$amalg -c \$< -o \$@"
    echo "$d/sqlite3: $d/sqlite3.o $d/shell.o ; \$(CC) \$(CFLAGS) -o \$@ \$^ -lm -ldl -lpthread"
  done
} > "$mk"
objs=""
for build in limit0+asan plain limit0 limit0+lto limit0+thinlto; do
  case " $builds " in *" $build "*) objs="$objs $(rw_dirname "$build")/sqlite3.o" ;; esac
done
for build in $builds; do
  d=$base/$(rw_dirname "$build")
  rm -rf "$d" && mkdir -p "$d"
done
rw_log "compiling sqlite3.c and shell.c for: $builds"
(cd "$base" && make -k -j"$RW_JOBS" -f "$mk" $objs all) > "$base/build.log" 2>&1

check_sqlite() { # BUILD DIR
  local build=$1 dir=$2 log=$2/check.log failed=0 s name rc
  : > "$log"
  mkdir -p "$dir/out"
  for s in $sqls; do
    name=$(basename "$s" .sql)
    rm -f "$dir/$name.db" "$dir/$name.db-wal" "$dir/$name.db-shm"
    rc=0
    (
      cd "$here/sqlite" || exit 1
      # shellcheck disable=SC2046
      export $(rw_run_env "$build")
      exec "$dir/sqlite3" "$dir/$name.db" < "$s"
    ) > "$dir/out/$name.out" 2> "$dir/out/$name.err.raw" || rc=$?
    cat "$dir/out/$name.err.raw" >> "$log"
    rw_strip_stats < "$dir/out/$name.err.raw" > "$dir/out/$name.err"
    echo "exit $rc" >> "$dir/out/$name.err"
    if [ "$build" = plain ]; then
      if ! grep -qx "END $name.sql" "$dir/out/$name.out"; then
        rw_log "sqlite $name.sql: the plain clang build did not finish it (exit $rc): $dir/out/$name.err"
        failed=1
      fi
    else
      rw_same "sqlite $name.sql stdout (vs plain clang)" "$base/plain/out/$name.out" "$dir/out/$name.out" || failed=1
      rw_same "sqlite $name.sql stderr and exit status (vs plain clang)" "$base/plain/out/$name.err" "$dir/out/$name.err" || failed=1
    fi
  done
  if [ "$build" != plain ]; then rw_need_allocs "$log" || failed=1; fi
  return $failed
}

for build in $builds; do
  dir=$base/$(rw_dirname "$build")
  if [ ! -x "$dir/sqlite3" ]; then
    rw_log "sqlite [$build]: build failed, see $base/build.log:"
    grep -E "error|Error" "$base/build.log" | head -n 10 | sed 's/^/    /' >&2
    rw_record $program "$build" "FAIL(build)"
  elif ! check_sqlite "$build" "$dir"; then
    rw_record $program "$build" "FAIL(check)" "$dir/check.log"
  else
    rw_record $program "$build" pass "$dir/check.log"
  fi
done
