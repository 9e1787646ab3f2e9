#!/usr/bin/env bash
# distcc 3.4 and ScopeAlloc on one machine: what distccd does with the
# plugin's flags.
#
#   bash test/buildfarm/distcc.sh [--prefix P] [--work W]
#
# In network namespaces (netns.sh), three distccd servers allowing the
# client's subnet (--allow 10.77.0.0/24), and the client (10.77.0.2):
#   d1 10.77.0.21  DISTCC_CMDLIST naming the wrapper's clang (distccd takes
#                  an absolute compiler path only so), the plugin visible
#   d2 10.77.0.22  the same, the install prefix hidden (an empty tmpfs over
#                  it): a build machine without ScopeAlloc
#   d3 10.77.0.23  Debian's default: compilers by the names in /usr/lib/distcc
# Checks:
#   1. zlib's library objects built with SCOPEALLOC_LAUNCHER=distcc against
#      d1 (the command carries -fplugin=): d1 refuses ("-fplugin= and/or
#      -specs= passed, which are insecure and not supported."), the client
#      compiles every object itself, no job completes remotely, and every
#      object equals the local build's.
#   2. plain clang with -fpass-plugin= only (no -fplugin=) against d1: sent,
#      compiled remotely with the plugin, object identical to the local one.
#   3. the same against d2: the remote clang fails ("unable to load
#      plugin"), the client retries locally: identical object; with
#      DISTCC_SKIP_LOCAL_RETRY=1 the compile fails with that error.
#   4. one compile with SCOPEALLOC_LAUNCHER=distcc against d3: refused
#      before the arguments are looked at (absolute compiler path), compiled
#      locally, identical.
# Exit 0 when every check passes, 1 when one fails, 77 (skip) when network
# namespaces cannot be made. Logs: W/logs.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
. "$HERE/netns.sh"
SECONDS=0

bf_parse_args distcc "$@"
bf_net_init || exit $?
bf_packages distcc iproute2 make dpkg-dev xz-utils util-linux
L=$BF_LOGS
duser=distccd
id "$duser" > /dev/null 2>&1 || duser=nobody
bf_user_can "$duser" "$L" ||
  bf_die "user $duser cannot write in $L (is a parent of --work $BF_WORK closed to others?)"

bf_zlib

export SCOPEALLOC_FLAGS=$BF_SCOPEALLOC_FLAGS
# The clang the wrapper runs and names to the launcher.
clang=$(bf_launcher_clang "$BF_WORK/run/launcher-probe") ||
  bf_die "$BF_PREFIX/bin/scopealloc-clang has no SCOPEALLOC_LAUNCHER (it compiled the probe itself)"
run=$BF_WORK/run
mkdir -p "$run/tmp-client"
echo "$clang" > "$run/cmdlist"
chmod 0644 "$run/cmdlist"

bf_net_add client 10.77.0.2 || bf_die "cannot wire the client's namespace"
start_distccd() { # NAME IP [CMDLIST] [HIDE]
  local name=$1 ip=$2 cmdlist=${3:-} hide=${4:-} pre=
  bf_net_add "$name" "$ip" || bf_die "cannot wire $name's namespace"
  mkdir -p "$run/tmp-$name" && chmod 1777 "$run/tmp-$name"
  [ -n "$hide" ] && pre="mount -t tmpfs -o mode=0755 bf-hide '$hide' && "
  bf_spawn "$name" "$L/$name.out" sh -c "$pre exec env ${cmdlist:+DISTCC_CMDLIST=$cmdlist} TMPDIR=$run/tmp-$name \
    distccd --daemon --no-detach --listen $ip --allow 10.77.0.0/24 --user $duser --jobs 2 \
      --log-file $L/$name.log --log-level debug"
}
start_distccd d1 10.77.0.21 "$run/cmdlist"
start_distccd d2 10.77.0.22 "$run/cmdlist" "$BF_PREFIX"
start_distccd d3 10.77.0.23
port_open() { bf_ns client bash -c "exec 3<>/dev/tcp/$1/3632"; }
bf_wait "distccd d1" 10 "$L/d1.log" port_open 10.77.0.21 || exit 1
bf_wait "distccd d2" 10 "$L/d2.log" port_open 10.77.0.22 || exit 1
bf_wait "distccd d3" 10 "$L/d3.log" port_open 10.77.0.23 || exit 1

# dc STATE LOG HOST CMD...: CMD in the client's namespace with distcc's
# settings: a fresh state directory each (distcc puts a host that failed
# in a 60 s back-off; DISTCC_BACKOFF_PERIOD=0 makes 3.4 retry the refusing
# host forever), its log at debug level.
dc() {
  local state=$run/state-$1 log=$2 host=$3
  shift 3
  rm -rf "$state" && mkdir -p "$state"
  bf_ns client env DISTCC_DIR="$state" DISTCC_HOSTS="$host" DISTCC_LOG="$log" DISTCC_VERBOSE=1 \
    TMPDIR="$run/tmp-client" "$@"
}
count() { grep -cE "$1" "$2" 2> /dev/null; } # PATTERN FILE

# --- 1. zlib through the launcher, against d1.
targets=$(bf_zlib_targets)
nobj=$(echo $targets | wc -w)
local_tree=$(bf_zlib_tree local)
dist_tree=$(bf_zlib_tree dist)
t0=$SECONDS
(cd "$local_tree" && make -j"$BF_JOBS" $targets) > "$L/build-local.log" 2>&1 ||
  { bf_tail "$L/build-local.log"; bf_die "local build failed"; }
t_local=$((SECONDS - t0))
client_log=$L/distcc-client.log
t0=$SECONDS
(cd "$dist_tree" && dc build "$client_log" 10.77.0.21 env SCOPEALLOC_LAUNCHER=distcc make -j"$BF_JOBS" $targets) \
  > "$L/build-dist.log" 2>&1 || { bf_tail "$L/build-dist.log" "$client_log"; bf_die "distcc build failed"; }
t_dist=$((SECONDS - t0))
bf_compare "$dist_tree" "$local_tree"
refused=$(count 'passed, which are insecure and not supported' "$L/d1.log")
remote_ok=$(count '\(dcc_job_summary\) .* COMPILE_OK' "$L/d1.log")
client_remote=$(count ' on 10\.77\.0\.21 completed ok' "$client_log")
client_local=$(count ' compile .* on localhost completed ok' "$client_log")
fallback=$(count 'failed to distribute.*running locally instead' "$client_log")
bf_check "objects identical ($BF_IDENTICAL of $BF_COMPARED)" test "$BF_IDENTICAL" = "$BF_COMPARED" -a "$BF_COMPARED" = "$nobj"
bf_check "objects reference __scopealloc_ ($BF_WITH_RUNTIME of $BF_COMPARED)" test "$BF_WITH_RUNTIME" -gt 0
bf_check "d1 refused -fplugin= ($refused jobs)" test "$refused" -gt 0
bf_check "no job compiled remotely (d1 COMPILE_OK $remote_ok, client $client_remote)" test "$remote_ok" = 0 -a "$client_remote" = 0
bf_check "client compiled every object itself ($client_local of $nobj, $fallback fallbacks)" test "$client_local" = "$nobj" -a "$fallback" = "$nobj"

# --- 2./3. plain clang, -fpass-plugin= only (no -fplugin=), deflate.c.
hand=(-fpass-plugin="$BF_PREFIX/lib/ScopeAlloc.so" -fstack-size-section -mllvm -scope-alloc-facts $BF_SCOPEALLOC_FLAGS -O2 -w)
pdir=$run/probe
mkdir -p "$pdir"
cp "$BF_ZLIB_SRC"/deflate.c "$BF_ZLIB_SRC"/*.h "$pdir/"
(cd "$pdir" && env -u SCOPEALLOC_FLAGS "$clang" "${hand[@]}" -c deflate.c -o local.o) >> "$L/harness.log" 2>&1 ||
  bf_die "local compile of deflate.c with the plugin failed"
(cd "$pdir" && dc p2 "$L/distcc-p2.log" 10.77.0.21 env -u SCOPEALLOC_FLAGS distcc "$clang" "${hand[@]}" -c deflate.c -o p2.o) \
  >> "$L/harness.log" 2>&1
bf_check "pass-plugin only: sent to d1 and compiled there" \
  test "$(count 'compile deflate.c on 10\.77\.0\.21 completed ok' "$L/distcc-p2.log")" = 1 -a "$(count 'COMPILE_OK' "$L/d1.log")" = 1
bf_check "pass-plugin only, d1: object identical to the local compile" cmp -s "$pdir/local.o" "$pdir/p2.o"
(cd "$pdir" && dc p3 "$L/distcc-p3.log" 10.77.0.22 env -u SCOPEALLOC_FLAGS distcc "$clang" "${hand[@]}" -c deflate.c -o p3.o) \
  >> "$L/harness.log" 2>&1
bf_check "pass-plugin only, d2 without the plugin: remote compile failed, retried locally" \
  test "$(count 'COMPILE_ERROR' "$L/d2.log")" = 1 -a "$(count "remote compilation of 'deflate.c' failed, retrying locally" "$L/distcc-p3.log")" = 1 \
  -a "$(count 'compile deflate.c on localhost completed ok' "$L/distcc-p3.log")" = 1
bf_check "pass-plugin only, d2: object (local retry) identical" cmp -s "$pdir/local.o" "$pdir/p3.o"
(cd "$pdir" && dc p3b "$L/distcc-p3b.log" 10.77.0.22 env -u SCOPEALLOC_FLAGS DISTCC_SKIP_LOCAL_RETRY=1 distcc "$clang" "${hand[@]}" -c deflate.c -o p3b.o) \
  > "$L/distcc-p3b.err" 2>&1
p3b=$?
bf_check "pass-plugin only, d2, no local retry: fails with the remote's 'unable to load plugin'" \
  test "$p3b" != 0 -a "$(count "error: unable to load plugin '$BF_PREFIX/lib/ScopeAlloc.so'" "$L/distcc-p3b.err")" -ge 1

# --- 4. the launcher against Debian's default distccd.
(cd "$pdir" && dc p4 "$L/distcc-p4.log" 10.77.0.23 env SCOPEALLOC_LAUNCHER=distcc \
   "$BF_PREFIX/bin/scopealloc-clang" -O2 -w -c deflate.c -o p4.o) >> "$L/harness.log" 2>&1
(cd "$pdir" && "$BF_PREFIX/bin/scopealloc-clang" -O2 -w -c deflate.c -o p4-local.o) >> "$L/harness.log" 2>&1
bf_check "launcher, default distccd: refused (absolute compiler path), compiled locally" \
  test "$(count 'cannot be an absolute path' "$L/d3.log")" = 1 \
  -a "$(count 'compile deflate.c on localhost completed ok' "$L/distcc-p4.log")" = 1
bf_check "launcher, default distccd: object identical" cmp -s "$pdir/p4-local.o" "$pdir/p4.o"

printf 'distcc: zlib %d objects compared, %d identical, %d with __scopealloc_ refs; jobs 0 remote, %d local (d1 refused %d, the rest in back-off); local build %ds, distcc build %ds; 4 probes; %ds\n' \
  "$BF_COMPARED" "$BF_IDENTICAL" "$BF_WITH_RUNTIME" "$client_local" "$refused" "$t_local" "$t_dist" "$SECONDS"
bf_note "refusal (d1): $(grep -m1 'insecure and not supported' "$L/d1.log")"
bf_note "fallback (client): $(grep -m1 'running locally instead' "$client_log")"
bf_note "refusal (d3): $(grep -m1 'cannot be an absolute path' "$L/d3.log")"
bf_note "remote failure (d2): $(grep -m1 'unable to load plugin' "$L/distcc-p3b.err")"
if [ ${#BF_FAILED[@]} -gt 0 ]; then
  printf '[distcc] FAILED: %s\n' "${BF_FAILED[@]}" >&2
  bf_tail "$L/harness.log" "$client_log" "$L/d1.log"
  exit 1
fi
exit 0
