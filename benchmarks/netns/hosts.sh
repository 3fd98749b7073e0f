#!/usr/bin/env bash
# Several "hosts" on one machine for multi-host jcoll jobs (root only): N network namespaces jc-h0..jc-h<N-1>,
# each with its own address 10.77.0.<k+1>/24 on a veth to one bridge (jc-br0), links optionally shaped with tc
# (rate, added delay; both directions of each host's link). Traffic stays inside these namespaces.
# A delay needs tc's netem; on a kernel without it (CONFIG_NET_SCH_NETEM), the hosts' links are taps into
# delayline.c instead of the bridge: a switch in user space that holds each frame for the delay and sends at the
# rate on every port (the host's own side keeps tbf). `up` says which one it built.
#
#   hosts.sh up N [--rate 1gbit] [--delay 2ms] [--mtu 9000] [--cc cubic|bbr|reno|host]
#                                                  build them (removing any left from an earlier run); --mtu
#                                                  sets every link's MTU (1500 otherwise; 9000: jumbo frames);
#                                                  --cc the hosts' TCP congestion control (cubic, Linux's own
#                                                  default, unless told; `host`: whatever this machine uses)
#   hosts.sh down                                  remove every namespace, veth and the bridge
#   hosts.sh cut K | heal K                        take host K's link down (a partition) or up again
#   hosts.sh slow K J RATE                         shape traffic between hosts K and J alone to RATE (both ways;
#                                                  htb on each one's eth0, other traffic at the link's rate)
#   hosts.sh block K J                             host K drops every packet to host J (a blackhole route; this
#                                                  machine has no iptables or nft): K and J cannot connect
#   hosts.sh run N [UP OPTIONS] -- CMD             up, run CMD, down, even when CMD fails or is interrupted;
#                                                  CMD sees HOSTS=N and can start a process on host k with
#                                                  `ip netns exec jc-h<k> ...` (address 10.77.0.<k+1>)
#   hosts.sh exec K CMD...                         run CMD on host K
#   hosts.sh launch H K [ENV=V...] -- MAIN [ARGS]  on hosts 0..H-1 (up already), one `jcoll launch --nnodes H
#                                                  --node-rank k --nproc-per-node K` each, master on host 0; each
#                                                  host its own host name (a UTS namespace), output prefixed
#                                                  "host k: "; exits with the first host's non-zero code. The
#                                                  class path is $CP (default: `./jcoll classpath`), java $JAVA
#   hosts.sh place "H0 H1 ..." [ENV=V...] -- CMD...
#                                                  rank r runs CMD on host H_r (up already) with RANK, WORLD_SIZE,
#                                                  MASTER_ADDR (rank 0's host) and MASTER_PORT alone, as under a
#                                                  scheduler that deals ranks to hosts in any order (a jcoll rank:
#                                                  `java -cp "$CP" MAIN`; Gloo's: gloo_bench.py); output prefixed
#                                                  "rank r: "; exits with the first non-zero code
set -euo pipefail
PREFIX=jc-h
BRIDGE=jc-br0
NET=10.77.0
DELAYLINE=/run/$PREFIX-delayline
ALLOWED_CC=/proc/sys/net/ipv4/tcp_allowed_congestion_control

need_root() {
  [[ $(id -u) == 0 ]] || { echo "hosts.sh: needs root (ip netns, veth, tc)" >&2; exit 2; }
}

down() {
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$PREFIX" || true); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip netns delete "$ns" 2>/dev/null || true
  done
  for dev in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^v$PREFIX" || true); do
    ip link delete "$dev" 2>/dev/null || true
  done
  ip link delete "$BRIDGE" 2>/dev/null || true
  if [[ -f $DELAYLINE.pid ]]; then   # its taps go with it, from whichever namespace they are in
    kill "$(cat "$DELAYLINE.pid")" 2>/dev/null || true
    sleep 0.2
    cat "$DELAYLINE.log" >&2 2>/dev/null || true
    rm -f "$DELAYLINE.pid"
  fi
  if [[ -f /run/$PREFIX.allowed-cc ]]; then   # the list `up` widened, as it was
    cat "/run/$PREFIX.allowed-cc" > "$ALLOWED_CC" 2>/dev/null || true
    rm -f "/run/$PREFIX.allowed-cc"
  fi
  rm -f "/run/$PREFIX.rate" "/run/$PREFIX.switch"
}

# The hosts' TCP congestion control. A namespace starts with this machine's default, and some images pick BBR,
# whose PROBE_RTT cuts every long transfer to four packets for 200 ms each 10 s (a ring's calls stall 250-480 ms
# then); cluster nodes mostly run Linux's own default, cubic. A namespace may only take an algorithm of the
# machine's allowed list as its default, so `up` adds it there (and `down` puts the list back). Where that
# cannot be done, the hosts keep the machine's algorithm, saying so, unless --cc asked for this one.
prepare_cc() {  # reads and may reset up's $cc and $cc_given
  [[ $cc == host ]] && return 0
  local why=""
  if ! grep -qw "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control 2>/dev/null && ! modprobe "tcp_$cc" 2>/dev/null; then
    why="is not available here ($(cat /proc/sys/net/ipv4/tcp_available_congestion_control 2>/dev/null))"
  elif ! grep -qw "$cc" "$ALLOWED_CC"; then
    cat "$ALLOWED_CC" > "/run/$PREFIX.allowed-cc"
    echo "$(cat "$ALLOWED_CC") $cc" > "$ALLOWED_CC" 2>/dev/null || why="cannot be allowed ($ALLOWED_CC is read-only)"
  fi
  [[ -z $why ]] && return 0
  [[ $cc_given == 1 ]] && { echo "hosts.sh: congestion control $cc $why" >&2; exit 3; }
  echo "hosts.sh: congestion control $cc $why: the hosts keep this machine's" >&2
  cc=host
}

has_netem() {
  ip netns add "${PREFIX}probe"
  local ok=1
  ip netns exec "${PREFIX}probe" tc qdisc add dev lo root netem delay 1ms 2>/dev/null && ok=0
  ip netns delete "${PREFIX}probe"
  return $ok
}

# The hosts' links as taps of delayline.c (built here), started before the namespaces take them: $1 hosts,
# $2 rate (every switch port's), $3 delay.
start_delayline() {
  local n=$1 rate=$2 delay=$3 taps=() k
  gcc -O2 -o "$DELAYLINE" "$(dirname "$0")/delayline.c" || { echo "hosts.sh: cannot build delayline.c" >&2; exit 3; }
  for ((k = 0; k < n; k++)); do taps+=("t$PREFIX$k"); done
  setsid "$DELAYLINE" --delay "$delay" --rate "$rate" "${taps[@]}" > "$DELAYLINE.log" 2>&1 < /dev/null &
  echo $! > "$DELAYLINE.pid"
  for ((k = 0; k < 50; k++)); do
    grep -q "^ready" "$DELAYLINE.log" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "hosts.sh: delayline did not start:" >&2; cat "$DELAYLINE.log" >&2; exit 3
}

shape() {  # $1: namespace or "" for the root; $2: device; $3: rate; $4: delay
  local ns=$1 dev=$2 rate=$3 delay=$4 run=()
  [[ -n $ns ]] && run=(ip netns exec "$ns")
  if [[ -n $delay ]]; then
    "${run[@]}" tc qdisc add dev "$dev" root handle 1: netem delay "$delay" limit 100000 2>/dev/null || {
      echo "hosts.sh: this kernel has no netem qdisc (sch_netem): --delay cannot be added here" >&2; exit 3; }
    [[ -n $rate ]] && "${run[@]}" tc qdisc add dev "$dev" parent 1: handle 2: tbf rate "$rate" burst 256kb latency 400ms
  elif [[ -n $rate ]]; then
    "${run[@]}" tc qdisc add dev "$dev" root tbf rate "$rate" burst 256kb latency 400ms
  fi
  return 0
}

up() {
  local n=$1; shift
  local rate="" delay="" mtu=1500 cc=cubic cc_given=0
  while [[ $# -gt 0 ]]; do
    case $1 in
      --rate) rate=$2; shift 2 ;;
      --delay) delay=$2; shift 2 ;;
      --mtu) mtu=$2; shift 2 ;;
      --cc) cc=$2; cc_given=1; shift 2 ;;
      *) echo "hosts.sh up: unknown option $1" >&2; exit 2 ;;
    esac
  done
  [[ $n -ge 1 && $n -le 200 ]] || { echo "hosts.sh: N must be 1..200" >&2; exit 2; }
  down
  prepare_cc
  echo "${rate:-10gbit}" > "/run/$PREFIX.rate"
  local switch=bridge
  if [[ -n $delay ]] && ! has_netem; then
    switch=delayline
    start_delayline "$n" "${rate:-10gbit}" "$delay"
  else
    ip link add "$BRIDGE" type bridge
    ip link set "$BRIDGE" mtu "$mtu" up
  fi
  for ((k = 0; k < n; k++)); do
    local ns=$PREFIX$k
    ip netns add "$ns"
    if [[ $switch == delayline ]]; then
      ip link set "t$ns" netns "$ns"
      ip netns exec "$ns" ip link set "t$ns" name eth0
      ip netns exec "$ns" ip link set eth0 mtu "$mtu"
    else
      ip link add "v$ns" mtu "$mtu" type veth peer name eth0 mtu "$mtu" netns "$ns"
      ip link set "v$ns" master "$BRIDGE" up
    fi
    ip netns exec "$ns" ip link set lo up
    [[ $cc == host ]] || ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control="$cc"
    ip netns exec "$ns" ip addr add "$NET.$((k + 1))/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    if [[ $switch == delayline ]]; then
      shape "$ns" eth0 "$rate" ""         # host -> switch; the switch holds each frame and paces its port
    else
      shape "$ns" eth0 "$rate" "$delay"   # host -> bridge
      shape "" "v$ns" "$rate" ""          # bridge -> host (the delay once per direction is enough on one side)
    fi
  done
  echo "$switch" > "/run/$PREFIX.switch"
  [[ $cc == host ]] && cc="$(cat /proc/sys/net/ipv4/tcp_congestion_control), the machine's"
  echo "hosts.sh: $n hosts up (${rate:-unshaped}${delay:+, delay $delay}, MTU $mtu, $switch, TCP $cc): ${PREFIX}0..${PREFIX}$((n - 1)) at $NET.1..$NET.$n"
}

# cut K | heal K: host K's link down or up, on the switch's side (a veth on the bridge) or, with the delayline,
# the host's own
link_state() {
  if [[ $(cat "/run/$PREFIX.switch" 2>/dev/null) == delayline ]]; then
    ip netns exec "$PREFIX$1" ip link set eth0 "$2"
    [[ $2 == up ]] && ip netns exec "$PREFIX$1" ip route replace "$NET.0/24" dev eth0 2>/dev/null
  else
    ip link set "v$PREFIX$1" "$2"
  fi
  return 0
}

slow() {  # slow K J RATE: host K's traffic to J and J's to K through a class of RATE
  local k=$1 j=$2 rate=$3 link a b
  link=$(cat "/run/$PREFIX.rate" 2>/dev/null || echo 10gbit)
  for pair in "$k $j" "$j $k"; do
    set -- $pair; a=$1; b=$2
    local run=(ip netns exec "$PREFIX$a")
    "${run[@]}" tc qdisc del dev eth0 root 2>/dev/null || true
    "${run[@]}" tc qdisc add dev eth0 root handle 1: htb default 10
    "${run[@]}" tc class add dev eth0 parent 1: classid 1:10 htb rate "$link"
    "${run[@]}" tc class add dev eth0 parent 1: classid 1:30 htb rate "$rate"
    "${run[@]}" tc filter add dev eth0 parent 1: protocol ip u32 match ip dst "$NET.$((b + 1))/32" flowid 1:30
  done 2>&1 | grep -v "quantum of class" >&2 || true
}

wait_all() {  # waits for every process given; returns the first non-zero exit code, by the order given
  local code=0 c pid
  for pid in "$@"; do
    wait "$pid"; c=$?
    [[ $code == 0 ]] && code=$c
  done
  return $code
}

launch() {
  local h=$1 k=$2; shift 2
  local envs=()
  while [[ $# -gt 0 && $1 != -- ]]; do envs+=("$1"); shift; done
  [[ ${1:-} == -- ]] && shift
  local cp=${CP:-$(cd "$(dirname "$0")/../.." && ./jcoll classpath)} java=${JAVA:-java} port=${MASTER_PORT:-29500}
  local pids=()
  for ((n = 0; n < h; n++)); do
    ip netns exec "$PREFIX$n" unshare --uts env "${envs[@]}" sh -c 'hostname "$0"; exec "$@"' "host$n" \
      "$java" -Xmx128m -cp "$cp" io.jcoll.launch.Launcher --nnodes "$h" --node-rank "$n" --nproc-per-node "$k" \
      --master-addr "$NET.1" --master-port "$port" -- "$@" > >(sed -u "s/^/host $n: /") 2>&1 &
    pids+=($!)
  done
  wait_all "${pids[@]}"
}

place() {
  local hostOf=($1); shift
  local envs=()
  while [[ $# -gt 0 && $1 != -- ]]; do envs+=("$1"); shift; done
  [[ ${1:-} == -- ]] && shift
  local port=${MASTER_PORT:-29500} n=${#hostOf[@]} pids=() r
  for ((r = 0; r < n; r++)); do
    local h=${hostOf[$r]}
    ip netns exec "$PREFIX$h" unshare --uts env RANK="$r" WORLD_SIZE="$n" MASTER_ADDR="$NET.$((hostOf[0] + 1))" \
      MASTER_PORT="$port" "${envs[@]}" sh -c 'hostname "$0"; exec "$@"' "host$h" "$@" \
      > >(sed -u "s/^/rank $r: /") 2>&1 &
    pids+=($!)
  done
  wait_all "${pids[@]}"
}

cmd=${1:-}; shift || true
need_root
case $cmd in
  up) up "$@" ;;
  down) down ;;
  cut) link_state "$1" down ;;
  heal) link_state "$1" up ;;
  slow) slow "$@" ;;
  block) ip netns exec "$PREFIX$1" ip route add blackhole "$NET.$(($2 + 1))/32" ;;
  exec) k=$1; shift; exec ip netns exec "$PREFIX$k" "$@" ;;
  launch) launch "$@" ;;
  place) place "$@" ;;
  run)
    n=$1; shift
    opts=()
    while [[ $# -gt 0 && $1 != -- ]]; do opts+=("$1"); shift; done
    [[ ${1:-} == -- ]] && shift
    trap down EXIT INT TERM
    up "$n" "${opts[@]}"
    HOSTS=$n "$@"
    ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 2 ;;
esac
