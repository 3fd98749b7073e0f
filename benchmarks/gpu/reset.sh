#!/usr/bin/env bash
# A connection reset under NCCL: with P2P and SHM off, NCCL moves data over TCP sockets (NET/Socket); the TCP
# connections of rank 1's process are destroyed from outside (ss -K, as a failing switch or a firewall would) in
# the middle of 64 MB device-buffer AllReduces. The survivor must raise an exception naming the rank within
# JCOLL_TIMEOUT plus a second, through NCCL's error or the watchdog, and nothing may be left behind.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
export JCOLL_TIMEOUT=5s JCOLL_LAUNCH_GRACE=10 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
{
  step "connection reset: rank 1's TCP connections destroyed (NCCL over sockets)"
  log=$(mktemp)
  ./jcoll launch -n 2 -- io.jcoll.bench.FailureDrill external > "$log" 2>&1 &
  launcher=$!
  for _ in $(seq 600); do [[ $(grep -c "IN pid=" "$log") == 2 ]] && break; sleep 0.1; done
  victim=$(grep "^\[1\].*IN pid=" "$log" | sed 's/.*IN pid=//')
  sleep 0.5
  ports=$(ss -tnpH state established 2>/dev/null | grep "pid=$victim," | awk '{print $3}' | sed 's/.*://' | sort -u)
  echo "rank 1 (pid $victim) local ports: $(echo $ports | tr '\n' ' ')"
  sent=$(date +%s%3N)
  for p in $ports; do ss -K state established "( sport = :$p or dport = :$p )" >/dev/null 2>&1 || echo "ss -K failed for $p"; done
  wait $launcher; code=$?
  grep -vE "WARNING|INFO: jcoll set|NcclEnvironment doPrepare|^\[.\] $" "$log"
  caught=$(grep -o "at=[0-9]*" "$log" | head -1 | cut -d= -f2)
  echo "launcher exit $code; named ${caught:+$((caught - sent)) ms after the reset}"
  sleep 1; echo "java processes left: $(pgrep -c -f FailureDrill || true)"
} 2>&1 | tee "$OUT/reset.log"
