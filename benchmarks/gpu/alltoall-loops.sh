#!/usr/bin/env bash
# Issue 17's 0.99x: jcoll's allToAllV with equal counts against the loop nccl-tests' alltoall_perf times (one group
# of ncclSend/ncclRecv, every rank's block; bw_bench alltoall-p2p) and against ncclAlltoAll (NCCL's own all-to-all
# since 2.28; bw_bench alltoall), with jcoll's allToAll beside them, over NVLink, device buffers, 32-512 MB, in
# ROUNDS alternated rounds whose order turns each round (so that no program always runs first).
#   [ROUNDS=4] [ITERS=50] [WARM=10] [LO=32M] [HI=512M] bash benchmarks/gpu/alltoall-loops.sh
#     (carry .gpu; writes $OUT/alltoall-loops.log)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
nccl_c_bench bw_bench
ROUNDS=${ROUNDS:-4} ITERS=${ITERS:-50} WARM=${WARM:-10} LO=${LO:-32M} HI=${HI:-512M}
programs=("C alltoall-p2p" "jcoll alltoallv" "C alltoall" "jcoll alltoall")
{
  for round in $(seq "$ROUNDS"); do
    for k in 0 1 2 3; do
      read -r who op <<< "${programs[$(( (k + round - 1) % 4 ))]}"
      step "round $round: $who $op"
      if [[ $who == C ]]; then
        timeout 120 /tmp/bw_bench "$op" "$N" "$LO" "$HI" 2 "$WARM" "$ITERS"
      else
        timeout 150 ./jcoll perf "$op" -n "$N" -b "$LO" -e "$HI" -f 2 -w "$WARM" -i "$ITERS" | grep -E "^ +[0-9]"
      fi
    done
  done
} 2>&1 | tee "$OUT/alltoall-loops.log"
