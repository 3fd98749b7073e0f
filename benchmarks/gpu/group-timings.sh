#!/usr/bin/env bash
# Split and batched send/recv timings on the GPU host, jcoll beside its peers in alternated rounds:
#   GroupBench split (comm.split + close) against ncclCommSplit + ncclCommDestroy in C (split_bench.c, built
#   here with gcc against the host's NCCL); GroupBench batch (a group of 1 or 8 send/recv pairs) against
#   PyTorch's batch_isend_irecv of the same pairs (torch_groups.py).
#   here:       bash ../shared/gpu/bundle.sh
#   GPU host:   bash benchmarks/gpu/group-timings.sh        (with .gpu carried; results under $OUT)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
ROUNDS=${ROUNDS:-2}
{
  step "machine"; nvidia-smi -L
  nccl_c_bench split_bench
  for round in $(seq "$ROUNDS"); do
    step "round $round: split"
    [ -x /tmp/split_bench ] && timeout 120 /tmp/split_bench "$N" 20
    RANKS=$N timeout 180 java -cp "$JCOLL_CP" io.jcoll.bench.GroupBench split 20 2>&1 | grep -E "split|threads"
    step "round $round: grouped send/recv, 1 and 8 pairs"
    for pairs in 1 8; do
      RANKS=$N timeout 180 java -cp "$JCOLL_CP" io.jcoll.bench.GroupBench batch $pairs 1048576 268435456 20 2>&1 \
        | grep -v "^\[1\]"
    done
    timeout 240 python3 benchmarks/gpu/torch_groups.py "$OUT/torch-groups-$round.csv" 0 8 1048576 268435456 20 \
      | grep sendrecv
  done
} 2>&1 | tee "$OUT/group-timings.log"
