#!/usr/bin/env bash
# Distributed build through icecream (icecc 1.4) on one machine.
#
#   bash test/buildfarm/icecc.sh [--prefix P] [--work W] [--clang C]
#
# In network namespaces (netns.sh): an icecream scheduler (10.77.0.1), two
# remote daemons (remote1 10.77.0.11, remote2 10.77.0.12) and the client
# (10.77.0.2), whose own daemon compiles nothing (--no-remote -m 0). An
# icecc environment of the real clang plus the files the ScopeAlloc compile
# reads (scopealloc-clang --scopealloc-print-inputs: the plugin and the
# policy, icecc-create-env --addfile each). zlib's library objects (Debian
# source) are built twice with scopealloc-clang -O2 at limit 0 and a policy
# file: locally, and with SCOPEALLOC_LAUNCHER=icecc in the client namespace.
# Checks: every object byte-identical; objects reference __scopealloc_*; the
# icecc client log names a remote host for every compile and runs none
# locally; the remote daemons' logs count as many successful compiles. A
# probe also compiles one file with icecc + plain clang and the plugin flags
# by hand, against the same compile done locally.
# Exit 0 when every check passes, 1 when one fails, 77 (skip) when network
# namespaces cannot be made. Logs: W/logs.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
. "$HERE/netns.sh"
SECONDS=0

bf_parse_args icecc "$@"
bf_net_init || exit $?
bf_packages icecc iproute2 zstd file binutils make dpkg-dev xz-utils util-linux
L=$BF_LOGS

# The daemons drop root for user icecc: logs, sockets and environment
# directories must be reachable by it.
bf_user_can icecc "$L" ||
  bf_die "user icecc cannot write in $L (is a parent of --work $BF_WORK closed to others?)"

bf_zlib

# --- The wrapper's launcher: which clang it hands to icecc, which files
# that compile reads (for the environment).
export SCOPEALLOC_FLAGS=$BF_SCOPEALLOC_FLAGS
[ -n "$BF_CLANG" ] && export SCOPEALLOC_COMPILER=$BF_CLANG
probe=$BF_WORK/run/probe
clang=$(bf_launcher_clang "$probe") ||
  bf_die "$BF_PREFIX/bin/scopealloc-clang has no SCOPEALLOC_LAUNCHER (it compiled the probe itself)"
mapfile -t inputs < <(cd "$probe" && "$BF_PREFIX/bin/scopealloc-clang" --scopealloc-print-inputs -O2 -c p.c -o p.o 2>> "$L/harness.log")
[ ${#inputs[@]} -gt 0 ] || bf_die "scopealloc-clang --scopealloc-print-inputs printed nothing"
case " ${inputs[*]} " in *" $BF_PREFIX/lib/ScopeAlloc.so "*) ;; *) bf_die "--scopealloc-print-inputs does not name the plugin: ${inputs[*]}" ;; esac
case " ${inputs[*]} " in *" $BF_POLICY "*) ;; *) bf_die "--scopealloc-print-inputs does not name the policy: ${inputs[*]}" ;; esac
bf_note "launcher runs: icecc $clang ..."
bf_note "inputs: ${inputs[*]}"

# --- The icecc environment: the clang (icecc-create-env --clang adds its
# shared libraries, as, objcopy, and puts it at /usr/bin/clang), plus the
# inputs at their own absolute paths.
envdir=$BF_WORK/run/env
mkdir -p "$envdir"
addfiles=()
for f in "${inputs[@]}"; do addfiles+=(--addfile "$f"); done
(cd "$envdir" && icecc-create-env --clang "$clang" --compression zstd "${addfiles[@]}") \
  > "$L/create-env.log" 2>&1 || { bf_tail "$L/create-env.log"; bf_die "icecc-create-env failed"; }
tarball=$envdir/$(sed -n 's/^creating //p' "$L/create-env.log")
[ -f "$tarball" ] || { bf_tail "$L/create-env.log"; bf_die "icecc-create-env made no tarball"; }
tar -tf "$tarball" --use-compress-program=zstd > "$L/env-files.txt" 2>> "$L/harness.log" ||
  bf_die "cannot list $tarball"
for f in "${inputs[@]}"; do
  grep -qx "${f#/}" "$L/env-files.txt" || bf_die "the environment lacks $f"
done

# --- The farm.
bf_net_add sched 10.77.0.1 || bf_die "cannot wire the scheduler's namespace"
bf_net_add remote1 10.77.0.11 || bf_die "cannot wire remote1's namespace"
bf_net_add remote2 10.77.0.12 || bf_die "cannot wire remote2's namespace"
bf_net_add client 10.77.0.2 || bf_die "cannot wire the client's namespace"
for d in local remote1 remote2; do
  mkdir -p "$BF_WORK/run/envs-$d" && chown icecc:icecc "$BF_WORK/run/envs-$d"
done
bf_spawn sched "$L/sched.out" icecc-scheduler -vvv -l "$L/sched.log"
# The scheduler's text interface (port 8766): listcs lists the daemons.
listcs() {
  bf_ns client bash -c 'exec 3<>/dev/tcp/10.77.0.1/8766 || exit 1
                        printf "listcs\r\nquit\r\n" >&3; timeout 2 cat <&3'
}
bf_wait "icecc-scheduler" 10 "$L/sched.log" listcs || exit 1
for d in remote1 remote2; do
  bf_spawn "$d" "$L/$d.out" env ICECC_TEST_SOCKET="$BF_WORK/run/$d.sock" \
    iceccd -s 10.77.0.1 -N "$d" -m 2 -b "$BF_WORK/run/envs-$d" -l "$L/$d.log" -vvv
done
bf_spawn client "$L/local.out" env ICECC_TEST_SOCKET="$BF_WORK/run/local.sock" \
  iceccd -s 10.77.0.1 -N local --no-remote -m 0 -b "$BF_WORK/run/envs-local" -l "$L/local.log" -vvv
listed() { listcs | grep -q "^ $1 (10\.77\.0\."; }
for d in remote1 remote2 local; do
  bf_wait "iceccd $d (login at the scheduler)" 30 "$L/$d.log" listed "$d" || exit 1
done
grep -q "Cannot use chroot" "$L/remote1.log" "$L/remote2.log" &&
  bf_die "a remote daemon cannot chroot (no CAP_SYS_CHROOT): $(grep -h 'Cannot use chroot' "$L"/remote*.log | head -1)"

# --- The two builds.
targets=$(bf_zlib_targets)
local_tree=$(bf_zlib_tree local)
dist_tree=$(bf_zlib_tree dist)
t0=$SECONDS
(cd "$local_tree" && make -j"$BF_JOBS" $targets) > "$L/build-local.log" 2>&1 ||
  { bf_tail "$L/build-local.log"; bf_die "local build failed"; }
t_local=$((SECONDS - t0))
client_log=$L/icecc-client.log
t0=$SECONDS
(cd "$dist_tree" &&
  bf_ns client env SCOPEALLOC_LAUNCHER=icecc ICECC_VERSION="$tarball" \
    ICECC_TEST_SOCKET="$BF_WORK/run/local.sock" ICECC_DEBUG=debug ICECC_LOGFILE="$client_log" \
    make -j"$BF_JOBS" $targets) > "$L/build-dist.log" 2>&1 ||
  { bf_tail "$L/build-dist.log" "$client_log"; bf_die "distributed build failed"; }
t_dist=$((SECONDS - t0))

# --- Checks.
bf_compare "$dist_tree" "$local_tree"
nobj=$(echo $targets | wc -w)
# Client log (ICECC_DEBUG=debug): one "invoked as:" per icecc run, "Have to
# use host <ip>:<port>" when the scheduler names a daemon, "invoking:"
# when the client compiles itself (build_local), "building myself" when the
# scheduler sends the job back to the client's machine.
invoked=$(grep -c ': invoked as: ' "$client_log")
to_remote=$(grep -cE ': Have to use host 10\.77\.0\.1[12]:' "$client_log")
local_runs=$(grep -cE ': invoking:|building myself|local build forced|building locally' "$client_log")
# The remote daemons' own logs: one line per compile they ran.
r1=$(grep -c 'Remote compilation completed with exit code 0' "$L/remote1.log")
r2=$(grep -c 'Remote compilation completed with exit code 0' "$L/remote2.log")
local_daemon_jobs=$(grep -c 'pushed local job' "$L/local.log")
bf_check "objects identical ($BF_IDENTICAL of $BF_COMPARED)" test "$BF_IDENTICAL" = "$BF_COMPARED" -a "$BF_COMPARED" = "$nobj"
bf_check "objects reference __scopealloc_ ($BF_WITH_RUNTIME of $BF_COMPARED)" test "$BF_WITH_RUNTIME" -gt 0
bf_check "icecc ran once per object ($invoked of $nobj)" test "$invoked" = "$nobj"
bf_check "every job sent to a remote daemon ($to_remote of $invoked)" test "$to_remote" = "$invoked"
bf_check "remote daemons compiled them (remote1 $r1 + remote2 $r2 = $to_remote)" test $((r1 + r2)) = "$to_remote" -a "$to_remote" -gt 0
bf_check "no local compile (client $local_runs, local daemon $local_daemon_jobs)" test "$local_runs" = 0 -a "$local_daemon_jobs" = 0

# --- Probe: icecc in front of plain clang with the plugin's flags by hand,
# against the same compile here (STT_FILE, paths: icecc compiles the
# preprocessed source from stdin with -main-file-name and
# -fdebug-compilation-dir).
hand=(-fpass-plugin="$BF_PREFIX/lib/ScopeAlloc.so" -fstack-size-section -mllvm -scope-alloc-facts $BF_SCOPEALLOC_FLAGS -O2 -w)
pf=$BF_ZLIB_SRC/deflate.c
before=$(grep -c 'Remote compilation completed with exit code 0' "$L"/remote[12].log | awk -F: '{s += $2} END {print s}')
(cd "$probe" && env -u SCOPEALLOC_FLAGS "$clang" "${hand[@]}" -c "$pf" -o hand-local.o) >> "$L/harness.log" 2>&1 &&
  (cd "$probe" && bf_ns client env -u SCOPEALLOC_FLAGS ICECC_VERSION="$tarball" \
     ICECC_TEST_SOCKET="$BF_WORK/run/local.sock" ICECC_DEBUG=debug ICECC_LOGFILE="$L/icecc-probe.log" \
     icecc "$clang" "${hand[@]}" -c "$pf" -o hand-remote.o) >> "$L/harness.log" 2>&1
after=$(grep -c 'Remote compilation completed with exit code 0' "$L"/remote[12].log | awk -F: '{s += $2} END {print s}')
bf_check "probe: icecc + plain clang + hand flags ran remotely" test "$after" = $((before + 1))
bf_check "probe: its object is identical to the local compile" cmp -s "$probe/hand-local.o" "$probe/hand-remote.o"

# --- Summary.
evidence=$(grep -m1 -E ': Have to use host 10\.77\.0\.1[12]:' "$client_log" | sed 's/^ICECC\[[0-9]*\] [0-9-]* [0-9:]*: //')
printf 'icecc: zlib %d objects compared, %d identical, %d with __scopealloc_ refs; jobs %d remote (remote1 %d, remote2 %d), %d local; local build %ds, distributed %ds; env %s MB; %ds\n' \
  "$BF_COMPARED" "$BF_IDENTICAL" "$BF_WITH_RUNTIME" "$((r1 + r2))" "$r1" "$r2" "$local_runs" \
  "$t_local" "$t_dist" "$(($(stat -c %s "$tarball") / 1048576))" "$SECONDS"
bf_note "evidence: $evidence"
if [ ${#BF_FAILED[@]} -gt 0 ]; then
  printf '[icecc] FAILED: %s\n' "${BF_FAILED[@]}" >&2
  bf_tail "$L/harness.log" "$client_log" "$L/remote1.log" "$L/remote2.log" "$L/local.log"
  exit 1
fi
exit 0
