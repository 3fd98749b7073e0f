#!/usr/bin/env bash
# Buffers from io.jcoll.SharedMemory (PairedMpi --shared-memory: both systems' buffers, jcoll's shm transport reads
# its peers' through mappings) against ordinary direct buffers, each block by block beside Open MPI's shared-memory
# path in the same processes (benchmarks/compare/paired.sh --transport shm): every collective, RANKS, 1-64 MB by 4,
# the two kinds of buffer alternated in ROUNDS rounds.
#   [RANKS="2 4 8"] [ROUNDS=1] bash benchmarks/gpu/shared-memory.sh
# Writes $OUT/BUFFERS-RANKS-ROUND/ (paired.log, OP-blocks.csv), $OUT/run.log and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
{
  for r in $(seq 1 "${ROUNDS:-1}"); do
    for buffers in shared direct; do
      for n in ${RANKS:-2 4 8}; do
        step "round $r, $buffers buffers, $n ranks"
        extra=()
        [[ $buffers == shared ]] && extra=(--shared-memory)
        timeout 200 bash benchmarks/compare/paired.sh -n "$n" --transport shm \
          -o "allreduce reducescatter allgather alltoall broadcast" --out "$OUT/$buffers-$n-$r" -- \
          -b 1M -e 64M -f 4 -w 100 -k 10 -B 6 --jit-warmup 2000 "${extra[@]}" | grep -v '^#  '
      done
    done
  done
} 2>&1 | tee "$OUT/run.log"
