#!/usr/bin/env bash
# Issue 18's figures on namespace "hosts" (root): 4 hosts x 1 rank on 1 Gbit/s links (tbf), AllReduce and
# AllGather bus bandwidth at 16-64 MB through `jcoll launch --nnodes` (hosts.sh), against the link rate.
# (Gloo beside it needs PyTorch in the namespaces; where torch is importable it runs too.)
set -uo pipefail
cd "$(dirname "$0")/../.."
HOSTS=benchmarks/netns/hosts.sh
RATE=${RATE:-1gbit}
ROUNDS=${ROUNDS:-2}
OUT=${OUT:-/tmp/jcoll-netns}; mkdir -p "$OUT"
{
  for round in $(seq "$ROUNDS"); do
    for op in allreduce allgather; do
      echo "=== round $round: jcoll $op, 4 hosts x 1 rank, $RATE links"
      bash $HOSTS launch 4 1 JCOLL_TIMEOUT=120s -- io.jcoll.bench.Perf $op -b 16M -e 64M -f 2 -w 2 -i 5 \
        | grep -E "host 0: \[0\] +[0-9]|network"
    done
  done
} 2>&1 | tee "$OUT/bandwidth.log"
