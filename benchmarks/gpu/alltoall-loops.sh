#!/usr/bin/env bash
# Issue 17's 0.99x: jcoll's allToAllV with equal counts against the loop nccl-tests' alltoall_perf times (one group
# of ncclSend/ncclRecv, every rank's block; bw_bench alltoall-p2p) and against ncclAlltoAll (NCCL's own all-to-all
# since 2.28; bw_bench alltoall), with jcoll's allToAll beside them, over NVLink, device buffers, 32-512 MB, in
# ROUNDS alternated rounds whose order turns each round (so that no program always runs first).
#   [ROUNDS=4] [ITERS=50] bash benchmarks/gpu/alltoall-loops.sh       (carry .gpu; writes $OUT/alltoall-loops.log)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
nccl_c_bench bw_bench
ROUNDS=${ROUNDS:-4} ITERS=${ITERS:-50}
programs=("C alltoall-p2p" "jcoll alltoallv" "C alltoall" "jcoll alltoall")
{
  for round in $(seq "$ROUNDS"); do
    for k in 0 1 2 3; do
      read -r who op <<< "${programs[$(( (k + round - 1) % 4 ))]}"
      step "round $round: $who $op"
      if [[ $who == C ]]; then
        timeout 120 /tmp/bw_bench "$op" "$N" 32M 512M 2 10 "$ITERS"
      else
        timeout 150 ./jcoll perf "$op" -n "$N" -b 32M -e 512M -f 2 -w 10 -i "$ITERS" | grep -E "^ +[0-9]"
      fi
    done
  done
} 2>&1 | tee "$OUT/alltoall-loops.log"
