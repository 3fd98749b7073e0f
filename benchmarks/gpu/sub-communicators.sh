#!/usr/bin/env bash
# Collectives on a sub-communicator against the same collectives on a communicator of that size, alternated:
# `jcoll perf OP` and `jcoll perf OP --group-size N` (one sub-communicator of every rank, split from the job's),
# on NCCL (the GPUs) and on TCP (4 ranks on the host's CPUs).
#   GPU host:   bash benchmarks/gpu/sub-communicators.sh        (with .gpu carried; results under $OUT)
#   [ROUNDS=2] [OPS="allreduce alltoall"] [PARTS="nccl tcp"] [TCP_SWEEP="-b 8 -e 64M -f 16 -w 10 -i 50"]
set -uo pipefail
source "$(dirname "$0")/steps.sh"
ROUNDS=${ROUNDS:-2}
OPS=${OPS:-allreduce alltoall}
PARTS=${PARTS:-nccl tcp}
TCP_SWEEP=${TCP_SWEEP:--b 8 -e 64M -f 16 -w 10 -i 50}
{
  for round in $(seq "$ROUNDS"); do
    for op in $OPS; do
      if [[ " $PARTS " == *" nccl "* ]]; then
        step "round $round: NCCL $op, parent then split"
        timeout 120 ./jcoll perf $op -n "$N" -b 8 -e 256M -f 16 -w 20 -i 100 | perf_rows
        timeout 120 ./jcoll perf $op -n "$N" -b 8 -e 256M -f 16 -w 20 -i 100 --group-size "$N" | perf_rows
      fi
      if [[ " $PARTS " == *" tcp "* ]]; then
        step "round $round: TCP $op, 4 ranks, parent then split"
        timeout 120 ./jcoll perf $op -n 4 $TCP_SWEEP --transport tcp | perf_rows
        timeout 120 ./jcoll perf $op -n 4 $TCP_SWEEP --transport tcp --group-size 4 | perf_rows
      fi
    done
  done
} 2>&1 | tee "$OUT/sub-communicators.log"
