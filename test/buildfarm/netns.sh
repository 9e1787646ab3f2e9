# Isolated virtual network for the build-farm tests, on this one machine.
# Sourced by icecc.sh and distcc.sh (bash; needs root and iproute2).
#
#   bf_net_init                  namespaces bf<PID>-br (holding the bridge), and
#                                a trap on EXIT that tears everything down
#   bf_net_add NODE IP           namespace bf<PID>-NODE, wired to the bridge by a
#                                veth pair, eth0 = IP/24, lo up
#   bf_ns NODE CMD...            run CMD in NODE's namespace (foreground)
#   bf_spawn NODE LOG CMD...     start a service in NODE's namespace, in the
#                                background, stdout/stderr to LOG, with a private
#                                tmpfs on /run (pid files, sockets a daemon puts
#                                there stay in the test); its pid is recorded
#   bf_wait WHAT SECS LOG CMD... poll CMD (every 0.2 s) until it succeeds; after
#                                SECS fail naming WHAT with the last lines of LOG
#
# Everything lives in namespaces the test creates: the bridge, the veth
# pairs and the addresses (10.77.0.0/24) never appear in the root namespace,
# whose network configuration is not touched. Names carry the PID of the
# test, so parallel runs do not collide. The client side is a namespace as
# well (bf_ns client CMD...). bf_net_init returns 77 (skip) with a message
# when namespaces cannot be created (not root, no CAP_SYS_ADMIN, no ip).

BF_NET_ID=${BF_NET_ID:-bf$$}
BF_NET_NODES=()
BF_NET_PIDS=()
BF_NET_BRIDGE_NS=

bf_net_log() { printf '[buildfarm] %s\n' "$*" >&2; }

bf_net_init() {
  if ! command -v ip > /dev/null 2>&1; then
    bf_net_log "skip: no 'ip' command (iproute2)"
    return 77
  fi
  if [ "$(id -u)" != 0 ]; then
    bf_net_log "skip: network namespaces need root (uid $(id -u))"
    return 77
  fi
  local err
  BF_NET_BRIDGE_NS=$BF_NET_ID-br
  trap bf_net_teardown EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  # A backstop for when the EXIT trap cannot run (SIGKILL): a watcher in a
  # session of its own waits for this shell to end, then kills what is left
  # in the namespaces named after it and deletes them.
  setsid bash -c '
    while kill -0 "$1" 2> /dev/null; do sleep 0.5; done
    for ns in $(ip netns list | awk "{print \$1}" | grep "^$2-"); do
      for p in $(ip netns pids "$ns"); do kill -KILL "$p"; done
    done
    sleep 0.2
    for ns in $(ip netns list | awk "{print \$1}" | grep "^$2-"); do ip netns del "$ns"; done
  ' bf-net-watcher "$$" "$BF_NET_ID" < /dev/null > /dev/null 2>&1 &
  if ! err=$(ip netns add "$BF_NET_BRIDGE_NS" 2>&1); then
    BF_NET_BRIDGE_NS=
    bf_net_log "skip: cannot create a network namespace: $err"
    return 77
  fi
  if ! err=$({ ip -n "$BF_NET_BRIDGE_NS" link set lo up &&
               ip -n "$BF_NET_BRIDGE_NS" link add br0 type bridge &&
               ip -n "$BF_NET_BRIDGE_NS" link set br0 up; } 2>&1); then
    bf_net_log "skip: cannot create a bridge in a network namespace: $err"
    return 77
  fi
}

bf_net_add() { # NODE IP
  local node=$1 ip=$2 ns=$BF_NET_ID-$1 err
  ip netns add "$ns" || return 1
  BF_NET_NODES+=("$ns")
  # The pair is made inside the bridge's namespace (its names are local
  # there) and one end moved into the node's namespace as eth0.
  if ! err=$({ ip -n "$BF_NET_BRIDGE_NS" link add "v-$node" type veth peer name eth0 netns "$ns" &&
               ip -n "$BF_NET_BRIDGE_NS" link set "v-$node" master br0 &&
               ip -n "$BF_NET_BRIDGE_NS" link set "v-$node" up &&
               ip -n "$ns" link set lo up &&
               ip -n "$ns" addr add "$ip/24" dev eth0 &&
               ip -n "$ns" link set eth0 up; } 2>&1); then
    bf_net_log "cannot wire namespace $ns: $err"
    return 1
  fi
}

bf_ns() { # NODE CMD...
  local ns=$BF_NET_ID-$1
  shift
  ip netns exec "$ns" "$@"
}

bf_spawn() { # NODE LOG CMD...
  local ns=$BF_NET_ID-$1 log=$2
  shift 2
  # ip netns exec runs CMD in a mount namespace of its own (slave of the
  # root one): the tmpfs on /run is seen by the service only.
  ip netns exec "$ns" /bin/sh -c 'mount -t tmpfs -o mode=0755 bf-run /run && exec "$@"' \
    sh "$@" > "$log" 2>&1 < /dev/null &
  BF_NET_PIDS+=($!)
}

bf_wait() { # WHAT SECS LOG CMD...
  local what=$1 secs=$2 log=$3 i
  shift 3
  for ((i = 0; i < secs * 5; i++)); do
    "$@" > /dev/null 2>&1 && return 0
    sleep 0.2
  done
  bf_net_log "error: $what not ready after ${secs}s; last lines of $log:"
  tail -n 20 "$log" 2>/dev/null | sed 's/^/    /' >&2
  return 1
}

# Stops the services (TERM, then KILL after 5 s), every other process
# left in the namespaces, and deletes the namespaces (which removes the
# veth pairs and the bridge with them).
bf_net_teardown() {
  local pid ns i alive
  for pid in "${BF_NET_PIDS[@]}"; do kill -TERM "$pid" 2> /dev/null; done
  for ((i = 0; i < 25; i++)); do
    alive=
    for pid in "${BF_NET_PIDS[@]}"; do kill -0 "$pid" 2> /dev/null && alive=1; done
    [ -z "$alive" ] && break
    sleep 0.2
  done
  for pid in "${BF_NET_PIDS[@]}"; do kill -KILL "$pid" 2> /dev/null; done
  for ns in "${BF_NET_NODES[@]}"; do
    for pid in $(ip netns pids "$ns" 2> /dev/null); do kill -KILL "$pid" 2> /dev/null; done
  done
  for pid in "${BF_NET_PIDS[@]}"; do wait "$pid" 2> /dev/null; done
  for ns in "${BF_NET_NODES[@]}" $BF_NET_BRIDGE_NS; do
    ip netns del "$ns" 2> /dev/null
  done
  BF_NET_PIDS=()
  BF_NET_NODES=()
  BF_NET_BRIDGE_NS=
}
