#!/usr/bin/env bash
# AllReduce latency at 8 bytes, and the four operations' bandwidth from 32 MB against PyTorch's NCCL
# backend: ROUNDS rounds of (jcoll, then PyTorch) in one run, 200 calls a size, so that the ratio is
# not one sample of a noisy size. Summary: compare.py --rounds.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
ROUNDS=${ROUNDS:-2}
{
  latency_step 1
  for round in $(seq "$ROUNDS"); do
    mkdir -p "$OUT/round$round"
    for op in allreduce allgather reducescatter alltoall; do
      step "round $round: perf $op 32M-512M, 200 iterations"
      timeout 240 ./jcoll perf $op -n "$N" -b 32M -e 512M -f 2 -w 20 -i 200 --csv "$OUT/round$round/jcoll-$op.csv" \
        | grep -E "^ +[0-9]"
    done
    step "round $round: torch.distributed NCCL 32M-512M, 200 iterations"
    timeout 240 python3 benchmarks/gpu/torch_perf.py "$OUT/round$round/torch.csv" $((32 << 20)) $((512 << 20)) 200
  done
  latency_step 1
  step "ratio table over $ROUNDS rounds"
  python3 benchmarks/gpu/compare.py --rounds "$OUT"/round*
} 2>&1 | tee "$OUT/latency.log"
