#!/usr/bin/env bash
# Every collective block by block beside Open MPI's shared-memory path in the same processes
# (benchmarks/compare/paired.sh --transport shm) on the GPU host's cores: OPS at RANKS, LO-HI by FACTOR, in
# place on both sides where IN_PLACE=1 (MPI_IN_PLACE for Open MPI), ROUNDS runs of each (default 1).
#   [OPS="allreduce reducescatter allgather alltoall broadcast"] [RANKS="2 4 8"] [LO=1M HI=64M FACTOR=4]
#   [CALLS=10 BLOCKS=10 WARM=100] [IN_PLACE=1] [ROUNDS=1] bash benchmarks/gpu/paired-shm.sh
# Writes $OUT/RANKS-ROUND/ (paired.log, OP-blocks.csv), $OUT/run.log and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
{
  for r in $(seq 1 "${ROUNDS:-1}"); do
    for n in ${RANKS:-2 4 8}; do
      step "round $r, $n ranks"
      timeout 280 bash benchmarks/compare/paired.sh -n "$n" --transport shm \
        -o "${OPS:-allreduce reducescatter allgather alltoall broadcast}" --out "$OUT/$n-$r" -- \
        -b "${LO:-1M}" -e "${HI:-64M}" -f "${FACTOR:-4}" -w "${WARM:-100}" -k "${CALLS:-10}" -B "${BLOCKS:-10}" \
        --jit-warmup 2000 ${IN_PLACE:+--in-place} | grep -v '^#  '
    done
  done
} 2>&1 | tee "$OUT/run.log"
