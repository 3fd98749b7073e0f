#!/usr/bin/env bash
# The rest of shm-figures.sh's run (cut short at 8 ranks: All-to-All and ReduceScatter), and the 1-4 MB points of
# the other ops again with jcoll perf's rehearsal of the sweep's first large size (the first run had one stalled
# call in ten at each sweep's first size); alternated rounds, as cpu-compare.sh runs them.
#   bash benchmarks/gpu/shm-figures-2.sh     (carry .gpu; writes $OUT/compare-*.{log,tgz})
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
OPS="alltoall reducescatter" RANKS=8 LIMIT=200 TAG=shm8 bash benchmarks/gpu/cpu-compare.sh --transport shm \
  --only "jcoll openmpi-shm gloo" -b 1M -e 64M -f 4 -r 2 -w 3 -i 10
OPS="allgather allreduce alltoall broadcast" RANKS="2 4 8" LIMIT=300 TAG=first bash benchmarks/gpu/cpu-compare.sh \
  --transport shm --only "jcoll openmpi-shm" -b 1M -e 4M -f 4 -r 2 -w 3 -i 10
