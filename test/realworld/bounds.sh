#!/usr/bin/env bash
# Whole-program bounds on real programs (issue 13, "Proof"): zlib, bzip2,
# Lua 5.4 and SQLite from their Debian source packages, each built three
# times:
#   default  scopealloc-clang -O2, default policy
#   limit0   scopealloc-clang -O2 -mllvm -scope-alloc-max-stack-alloca=0
#   gcc12    gcc-12 -O2 -fstack-usage -fcallgraph-info=su
# then:
#   - scopealloc-bound on each linked image of the two ScopeAlloc builds
#     (zlib: example, minigzip, example64, minigzip64, infcover, linked
#     with libz.a; bzip2: bzip2 linked with libbz2.a instead of Debian's
#     libbz2.so, since the tool reads one image; lua; sqlite3), with the
#     assumptions of analysis/assumptions.conf (the tool's built-in table);
#   - utils/gcc_callgraph_bound.py on the .ci/.su files of the objects of
#     the same images from the gcc12 build, with the same assumptions;
#   - the programs' own tests on the ScopeAlloc builds with
#     bounds/peaks.so preloaded: per process, the main thread's painted
#     machine-stack high-water mark below main and its pool peaks;
#   - bounds_report.py checks: zlib and bzip2 bounded, every measured peak
#     (stack and workspace) at most its bound; Lua and SQLite unbounded
#     with their recursion cycles named; a calibration program
#     (bounds/calibrate.c) measured within 256 bytes of its bound; and it
#     writes bounds-comparison.md, the table of both tools' bounds with the
#     differences explained, which must equal docs/bounds-comparison.md
#     when the build's clang is the one the page was made with (the
#     primary LLVM; --update-doc rewrites that file).
#
#   bash test/realworld/bounds.sh [--prefix P] [--work DIR] [--src DIR] [--jobs N]
#                                 [--update-doc] [--no-build]
#
# --prefix  ScopeAlloc install prefix (default: $SCOPEALLOC_PREFIX, else
#           build/install); --work  work directory (default
#           build/realworld-bounds); --src  where the downloaded sources
#           and the SQLite amalgamation are kept (default <work>/src; ctest
#           shares the `realworld` test's);
# --no-build  reuse the builds of the last run in the work directory (to
#           iterate on the checks and the table).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=${SCOPEALLOC_PREFIX:-$root/build/install}
work=$root/build/realworld-bounds
jobs=$(nproc 2>/dev/null || echo 2)
update_doc=0
src_dir=
no_build=0
. "$here/args.sh"
rw_parse_args bounds.sh "$@"
set -- "${rw_rest[@]}"
while [ $# -gt 0 ]; do
  case $1 in
    --src) src_dir=$2; shift 2 ;;
    --src=*) src_dir=${1#*=}; shift ;;
    --update-doc) update_doc=1; shift ;;
    --no-build) no_build=1; shift ;;
    *) echo "bounds.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
rw_check_prefix bounds.sh bin/scopealloc-clang bin/scopealloc-bound lib/ScopeAlloc.so
export RW_ROOT=$root RW_PREFIX=$prefix RW_WORK=$work RW_JOBS=$jobs RW_SRC=${src_dir:-$work/src}
mkdir -p "$RW_SRC"
. "$here/common.sh"
command -v "$RW_GCC" > /dev/null || rw_ensure_packages gcc-12
rw_ensure_packages make dpkg-dev

exec 9> "$work/.lock"
flock 9
start=$(date +%s)
builds="default limit0 gcc12"
bound=$prefix/bin/scopealloc-bound
conf=$root/analysis/assumptions.conf
gccbound=$root/utils/gcc_callgraph_bound.py
results=$work/results
rm -rf "$results" && mkdir -p "$results"
failed=0
fail() { rw_log "FAIL: $*"; failed=1; }

# Peak measurement and its calibration.
peaks=$work/peaks.so
"$RW_CLANG" -O2 -Wall -shared -fPIC -o "$peaks" "$here/bounds/peaks.c" -ldl ||
  rw_die "cannot build $peaks"
# run_measured OUT CMD...: CMD with peaks.so preloaded, appending to OUT.
run_measured() {
  local out=$1
  shift
  PEAKS_OUT=$out LD_PRELOAD=$peaks LD_BIND_NOW=1 SCOPEALLOC_STATS=0 "$@"
}

# The same assumptions, all 0: the bound of the program's own frames.
own_conf=$results/own.conf
sed -n 's/^assume \([^ ]*\) .*/assume \1 0/p' "$conf" > "$own_conf"

# bound_image PROGRAM BUILD IMAGE: the tool's JSON and text for IMAGE, the
# JSON of its own frames, and its facts as read.
bound_image() {
  local program=$1 build=$2 image=$3 out
  out=$results/$1.$2.$(basename "$3")
  "$bound" --config "$conf" --json "$image" > "$out.json" &&
    "$bound" --config "$conf" "$image" > "$out.txt" &&
    "$bound" --config "$own_conf" --json "$image" > "$out.own.json" &&
    "$bound" --dump-facts "$image" > "$out.facts" ||
    fail "scopealloc-bound $image"
}
# gcc_bound PROGRAM IMAGE CI...: the GCC call-graph sum over the objects,
# on GCC's own graph (gcc12) and with the indirect-call targets
# scopealloc-bound finds by type in the default build's facts (gcc12t).
gcc_bound() {
  local program=$1 name=$2 targets=$results/$1.targets.$2 out
  shift 2
  python3 "$here/bounds/indirect_targets.py" < "$results/$program.default.$name.facts" > "$targets" ||
    fail "indirect-call targets of $program/default/$name"
  out=$results/$program.gcc12.$name
  python3 "$gccbound" --config "$conf" --json "$@" > "$out.json" &&
    python3 "$gccbound" --config "$conf" "$@" > "$out.txt" &&
    python3 "$gccbound" --config "$own_conf" --json "$@" > "$out.own.json" || fail "gcc_callgraph_bound.py $out"
  out=$results/$program.gcc12t.$name
  python3 "$gccbound" --config "$conf" --indirect-targets "$targets" --json "$@" > "$out.json" &&
    python3 "$gccbound" --config "$conf" --indirect-targets "$targets" "$@" > "$out.txt" &&
    python3 "$gccbound" --config "$own_conf" --indirect-targets "$targets" --json "$@" > "$out.own.json" ||
    fail "gcc_callgraph_bound.py $out"
}

calib=$work/calibrate/default
mkdir -p "$calib"
SCOPEALLOC_FLAGS="" "$prefix/bin/scopealloc-clang" -O2 -o "$calib/calibrate" "$here/bounds/calibrate.c" ||
  rw_die "cannot build the calibration program"
bound_image calibrate default "$calib/calibrate"
run_measured "$results/calibrate.default.peaks" "$calib/calibrate"

# ---- zlib: configure && make; the static test programs are the images.
zlib_images="example minigzip example64 minigzip64 infcover"
zlib_src=$(rw_fetch_source zlib) || exit 1
build_zlib() { # BUILD DIR
  local build=$1 dir=$2 log=$2/build.log targets="all infcover"
  [ "$build" = gcc12 ] && targets="$zlib_images"
  rw_fresh_tree "$zlib_src" "$dir" && : > "$log"
  (
    cd "$dir" || exit 1
    export SCOPEALLOC_FLAGS="$(rw_scopealloc_flags "$build")"
    export CC="$(rw_cc "$build")" CFLAGS="$(rw_cflags "$build")"
    rw_run "$log" ./configure --static &&
      rw_run "$log" make -j"$RW_JOBS" $targets
  )
}
check_zlib() { # BUILD DIR
  local build=$1 dir=$2 out=$results/zlib.$1.peaks level
  (
    cd "$dir" || exit 1
    cat $(ls "$zlib_src"/*.c "$zlib_src"/*.h | sort) "$zlib_src"/test/*.c > input
    run_measured "$out" make teststatic test64 > check.log 2>&1 &&
      run_measured "$out" ./infcover >> check.log 2>&1 || exit 1
    for level in -1 -6 -9 -h -r; do
      run_measured "$out" ./minigzip $level < input > "out$level.gz" &&
        run_measured "$out" ./minigzip -d < "out$level.gz" > "out$level" &&
        cmp -s input "out$level" || { rw_log "minigzip $level round trip failed"; exit 1; }
    done
  )
}
zlib_ci() { # DIR IMAGE: the .ci files of IMAGE's objects (IMAGE.o and libz.a's)
  echo "$1/$2.ci"
  ar t "$1/libz.a" | sed "s|^\(.*\)\.o\$|$1/\1.ci|"
}

# ---- bzip2: Debian's Makefile; bzip2 linked with libbz2.a.
bzip2_src=$(rw_fetch_source bzip2) || exit 1
build_bzip2() { # BUILD DIR
  local build=$1 dir=$2 log=$2/build.log cc cflags
  rw_fresh_tree "$bzip2_src" "$dir" && : > "$log"
  (
    cd "$dir" || exit 1
    export SCOPEALLOC_FLAGS="$(rw_scopealloc_flags "$build")"
    cc=$(rw_cc "$build")
    cflags="$(rw_cflags "$build") -D_FILE_OFFSET_BITS=64"
    rw_run "$log" make -j"$RW_JOBS" CC="$cc" CFLAGS="$cflags" libbz2.a bzip2.o &&
      rw_run "$log" $cc $cflags -o bzip2 bzip2.o libbz2.a
  )
}
check_bzip2() { # BUILD DIR
  local build=$1 dir=$2 out=$results/bzip2.$1.peaks level
  (
    cd "$dir" || exit 1
    cat manual.ps bzip2.c blocksort.c > input
    # -o bzip2: the static bzip2 just linked, not Debian's on libbz2.so.
    run_measured "$out" make -o bzip2 test > check.log 2>&1 || exit 1
    for level in -1 -9; do
      run_measured "$out" ./bzip2 $level < input > "out$level.bz2" &&
        run_measured "$out" ./bzip2 -t "out$level.bz2" &&
        run_measured "$out" ./bzip2 -d < "out$level.bz2" > "out$level" &&
        run_measured "$out" ./bzip2 -ds < "out$level.bz2" > "out$level.s" &&
        cmp -s input "out$level" && cmp -s input "out$level.s" ||
        { rw_log "bzip2 $level round trip failed"; exit 1; }
    done
  )
}

# ---- Lua: the interpreter from src/ (LUA_USE_LINUX), as lua.sh.
lua_src=$(rw_fetch_source lua5.4) || exit 1
build_lua() { # BUILD DIR
  local build=$1 dir=$2 log=$2/build.log
  rm -rf "$dir" && mkdir -p "$dir/obj" "$dir/include" && : > "$log"
  (
    cd "$dir" || exit 1
    export SCOPEALLOC_FLAGS="$(rw_scopealloc_flags "$build")"
    printf '#define DEB_HOST_MULTIARCH "%s"\n' \
      "$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)" \
      > include/lua5.4-deb-multiarch.h
    cc=$(rw_cc "$build")
    cflags="$(rw_cflags "$build") -std=gnu99 -Wall -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -I$dir/include"
    src=$lua_src
    export cc cflags src
    # shellcheck disable=SC2016
    (cd "$src/src" && ls ./*.c | grep -v '^./luac.c$') |
      rw_run "$log" xargs -P "$RW_JOBS" -I{} sh -c '$cc $cflags -c "$src/src/{}" -o "obj/$(basename {} .c).o"' &&
      rw_run "$log" $cc $(rw_cflags "$build") -Wl,-E -o lua obj/*.o -lm -ldl
  )
}
check_lua() { # BUILD DIR
  local build=$1 dir=$2 out=$results/lua.$1.peaks s
  for s in "$here"/lua/*.lua; do
    (cd "$here/lua" && PEAKS_OUT=$out LD_PRELOAD=$peaks LD_BIND_NOW=1 SCOPEALLOC_STATS=0 \
      exec -a lua "$dir/lua" "$(basename "$s")") > /dev/null 2>&1
  done
  return 0 # lua.sh checks the results; fail-*.lua fail on purpose
}

# ---- SQLite: the shell from the amalgamation, as sqlite.sh.
sqlite_src=$(rw_fetch_source sqlite3) || exit 1
amalg=$(rw_sqlite_amalgamation "$sqlite_src") || rw_die "no SQLite amalgamation"
build_sqlite_all() { # all builds at once: make -j overlaps the slow compiles
  local mk=$work/sqlite/Makefile build d
  mkdir -p "$work/sqlite"
  {
    echo "all:"
    for build in $builds; do
      d=$work/sqlite/$build
      echo "all: $d/sqlite3"
      echo "$d/sqlite3.o $d/shell.o $d/sqlite3: CC := $(rw_cc "$build")"
      echo "$d/sqlite3.o $d/shell.o $d/sqlite3: CFLAGS := $(rw_cflags "$build")"
      echo "$d/sqlite3.o $d/shell.o $d/sqlite3: export SCOPEALLOC_FLAGS := $(rw_scopealloc_flags "$build")"
      echo "$d/sqlite3.o: $amalg/sqlite3.c ; \$(CC) \$(CFLAGS) $(echo $RW_SQLITE_DEFS) -I$amalg -c \$< -o \$@"
      echo "$d/shell.o: $amalg/shell.c ; \$(CC) \$(CFLAGS) $(echo $RW_SQLITE_DEFS) -I$amalg -c \$< -o \$@"
      echo "$d/sqlite3: $d/sqlite3.o $d/shell.o ; \$(CC) \$(CFLAGS) -o \$@ \$^ -lm -ldl -lpthread"
    done
  } > "$mk"
  for build in $builds; do rm -rf "${work:?}/sqlite/$build" && mkdir -p "$work/sqlite/$build"; done
  # The sqlite3.c compiles first, longest first.
  (cd "$work/sqlite" && make -k -j"$RW_JOBS" -f "$mk" \
    "$work/sqlite/gcc12/sqlite3.o" "$work/sqlite/default/sqlite3.o" \
    "$work/sqlite/limit0/sqlite3.o" all) > "$work/sqlite/build.log" 2>&1
}
check_sqlite() { # BUILD DIR
  local build=$1 dir=$2 out=$results/sqlite.$1.peaks s name
  for s in "$here"/sqlite/*.sql; do
    name=$(basename "$s" .sql)
    rm -f "$dir/$name.db"*
    (cd "$here/sqlite" && run_measured "$out" "$dir/sqlite3" "$dir/$name.db" < "$s") > /dev/null 2>&1
  done
  return 0 # sqlite.sh checks the results
}

# ---- Builds, bounds, measurements.
if [ $no_build = 0 ]; then
  rw_log "building sqlite ($builds) in the background"
  build_sqlite_all &
  sqlite_pid=$!
  for program in zlib bzip2 lua; do
    for build in $builds; do
      dir=$work/$program/$build
      rw_log "$program [$build]: building"
      "build_$program" "$build" "$dir" || fail "$program [$build]: build (log $dir/build.log)"
    done
  done
  wait $sqlite_pid || true
fi
for build in $builds; do
  [ -x "$work/sqlite/$build/sqlite3" ] || fail "sqlite [$build]: build (log $work/sqlite/build.log)"
done

for program in zlib bzip2 lua sqlite; do
  case $program in
    zlib) images=$zlib_images ;;
    bzip2) images=bzip2 ;;
    lua) images=lua ;;
    sqlite) images=sqlite3 ;;
  esac
  for build in default limit0 gcc12; do
    dir=$work/$program/$build
    if [ $build != gcc12 ]; then
      for image in $images; do
        [ -x "$dir/$image" ] && bound_image $program $build "$dir/$image"
      done
    fi
    rw_log "$program [$build]: running its tests with peaks.so"
    [ -d "$dir" ] && { "check_$program" $build "$dir" || fail "$program [$build]: its tests failed (logs in $dir)"; }
  done
  dir=$work/$program/gcc12
  for image in $images; do
    case $program in
      zlib) cis=$(zlib_ci "$dir" "$image") ;;
      bzip2) cis=$(ls "$dir"/*.ci | grep -v '/bzip2recover.ci$') ;;
      lua) cis=$(ls "$dir"/obj/*.ci) ;;
      sqlite) cis="$dir/sqlite3.ci $dir/shell.ci" ;;
    esac
    # shellcheck disable=SC2086
    [ -x "$dir/$image" ] && gcc_bound $program "$image" $cis
  done
done

# ---- Checks and the comparison table.
clang_major=$("$RW_CLANG" --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
doc_args=(--doc "$root/docs/bounds-comparison.md" --clang-major "$clang_major")
[ "$update_doc" = 1 ] && doc_args+=(--update-doc)
python3 "$here/bounds_report.py" --results "$results" --work "$work" --src "$RW_SRC" \
  "${doc_args[@]}" || failed=1
echo "time: $(( $(date +%s) - start ))s"
if [ $failed = 0 ]; then echo "realworld-bounds: pass"; else echo "realworld-bounds: FAIL"; fi
exit $failed
