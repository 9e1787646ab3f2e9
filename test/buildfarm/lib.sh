# Shared parts of icecc.sh and distcc.sh: options, packages, the zlib
# source (downloaded with apt-get source by the real-world suite's helpers),
# the two builds and their comparison. Sourced; bash.
#
# After bf_parse_args: BF_ROOT (repository), BF_PREFIX (--prefix, default
# build/install), BF_WORK (--work, default /tmp/scopealloc-buildfarm-<name>),
# BF_CLANG (--clang, or empty), BF_LOGS, BF_NAME.

BF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BF_PREFIX=$BF_ROOT/build/install
BF_WORK=
BF_CLANG=
BF_JOBS=2
# The policy of the test: no buffer stays on the stack, so that every
# function with a local array calls the runtime (__scopealloc_* symbols).
BF_LIMIT0="-mllvm -scope-alloc-max-stack-alloca=0"
# zlib's library objects: static and position-independent.
BF_ZLIB_OBJS="adler32 crc32 deflate infback inffast inflate inftrees trees zutil compress uncompr gzclose gzlib gzread gzwrite"

bf_die() {
  printf '[%s] FAIL: %s\n' "$BF_NAME" "$*" >&2
  exit 1
}
bf_note() { printf '%s\n' "$*" >> "$BF_LOGS/harness.log"; }

bf_usage() {
  local clang=
  [ "$BF_NAME" = icecc ] && clang=" [--clang C]"
  cat >&2 << EOF
usage: $BF_NAME.sh [--prefix P] [--work W]$clang
  --prefix P  ScopeAlloc install prefix (default $BF_ROOT/build/install)
  --work W    work directory: sources, trees, logs (default /tmp/scopealloc-buildfarm-$BF_NAME)
EOF
  [ -n "$clang" ] && echo "  --clang C   the real clang (SCOPEALLOC_COMPILER; default the wrapper's)" >&2
  exit 2
}

bf_parse_args() { # NAME ARGS...
  BF_NAME=$1
  shift
  while [ $# -gt 0 ]; do
    case $1 in
      --prefix) [ $# -ge 2 ] || bf_usage; BF_PREFIX=$2; shift 2 ;;
      --prefix=*) BF_PREFIX=${1#*=}; shift ;;
      --work) [ $# -ge 2 ] || bf_usage; BF_WORK=$2; shift 2 ;;
      --work=*) BF_WORK=${1#*=}; shift ;;
      --clang) [ "$BF_NAME" = icecc ] && [ $# -ge 2 ] || bf_usage; BF_CLANG=$2; shift 2 ;;
      --clang=*) [ "$BF_NAME" = icecc ] || bf_usage; BF_CLANG=${1#*=}; shift ;;
      -h|--help) bf_usage ;;
      *) printf 'unknown argument: %s\n' "$1" >&2; bf_usage ;;
    esac
  done
  BF_WORK=${BF_WORK:-/tmp/scopealloc-buildfarm-$BF_NAME}
  mkdir -p "$BF_WORK" || bf_die "cannot create $BF_WORK"
  BF_WORK=$(cd "$BF_WORK" && pwd)
  BF_PREFIX=$(cd "$BF_PREFIX" 2> /dev/null && pwd) || bf_die "no prefix ${BF_PREFIX}"
  [ -x "$BF_PREFIX/bin/scopealloc-clang" ] || bf_die "no $BF_PREFIX/bin/scopealloc-clang"
  [ -f "$BF_PREFIX/lib/ScopeAlloc.so" ] || bf_die "no $BF_PREFIX/lib/ScopeAlloc.so"
  if [ -n "$BF_CLANG" ]; then
    BF_CLANG=$(command -v "$BF_CLANG") || bf_die "--clang: no such program"
  fi
  # Per run: logs, trees, policy (sources are kept in $BF_WORK/src).
  BF_LOGS=$BF_WORK/logs
  rm -rf "$BF_LOGS" "$BF_WORK/run" "$BF_WORK/zlib"
  mkdir -p "$BF_LOGS" "$BF_WORK/run" "$BF_WORK/zlib"
  # Daemons drop root (icecc, distccd): they write their logs and sockets here.
  chmod 1777 "$BF_LOGS" "$BF_WORK/run"
  : > "$BF_LOGS/harness.log"
  BF_POLICY=$BF_WORK/policy.yaml
  printf "version: 1\ntargets:\n  host:\n    triples: ['x86_64-*']\n    max-stack-alloca: 0\n" > "$BF_POLICY"
  BF_SCOPEALLOC_FLAGS="$BF_LIMIT0 -mllvm -scope-alloc-policy=$BF_POLICY"
}

# bf_packages PKG...: the real-world suite's helper (apt-get install of the
# missing ones, apt-get update once), its messages in the harness log.
bf_packages() {
  (
    RW_WORK=$BF_WORK RW_ROOT=$BF_ROOT RW_PREFIX=$BF_PREFIX
    . "$BF_ROOT/test/realworld/common.sh"
    rw_ensure_packages "$@"
  ) >> "$BF_LOGS/harness.log" 2>&1 || {
    tail -n 20 "$BF_LOGS/harness.log" >&2
    bf_die "cannot install $*"
  }
}

# bf_user_can USER DIR: USER may write in DIR (every parent searchable).
bf_user_can() {
  setpriv --reuid="$1" --regid="$(id -g "$1")" --clear-groups test -w "$2" -a -x "$2" 2> /dev/null
}

# bf_zlib: the Debian source of zlib (apt-get source, once, kept in
# $BF_WORK/src), configured once with scopealloc-clang -O2 and the test's
# flags in $BF_WORK/zlib/configured; prints nothing, sets BF_ZLIB_SRC.
bf_zlib() {
  BF_ZLIB_SRC=$(
    RW_WORK=$BF_WORK RW_SRC=$BF_WORK/src RW_ROOT=$BF_ROOT RW_PREFIX=$BF_PREFIX
    . "$BF_ROOT/test/realworld/common.sh"
    rw_fetch_source zlib 2>> "$BF_LOGS/harness.log"
  ) || {
    tail -n 20 "$BF_LOGS/harness.log" >&2
    bf_die "apt-get source zlib failed"
  }
  local tree=$BF_WORK/zlib/configured
  cp -a "$BF_ZLIB_SRC" "$tree" || bf_die "cannot copy $BF_ZLIB_SRC"
  (cd "$tree" && env SCOPEALLOC_FLAGS="$BF_SCOPEALLOC_FLAGS" \
     CC="${BF_CONFIGURE_CC:-$BF_PREFIX/bin/scopealloc-clang}" CFLAGS="${BF_CONFIGURE_CFLAGS:--O2}" \
     ./configure) > "$BF_LOGS/configure.log" 2>&1 ||
    { tail -n 20 "$BF_LOGS/configure.log" >&2; bf_die "zlib ./configure failed (log $BF_LOGS/configure.log)"; }
}

# bf_zlib_tree NAME: a copy of the configured tree, printed.
bf_zlib_tree() {
  cp -a "$BF_WORK/zlib/configured" "$BF_WORK/zlib/$1" || bf_die "cannot copy the zlib tree"
  echo "$BF_WORK/zlib/$1"
}

# bf_zlib_targets: make targets of the library objects (.o and .lo).
bf_zlib_targets() {
  local o
  for o in $BF_ZLIB_OBJS; do printf '%s.o %s.lo ' "$o" "$o"; done
}

# bf_compare A B: every object of the library in tree A against tree B, byte
# for byte; sets BF_COMPARED, BF_IDENTICAL, BF_WITH_RUNTIME (objects of A
# that reference __scopealloc_ symbols). Differences go to the harness log.
bf_compare() {
  local a=$1 b=$2 f nm
  nm=$(dirname "$(readlink -f "${BF_CLANG:-/usr/lib/llvm-22/bin/clang}")")/llvm-nm
  [ -x "$nm" ] || nm=/usr/lib/llvm-22/bin/llvm-nm
  BF_COMPARED=0 BF_IDENTICAL=0 BF_WITH_RUNTIME=0
  for f in $(bf_zlib_targets); do
    BF_COMPARED=$((BF_COMPARED + 1))
    if [ ! -f "$a/$f" ] || [ ! -f "$b/$f" ]; then
      bf_note "missing: $a/$f or $b/$f"
      continue
    fi
    if cmp -s "$a/$f" "$b/$f"; then
      BF_IDENTICAL=$((BF_IDENTICAL + 1))
    else
      bf_note "differs: $f: $(cmp "$a/$f" "$b/$f" 2>&1)"
    fi
    "$nm" "$a/$f" 2> /dev/null | grep -q ' U __scopealloc_' && BF_WITH_RUNTIME=$((BF_WITH_RUNTIME + 1))
  done
}

# bf_launcher_clang DIR: the clang that SCOPEALLOC_LAUNCHER hands to the
# launcher (a stub launcher records its arguments), printed; fails when the
# wrapper has no launcher (it then compiled the probe itself).
bf_launcher_clang() {
  local dir=$1
  mkdir -p "$dir"
  printf 'int g(char *);\nint f(int n) { char b[64]; b[0] = n; return g(b); }\n' > "$dir/p.c"
  printf '#!/bin/sh\nprintf "%%s\\n" "$@" > "$(dirname "$0")/argv"\n' > "$dir/launcher"
  chmod +x "$dir/launcher"
  rm -f "$dir/argv"
  (cd "$dir" && SCOPEALLOC_LAUNCHER=$dir/launcher "$BF_PREFIX/bin/scopealloc-clang" -O2 -c p.c -o p.o) \
    >> "$BF_LOGS/harness.log" 2>&1
  [ -s "$dir/argv" ] || return 1
  head -n 1 "$dir/argv"
}

# bf_check WHAT CONDITION...: record a check; a failed one is listed at the end.
BF_FAILED=()
bf_check() {
  local what=$1
  shift
  if "$@"; then
    bf_note "ok: $what"
  else
    bf_note "FAILED: $what"
    BF_FAILED+=("$what")
  fi
}

# bf_tail LOG...: the last lines of each log, for a failure.
bf_tail() {
  local f
  for f in "$@"; do
    [ -f "$f" ] || continue
    printf '  --- %s (last lines)\n' "$f" >&2
    tail -n 12 "$f" | sed 's/^/    /' >&2
  done
}
