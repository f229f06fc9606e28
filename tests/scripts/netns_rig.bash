# netns_rig.bash — three simulated hosts on one machine, for the MPI tests.
#
# Sourced by a test script (after mpi_lib.bash, or once it has defined
# fail), or by mpi_lib.bash itself when FLOE_MPI_RIG=netns: then every
# mpirun of an MPI test runs over the three hosts.  netns_rig_up makes,
# all inside the sandbox:
#   - a "switch" network namespace holding a bridge, and one namespace per
#     host (floe-h1 .. floe-h3), each wired to the bridge by a veth pair
#     with a private address 10.77.0.N/24; nothing is added to the
#     machine's own network namespace, so the traffic stays inside and
#     parallel runs (namespace names carry the test's pid) do not collide
#     even though each uses the same subnet;
#   - for every command run on a host: its own UTS namespace with the
#     host's name (gethostname, MPI_Get_processor_name differ per host) and
#     its own mount namespace (mounts private) with an /etc/hosts naming the
#     three hosts bind-mounted; nsenter and unshare exec rather than fork
#     (`ip netns exec` would stay the parent), so the command keeps the pid
#     it was started with and a timeout's SIGTERM reaches mpirun itself;
#   - an Open MPI launcher agent (plm_rsh_agent) that takes what ssh takes
#     (HOST COMMAND...) and runs the command on that host instead, and a
#     hostfile with one slot per host.
# The files stay shared: namespaces split the network, the hostname and
# the mounts made in them, not the file system, which models a shared file
# system (the warehouse is seen by every host).  NETNS_RIG_HIDE=DIR, set
# for one mpirun, mounts an empty tmpfs over DIR on hosts 2 and 3: a
# node-local directory only host 1 sees.
#
#   netns_rig_up             make the rig, or exit 77 (a skip, also under
#                            CI=true: a missing capability is not a
#                            failure) saying why it cannot be made
#   netns_rig_host N CMD...  run CMD on host N
#   netns_rig_mpirun ARGS... mpirun on host 1 over the three hosts: TCP
#                            only (btl tcp,self; oob and btl on the bridge),
#                            ended after NETNS_RIG_TIMEOUT (120) seconds
#   "${netns_rig_mpi[@]}"    the same command without the timeout (a
#                            program and its arguments, for mpi_lib.bash)
#   netns_rig_down           remove it all (on every exit path: EXIT trap)
netns_rig_hosts=3
# the test's pid and its pid namespace (stale rigs are recognised by a pid
# that is gone, judged only in the pid namespace that made them)
netns_rig_pidns=$(stat -Lc %i /proc/self/ns/pid 2>/dev/null || echo 0)
netns_rig_id="floe-rig-$$-$netns_rig_pidns"
netns_rig_dir=""
netns_rig_made=()

netns_rig_skip() {
  echo "SKIP: $*"
  exit 77
}

# The namespaces and files of runs that died without cleaning up (SIGKILL
# by a test timeout): their pid is gone.
netns_rig_reap() {
  local ns pid d
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' |
    grep -E "^floe-rig-[0-9]+-$netns_rig_pidns-(sw|h[0-9]+)\$" || true); do
    pid=${ns#floe-rig-}
    pid=${pid%%-*}
    if ! kill -0 "$pid" 2>/dev/null; then
      netns_rig_kill_in "$ns"
      ip netns delete "$ns" 2>/dev/null || true
    fi
  done
  for d in "${TMPDIR:-/tmp}"/floe-rig-*-"$netns_rig_pidns".*; do
    [ -d "$d" ] || continue
    pid=${d##*/floe-rig-}
    pid=${pid%%-*}
    [[ "$pid" =~ ^[0-9]+$ ]] && ! kill -0 "$pid" 2>/dev/null && rm -rf "$d"
  done
  return 0
}

netns_rig_kill_in() { # NS: what the test started there and left behind (TERM, 2 s, KILL)
  local p i left
  for i in $(seq 1 20); do
    left=$(ip netns pids "$1" 2>/dev/null || true)
    [ -z "$left" ] && return 0
    [ "$i" = 1 ] && for p in $left; do kill "$p" 2>/dev/null || true; done
    sleep 0.1
  done
  for p in $left; do kill -9 "$p" 2>/dev/null || true; done
}

netns_rig_down() {
  local ns
  for ns in "${netns_rig_made[@]}"; do netns_rig_kill_in "$ns"; done
  for ns in "${netns_rig_made[@]}"; do ip netns delete "$ns" 2>/dev/null || true; done
  netns_rig_made=()
  [ -n "$netns_rig_dir" ] && rm -rf "$netns_rig_dir"
  netns_rig_dir=""
}

netns_rig_add_ns() { # NAME
  local err
  err=$(ip netns add "$1" 2>&1) || return 1
  netns_rig_made+=("$1")
  ip -n "$1" link set lo up
}

netns_rig_up() {
  command -v ip >/dev/null 2>&1 || netns_rig_skip "no ip command (iproute2; scripts/install-deps.sh)"
  command -v unshare >/dev/null 2>&1 && command -v nsenter >/dev/null 2>&1 ||
    netns_rig_skip "no unshare or nsenter command (util-linux)"
  # the previous EXIT trap (the test's own cleanup: peers stopped, scratch
  # removed) runs first, then ours removes the rig and whatever is left in it
  local prev
  prev=$(trap -p EXIT)
  prev=$(eval "set -- $prev; printf '%s' \"\${3:-}\"")
  # shellcheck disable=SC2064 # $prev is the old trap's text, expanded now
  trap "${prev:+$prev; }netns_rig_down" EXIT
  trap 'exit 143' TERM INT HUP
  netns_rig_reap
  local sw="$netns_rig_id-sw" err
  if ! err=$(ip netns add "$sw" 2>&1); then
    netns_rig_skip "cannot make a network namespace (ip netns add: $err; needs CAP_SYS_ADMIN)"
  fi
  netns_rig_made+=("$sw")
  ip -n "$sw" link set lo up
  err=$(ip -n "$sw" link add br0 type bridge 2>&1 && ip -n "$sw" link set br0 up 2>&1) ||
    netns_rig_skip "cannot make a bridge in a network namespace: $err"
  netns_rig_dir=$(mktemp -d "${TMPDIR:-/tmp}/$netns_rig_id.XXXXXX")
  printf '127.0.0.1 localhost\n' >"$netns_rig_dir/hosts"
  : >"$netns_rig_dir/hostfile"
  local i ns
  for i in $(seq 1 "$netns_rig_hosts"); do
    ns="$netns_rig_id-h$i"
    netns_rig_add_ns "$ns" || netns_rig_skip "cannot make another network namespace ($ns)"
    err=$(ip -n "$sw" link add "v$i" type veth peer name eth0 netns "$ns" 2>&1 &&
      ip -n "$sw" link set "v$i" master br0 up 2>&1 &&
      ip -n "$ns" addr add "10.77.0.$i/24" dev eth0 2>&1 &&
      ip -n "$ns" link set eth0 up 2>&1) || netns_rig_skip "cannot wire $ns to the bridge (veth): $err"
    printf '10.77.0.%s floe-h%s\n' "$i" "$i" >>"$netns_rig_dir/hosts"
    printf 'floe-h%s slots=1\n' "$i" >>"$netns_rig_dir/hostfile"
  done
  # The launcher agent: called as ssh would be, [OPTIONS] HOST COMMAND...,
  # the command one shell string once its words are joined (as ssh's remote
  # shell reads it), run with an environment as bare as an ssh login's.
  cat >"$netns_rig_dir/agent" <<EOF
#!/usr/bin/env bash
while [ \$# -gt 0 ] && [ "\${1#-}" != "\$1" ]; do shift; done
host=\${1:-}
shift || true
case "\$host" in
  floe-h[1-$netns_rig_hosts]) ;;
  *) echo "netns rig agent: unknown host '\$host'" >&2; exit 255 ;;
esac
exec "$netns_rig_dir/on" "\${host#floe-h}" env -i PATH="\$PATH" HOME="\${HOME:-/root}" sh -c "\$*"
EOF
  # on N CMD...: CMD on host N (its network, hostname, /etc/hosts; hosts
  # other than 1 with NETNS_RIG_HIDE under an empty tmpfs)
  cat >"$netns_rig_dir/on" <<EOF
#!/usr/bin/env bash
n=\$1
shift
hide=""
[ "\$n" != 1 ] && hide=\${NETNS_RIG_HIDE:-}
exec nsenter --net="/var/run/netns/$netns_rig_id-h\$n" unshare --mount --uts -- sh -c '
  mount --bind "\$1" /etc/hosts && hostname "floe-h\$2" || exit 255
  if [ -n "\$3" ]; then mount -t tmpfs floe-rig-hidden "\$3" || exit 255; fi
  shift 3
  exec "\$@"' rig "$netns_rig_dir/hosts" "\$n" "\$hide" "\$@"
EOF
  chmod +x "$netns_rig_dir/agent" "$netns_rig_dir/on"
  # shellcheck disable=SC2054 # tcp,self is one MCA value
  netns_rig_mpi=("$netns_rig_dir/on" 1 mpirun --oversubscribe --hostfile "$netns_rig_dir/hostfile"
    --mca plm_rsh_agent "$netns_rig_dir/agent" --mca plm_rsh_no_tree_spawn 1
    --mca pml ob1 --mca btl tcp,self --mca osc '^ucx'
    --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24)
  [ "$(id -u)" = 0 ] && netns_rig_mpi+=(--allow-run-as-root)
  # its own hostname (unshare --uts) and /etc/hosts (a bind mount)
  err=$(netns_rig_host 1 hostname 2>&1) ||
    netns_rig_skip "cannot give a simulated host its hostname and /etc/hosts (unshare --mount --uts): $err"
  [ "$err" = floe-h1 ] || fail "the rig: host 1 calls itself '$err'"
}

netns_rig_host() { # N CMD...
  "$netns_rig_dir/on" "$@"
}

netns_rig_mpirun() { # ARGS...: mpirun ARGS on host 1 over the rig's hosts
  timeout "${NETNS_RIG_TIMEOUT:-120}" "${netns_rig_mpi[@]}" "$@"
}
