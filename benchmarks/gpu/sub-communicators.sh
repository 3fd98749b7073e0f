#!/usr/bin/env bash
# Collectives on a sub-communicator against the same collectives on a communicator of that size, alternated:
# `jcoll perf OP` and `jcoll perf OP --group-size N` (one sub-communicator of every rank, split from the job's),
# on NCCL (the GPUs) and on TCP (4 ranks on the host's CPUs). On TCP the order alternates (odd rounds the parent
# first, even rounds the split), so that drift on a shared host is not read as the split's cost, and the ratios
# split / parent of every round and their median end the log ($OUT/sub-tcp.csv holds every row).
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
        order="parent split"; (( round % 2 == 0 )) && order="split parent"
        for which in $order; do
          step "round $round: TCP $op, 4 ranks, $which"
          group=(); [[ $which == split ]] && group=(--group-size 4)
          timeout 120 ./jcoll perf $op -n 4 $TCP_SWEEP --transport tcp "${group[@]}" \
            --csv "$OUT/sub-$round-$op-$which.csv" | perf_rows
        done
      fi
    done
  done
  [[ " $PARTS " == *" tcp "* ]] && python3 benchmarks/compare/split_ratios.py "$OUT" "TCP {op}, 4 ranks" \
    --merged "$OUT/sub-tcp.csv"
} 2>&1 | tee "$OUT/sub-communicators.log"
