#!/usr/bin/env bash
# What bounds issue 18's AllGather at 16 MB on 1 Gbit/s links with DELAY (root): the links' own ceiling, then
# jcoll's call time under a few settings.
#  1. Two hosts, plain TCP both ways at once (both_ways.py: 400 MB each way, one and two connections), twice: what
#     a ring step can carry with TCP's headers and acknowledgements and the bench's switch.
#  2. Four hosts x 1 rank, `jcoll perf allgather -b 16M -e 16M -w 2 -i 20`, each setting of SETTINGS (VAR=VALUE,
#     or "default") in turn, ROUNDS rounds; the hosts' TCP retransmissions, loss probes, timeouts, zero-window
#     advertisements and window probes after each.
#   PERF_ARGS adds options to every `jcoll perf` (`--in-place-first 1`: in place timed first in each row); ITERS
#   sets its timed calls (default 20). CC sets the hosts' TCP congestion control (hosts.sh up --cc; cubic unless
#   told, `host` for this machine's: under BBR a call stalls for 250-480 ms every 10 s or so).
#   [DELAY=2ms] [CC=cubic] [ROUNDS=2] [SETTINGS="default JCOLL_TCP_SPIN=0 JCOLL_TCP_CHANNELS=1 JCOLL_TCP_SEGMENT=256K"]
#   [PERF_ARGS=...] [ITERS=20] [OUT=/tmp/jcoll-allgather-floor] bash benchmarks/netns/allgather-floor.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
HOSTS=benchmarks/netns/hosts.sh
DELAY=${DELAY:-2ms}
ROUNDS=${ROUNDS:-2}
SETTINGS=${SETTINGS:-default JCOLL_TCP_SPIN=0 JCOLL_TCP_CHANNELS=1 JCOLL_TCP_SEGMENT=256K}
OUT=${OUT:-/tmp/jcoll-allgather-floor}; mkdir -p "$OUT"
CP=${CP:-$(./jcoll classpath)}
trap 'bash $HOSTS down >/dev/null 2>&1' EXIT INT TERM
counters() {
  for k in $(seq 0 $(($1 - 1))); do
    echo "#   host $k: $(ip netns exec jc-h$k nstat -asz 2>/dev/null \
      | awk '/TcpRetransSegs|TCPLossProbes |TCPTimeouts|TCPWinProbe|ToZeroWindowAdv/ {printf "%s=%s ", $1, $2}')"
  done
}
{
  echo "# $(date -u +%FT%TZ) on $(hostname): $(nproc) cores; delay $DELAY; rounds $ROUNDS; perf args: ${PERF_ARGS:-none}"
  bash $HOSTS up 2 --rate 1gbit --delay "$DELAY" ${CC:+--cc "$CC"}
  for streams in 1 2 1 2; do
    echo "# plain TCP both ways, $streams connection(s) each way"
    ip netns exec jc-h1 python3 benchmarks/netns/both_ways.py 10.77.0.2 10.77.0.1 400000000 "$streams" &
    ip netns exec jc-h0 python3 benchmarks/netns/both_ways.py 10.77.0.1 10.77.0.2 400000000 "$streams"
    wait
  done
  bash $HOSTS up 4 --rate 1gbit --delay "$DELAY" ${CC:+--cc "$CC"}
  for round in $(seq 1 "$ROUNDS"); do
    for setting in $SETTINGS; do
      env=(); [[ $setting != default ]] && env=("$setting")
      echo "=== round $round, $setting (out of place us, in place us, 99th percentile us)"
      bash $HOSTS place "0 1 2 3" JCOLL_TIMEOUT=120s JCOLL_TOKEN=allgather-floor "${env[@]}" -- \
        java -cp "$CP" io.jcoll.bench.Perf allgather -b 16M -e 16M -w 2 -i "${ITERS:-20}" --jit-warmup 0 ${PERF_ARGS:-} \
        | awk '/rank 0: +16777216/ {print "allgather 16777216", $8, $12, $16}'
      counters 4
    done
  done
} 2>&1 | tee "$OUT/allgather-floor.log"
