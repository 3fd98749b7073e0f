#!/usr/bin/env bash
# Rank 0's pick between single copy and the slots (JCOLL_SHM_SINGLE_COPY=timed, PathChooser) against single copy
# wherever its sizes say (sized; the default where ranks have crews), each block by block beside Open MPI's
# shared-memory path in the same processes (benchmarks/compare/paired.sh --transport shm): the ops single copy
# takes, RANKS, 1-64 MB by 4, the two settings alternated in ROUNDS rounds.
#   [RANKS="2 8"] [ROUNDS=2] [OPS="allgather alltoall broadcast allreduce"] bash benchmarks/gpu/path-chooser.sh
# Writes $OUT/SETTING-RANKS-ROUND/ (paired.log, OP-blocks.csv), $OUT/run.log and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
{
  for r in $(seq 1 "${ROUNDS:-2}"); do
    for setting in timed sized; do
      for n in ${RANKS:-2 8}; do
        step "round $r, $setting, $n ranks"
        JCOLL_SHM_SINGLE_COPY=$setting timeout 200 bash benchmarks/compare/paired.sh -n "$n" --transport shm \
          -o "${OPS:-allgather alltoall broadcast allreduce}" --out "$OUT/$setting-$n-$r" -- \
          -b 1M -e 64M -f 4 -w 100 -k 10 -B 6 --jit-warmup 2000 | grep -v '^#  '
      done
    done
  done
} 2>&1 | tee "$OUT/run.log"
