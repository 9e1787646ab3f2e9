# Shared helpers of the real-world suite; sourced by run.sh and by each
# program's script (zlib.sh, bzip2.sh, lua.sh, sqlite.sh).
#
# Environment (set by run.sh):
#   RW_ROOT    the repository
#   RW_PREFIX  the ScopeAlloc install prefix (bin/scopealloc-clang, lib/...)
#   RW_WORK    work directory: src/ (downloaded Debian sources, reused),
#   RW_SRC     where the sources are kept (default $RW_WORK/src; bounds.sh
#              shares the `realworld` test's),
#              <program>/<build>/ (build trees, rebuilt every run), results/
#   RW_JOBS    make -j
# A program script defines one function per build it wants and calls
# rw_record for every build it checked.

# Defaults, so that a program script also runs on its own
# (bash test/realworld/lua.sh); run.sh sets them all.
RW_ROOT=${RW_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RW_PREFIX=${RW_PREFIX:-$RW_ROOT/build/install}
RW_WORK=${RW_WORK:-$RW_ROOT/build/realworld}
RW_SRC=${RW_SRC:-$RW_WORK/src}
RW_JOBS=${RW_JOBS:-$(nproc 2>/dev/null || echo 2)}
RW_BUILDS=${RW_BUILDS:-plain limit0 limit0+asan}
RW_RUN_ID=${RW_RUN_ID:-$$}
RW_CLANG=${RW_CLANG:-/usr/lib/llvm-22/bin/clang} # ctest sets the plugin's clang
RW_GCC=${RW_GCC:-gcc-12}
RW_LIMIT0="-mllvm -scope-alloc-max-stack-alloca=0"
RW_ASAN="-fsanitize=address -fno-omit-frame-pointer"

rw_log() { printf '[realworld] %s\n' "$*" >&2; }
rw_die() { printf '[realworld] error: %s\n' "$*" >&2; exit 1; }

rw_sudo() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# rw_ensure_packages PKG...: apt-get install -y only the missing ones.
rw_ensure_packages() {
  local missing=() p
  for p in "$@"; do
    case $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) in
      *"install ok installed"*) ;;
      *) missing+=("$p") ;;
    esac
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  rw_log "installing ${missing[*]}"
  rw_apt_update_once
  DEBIAN_FRONTEND=noninteractive rw_sudo apt-get install -y -o DPkg::Lock::Timeout=300 --no-install-recommends "${missing[@]}" >&2
}

# apt-get update at most once per run (across program scripts: a stamp in RW_WORK).
rw_apt_update_once() {
  local stamp=$RW_WORK/.apt-updated.$RW_RUN_ID
  [ -f "$stamp" ] && return 0
  rw_log "apt-get update"
  rw_sudo apt-get update >&2
  mkdir -p "$RW_WORK" && touch "$stamp"
}

# Make sure apt knows Debian's source packages: scripts/setup.sh --deb-src
# keeps exactly one deb-src entry (adding ScopeAlloc's when none is
# configured, removing it when it would duplicate another) and runs
# apt-get update when the entry is new.
rw_ensure_deb_src() {
  bash "$RW_ROOT/scripts/setup.sh" --deb-src >&2
}

# rw_fetch_source PKG: prints the unpacked Debian source tree of PKG
# ($RW_SRC/PKG/PKG-VERSION), downloading it with apt-get source the
# first time only.
rw_fetch_source() {
  local pkg=$1 dir=$RW_SRC/$1 tree
  tree=$(cat "$dir/.tree" 2>/dev/null || true)
  if [ -n "$tree" ] && [ -d "$dir/$tree" ]; then
    echo "$dir/$tree"
    return 0
  fi
  rw_ensure_packages dpkg-dev xz-utils
  rw_ensure_deb_src
  rm -rf "$dir" && mkdir -p "$dir"
  rw_log "apt-get source $pkg"
  if ! (cd "$dir" && apt-get source "$pkg") > "$dir.log" 2>&1; then
    # A mirror may lag behind its index (a security update listed but not
    # yet downloadable): fall back to the other versions apt knows, newest
    # first.
    local version fetched=0
    for version in $(apt-cache showsrc "$pkg" 2>/dev/null |
                       awk '/^Version:/ {print $2}' | sort -u -r -V); do
      rm -rf "$dir" && mkdir -p "$dir"
      rw_log "apt-get source $pkg=$version"
      if (cd "$dir" && apt-get source "$pkg=$version") >> "$dir.log" 2>&1; then
        fetched=1
        break
      fi
    done
    if [ $fetched = 0 ]; then
      cat "$dir.log" >&2
      rw_die "apt-get source $pkg failed"
    fi
  fi
  tree=$(cd "$dir" && find . -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | head -n1)
  [ -n "$tree" ] || rw_die "apt-get source $pkg unpacked nothing in $dir"
  echo "$tree" > "$dir/.tree"
  echo "$dir/$tree"
}

# SQLite: feature flags of Debian's build (debian/rules) and of upstream's
# configure (math functions), minus the ones about installation.
RW_SQLITE_DEFS="-DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_FTS3
 -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_RTREE=1 -DSQLITE_SOUNDEX=1
 -DSQLITE_ENABLE_UNLOCK_NOTIFY -DSQLITE_OMIT_LOOKASIDE=1 -DSQLITE_ENABLE_DBSTAT_VTAB
 -DSQLITE_ALLOW_ROWID_IN_VIEW -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT=1
 -DSQLITE_ENABLE_LOAD_EXTENSION -DSQLITE_ENABLE_JSON1 -DSQLITE_LIKE_DOESNT_MATCH_BLOBS
 -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_FTS3_TOKENIZER=1 -DSQLITE_USE_URI=1
 -DSQLITE_MAX_SCHEMA_RETRY=25 -DSQLITE_ENABLE_PREUPDATE_HOOK -DSQLITE_ENABLE_SESSION
 -DSQLITE_ENABLE_STMTVTAB -DSQLITE_MAX_VARIABLE_NUMBER=250000
 -DSQLITE_ENABLE_MATH_FUNCTIONS -fno-strict-aliasing"

# rw_sqlite_amalgamation SRC: prints the directory holding sqlite3.c,
# sqlite3.h and shell.c, generated from the SQLite source tree SRC with its
# own ./configure && make (the Debian source carries no amalgamation; this
# needs tclsh), once per tree: cached in $RW_SRC/sqlite3/amalgamation.
rw_sqlite_amalgamation() {
  local src=$1 amalg=$RW_SRC/sqlite3/amalgamation
  if [ ! -f "$amalg/.done" ] || [ "$(cat "$amalg/.done")" != "$src" ]; then
    rw_ensure_packages tcl make
    rw_log "generating the SQLite amalgamation"
    rm -rf "$amalg" && mkdir -p "$amalg"
    (cd "$amalg" &&
      rw_run "$amalg/gen.log" "$src/configure" --disable-tcl CC="$RW_CLANG" &&
      rw_run "$amalg/gen.log" make -j"$RW_JOBS" sqlite3.c shell.c) || return 1
    echo "$src" > "$amalg/.done"
  fi
  echo "$amalg"
}

# rw_re2_tables SRC: generates re2's Unicode and Perl tables in the re2
# source tree SRC, once (the Debian source drops them; debian/rules makes
# them with REBUILD_TABLES=1 from Debian's unicode-data, which its patch
# points re2/unicode.py at). Debian's python3, which has python3-six.
rw_re2_tables() {
  local src=$1 t
  [ -s "$src/re2/unicode_groups.cc" ] && [ -s "$src/re2/unicode_casefold.cc" ] &&
    [ -s "$src/re2/perl_groups.cc" ] && return 0
  rw_ensure_packages make perl python3 python3-six unicode-data
  rw_log "generating re2's Unicode tables"
  for t in perl_groups unicode_casefold unicode_groups; do rm -f "$src/re2/$t.cc"; done
  # A failed generator leaves part of its table behind: none may stay.
  rw_run "$src.tables.log" env PATH="/usr/bin:$PATH" make -C "$src" REBUILD_TABLES=1 \
    re2/perl_groups.cc re2/unicode_casefold.cc re2/unicode_groups.cc && return 0
  for t in perl_groups unicode_casefold unicode_groups; do rm -f "$src/re2/$t.cc"; done
  return 1
}

# rw_fresh_tree SRC DEST: a fresh copy of a source tree to build in.
rw_fresh_tree() {
  rm -rf "$2" && mkdir -p "$(dirname "$2")" && cp -a "$1" "$2"
}

# Compiler and flags of each build kind.
#   plain          clang -O2 (the reference)
#   limit0         scopealloc-clang -O2 at limit 0
#   limit0+asan    the same with AddressSanitizer
#   limit0+lto     the same with full LTO (-flto): the pass runs in lld
#   limit0+thinlto the same with ThinLTO (-flto=thin)
#   limit0+planned full LTO with plan: static: the link puts the frames it
#                  can at fixed offsets (docs/static-planning.md)
#   default        scopealloc-clang -O2 at the default policy (bounds.sh)
#   gcc12          gcc-12 -O2 -fstack-usage -fcallgraph-info=su: GCC's own
#                  frame sizes and call graph, per object (bounds.sh)
# A program makes the LTO builds it lists in rw_lto ("full thin planned":
# zlib; "full planned": bzip2; "planned": lua; "thin": sqlite, whose LTO
# links take longest).
rw_cc() {
  case $1 in
    plain) echo "$RW_CLANG" ;;
    gcc12) echo "$RW_GCC" ;;
    *) echo "$RW_PREFIX/bin/scopealloc-clang" ;;
  esac
}
rw_cflags() {
  case $1 in
    plain|limit0|default) echo "-O2" ;;
    gcc12) echo "-O2 -fstack-usage -fcallgraph-info=su" ;;
    limit0+asan) echo "-O2 $RW_ASAN" ;;
    limit0+lto) echo "-O2 -flto" ;;
    limit0+thinlto) echo "-O2 -flto=thin" ;;
    limit0+planned) echo "-O2 -flto" ;;
    *) rw_die "unknown build $1" ;;
  esac
}
# Flags only the wrapper sees (SCOPEALLOC_FLAGS), so that configure scripts
# and Makefiles that do not pass CFLAGS everywhere still get them.
rw_scopealloc_flags() {
  case $1 in
    plain|default|gcc12) echo "" ;;
    # The link's remarks say which frames it planned (rw_plan_count).
    limit0+planned) echo "$RW_LIMIT0 -mllvm -scope-alloc-plan=static -Rpass=scope-alloc -Rpass-missed=scope-alloc -Rpass-analysis=scope-alloc" ;;
    *) echo "$RW_LIMIT0" ;;
  esac
}
rw_dirname() { echo "${1//+/-}"; }
# Archiver for static libraries: LTO objects are bitcode, whose symbols
# only llvm-ar indexes.
rw_ar() {
  case $1 in
    *lto|*planned) echo "$(dirname "$RW_CLANG")/llvm-ar" ;;
    *) echo ar ;;
  esac
}
# rw_builds: the builds of $RW_BUILDS this program makes (the LTO ones only
# when listed in rw_lto).
rw_builds() {
  local build builds=
  for build in $RW_BUILDS; do
    case $build in
      limit0+lto)
        case " ${rw_lto:-} " in *" full "*) ;; *) continue ;; esac ;;
      limit0+planned)
        case " ${rw_lto:-} " in *" planned "*) ;; *) continue ;; esac ;;
      limit0+thinlto) case " ${rw_lto:-} " in *" thin "*) ;; *) continue ;; esac ;;
    esac
    builds="$builds $build"
  done
  echo "${builds# }"
}

# Environment in which to run a build's checks: statistics for the
# ScopeAlloc builds; ASan options that make a failure fatal and visible.
rw_run_env() {
  case $1 in
    plain|gcc12) echo "SCOPEALLOC_STATS=0" ;;
    default|limit0|limit0+lto|limit0+thinlto|limit0+planned) echo "SCOPEALLOC_STATS=1" ;;
    limit0+asan) echo "SCOPEALLOC_STATS=1 ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1" ;;
  esac
}

# rw_stats LOG...: "peak allocs runs" over every statistics block in the
# logs: the largest workspace peak, the allocations summed, the number of
# processes that printed statistics.
rw_stats() {
  awk '/^scopealloc statistics/ {runs++}
       $1 == "workspace" && $2 ~ /^[0-9]+$/ { if ($3 + 0 > peak) peak = $3 + 0; allocs += $5; fails += $6 }
       END { printf "%d %d %d %d\n", peak, allocs, runs, fails }' "$@" 2>/dev/null
}

# rw_record PROGRAM BUILD RESULT [LOG...]: one line of the summary table.
# RESULT is pass, FAIL(<what>) or XFAIL(<what>).
rw_record() {
  local program=$1 build=$2 result=$3
  shift 3
  local peak=- allocs=- runs=- fails=0
  if [ "$build" != plain ] && [ $# -gt 0 ]; then
    read -r peak allocs runs fails < <(rw_stats "$@")
    if [ "${fails:-0}" != 0 ] && [ "$result" = pass ]; then result="FAIL(pool failures)"; fi
  fi
  mkdir -p "$RW_WORK/results"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$program" "$build" "$result" "$peak" "$allocs" "$runs" \
    >> "$RW_WORK/results/$program.tsv"
  if [ "$peak" = - ]; then
    rw_log "$program [$build]: $result"
  else
    rw_log "$program [$build]: $result (workspace peak $peak bytes, $allocs allocs, $runs processes)"
  fi
}

# rw_run LOG CMD...: run CMD with its output appended to LOG; on failure,
# show the end of LOG.
rw_run() {
  local log=$1
  shift
  printf '+ %s\n' "$*" >> "$log"
  local rc=0
  "$@" >> "$log" 2>&1 || rc=$?
  [ $rc = 0 ] && return 0
  rw_log "failed (exit $rc): $* -- last lines of $log:"
  tail -n 25 "$log" | sed 's/^/    /' >&2
  return $rc
}

# rw_strip_stats < IN > OUT: drop the SCOPEALLOC_STATS blocks.
rw_strip_stats() {
  awk '/^scopealloc statistics \(bytes\):$/ {skip = 1; next}
       skip && /^  \(workspace: default pool/ {skip = 0; next}
       skip && /^  / {next}
       {skip = 0; print}'
}

# rw_same WHAT EXPECTED ACTUAL: compare two files, show a diff when they differ.
rw_same() {
  if cmp -s "$2" "$3"; then return 0; fi
  rw_log "$1 differs: diff $2 $3"
  diff "$2" "$3" | head -n 20 | sed 's/^/    /' >&2
  return 1
}

# rw_need_allocs LOG...: a limit-0 build that never used the workspace
# means the plugin did not run.
rw_need_allocs() {
  local peak allocs runs fails
  read -r peak allocs runs fails < <(rw_stats "$@")
  if [ "${runs:-0}" = 0 ] || [ "${allocs:-0}" = 0 ]; then
    rw_log "no workspace allocation in a limit-0 build (plugin not applied?)"
    return 1
  fi
}

# rw_need_plan LOG PROGRAM...: each program of a plan: static build holds
# the region the link planned for main (scopealloc.plan.main), whose size
# goes to LOG. Its frames need no workspace: the run may allocate nothing.
rw_need_plan() {
  local log=$1 p size
  shift
  for p in "$@"; do
    size=$("$(dirname "$RW_CLANG")/llvm-nm" -S "$p" |
      awk '$4 == "scopealloc.plan.main" { print $2 }')
    if [ -z "$size" ]; then
      rw_log "$p: no scopealloc.plan.main (nothing planned?)"
      return 1
    fi
    echo "plan: $p: main's region $((16#$size)) bytes" >> "$log"
  done
}

# rw_plan_count LOG BUILDLOG: how many of the demoted frames the link of a
# plan: static build planned, from its remarks in BUILDLOG, each region's
# size beside greedy-by-size offsets of its buffers, and why the others
# keep the bump (the most common reasons, names elided), to LOG.
rw_plan_count() {
  local log=$1 buildlog=$2 planned kept
  planned=$(grep -c "static region of" "$buildlog")
  kept=$(grep -c "stays on the run-time arena (plan static)" "$buildlog")
  echo "plan: $planned of $((planned + kept)) demoted frames planned (all links of the build)" >> "$log"
  grep -o "static region scopealloc[.]plan[.][^ ]*: .*" "$buildlog" | sed "s/^/plan: /" >> "$log"
  grep "stays on the run-time arena (plan static)" "$buildlog" |
    sed -e 's/.*(plan static): //' -e "s/'[^']*'/'_'/g" |
    sort | uniq -c | sort -rn | head -5 | sed 's/^/plan: kept: /' >> "$log"
  return 0 # a count, not a check (every frame planned: grep finds none)
}

# Builds and checks every build in $RW_BUILDS with the program's own
# build_<program> and check_<program> functions, and records each result.
rw_build_and_check_all() { # PROGRAM BASE
  local program=$1 base=$2 build dir
  for build in $(rw_builds); do
    dir=$base/$(rw_dirname "$build")
    if ! "build_$program" "$build" "$dir"; then
      rw_record "$program" "$build" "FAIL(build)"
    elif ! "check_$program" "$build" "$dir"; then
      rw_record "$program" "$build" "FAIL(check)" "$dir/check.log"
    else
      rw_record "$program" "$build" pass "$dir/check.log"
    fi
  done
}

# Compresses INPUT with "TOOL LEVEL" into out<LEVEL>.<EXT>, decompresses it
# with "TOOL -d", and requires the original back; other builds must also
# produce the same compressed bytes as the plain clang build in BASE/plain.
rw_round_trip() { # TOOL LEVEL EXT INPUT LOG BUILD BASE
  local tool=$1 level=$2 ext=$3 input=$4 log=$5 build=$6 base=$7
  local name packed=out$2.$3
  name=$(basename "$tool")
  "$tool" "$level" < "$input" > "$packed" 2>> "$log" || { rw_log "$name $level failed"; return 1; }
  "$tool" -d < "$packed" > "out$level" 2>> "$log" || { rw_log "$name -d ($level) failed"; return 1; }
  rw_same "$name $level round trip" "$input" "out$level" || return 1
  if [ "$build" != plain ]; then
    rw_same "$name $level output (vs plain clang)" "$base/plain/$packed" "$packed" || return 1
  fi
}
