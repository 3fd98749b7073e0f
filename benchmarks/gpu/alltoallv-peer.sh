#!/usr/bin/env bash
# allToAllV with equal counts against ncclAlltoAll in C (bw_bench.c, nccl-tests' measurement) and jcoll's own
# allToAll, over NVLink, 32-512 MB, device buffers, in alternated rounds (issue 17's 0.99x figure, for hosts
# without nccl-tests).
set -uo pipefail
source "$(dirname "$0")/steps.sh"
nccl_c_bench bw_bench
ROUNDS=${ROUNDS:-2}
{
  for round in $(seq "$ROUNDS"); do
    step "round $round: C alltoall"
    timeout 120 /tmp/bw_bench alltoall "$N" 32M 512M 4 5 20
    for op in alltoallv alltoall; do
      step "round $round: jcoll $op"
      timeout 150 ./jcoll perf $op -n "$N" -b 32M -e 512M -f 4 -w 5 -i 20 | grep -E "^ +[0-9]"
    done
  done
} 2>&1 | tee "$OUT/alltoallv-peer.log"
