#!/usr/bin/env bash
# Issue 19's figures on one lease of the GPU host's CPUs: small calls of every collective (8 B-4 KB) against
# Open MPI's shared-memory path in alternated rounds (ab.sh), then bus bandwidth at 1-64 MB of every collective
# against Open MPI's shared-memory path and Gloo (cpu-compare.sh), the second cut at BUDGET seconds from the start.
#   [BUDGET=560] [SMALL_RANKS="2 4 8"] [SMALL_OPS="allreduce broadcast reducescatter alltoall"] [RANKS="2 4 8"] \
#     bash benchmarks/gpu/shm-figures.sh           (carry .gpu; writes $OUT/small/ab.log, $OUT/compare-*.{log,tgz})
set -uo pipefail
source "$(dirname "$0")/steps.sh"
start=$SECONDS
lscpu > "$OUT/lscpu.txt"
OLD_JARS= OUT=$OUT/small TRANSPORT=shm RANKS=${SMALL_RANKS:-2 4 8} OPS=${SMALL_OPS:-allreduce broadcast reducescatter alltoall} \
  LO=8 HI=4K FACTOR=8 WARM=1000 ITERS=10000 ROUNDS=2 LIMIT=40 VARIANTS="" bash benchmarks/gpu/ab.sh
left=$(( ${BUDGET:-560} - (SECONDS - start) ))
step "bandwidth, 1-64 MB, $left s left"
OPS="allreduce broadcast allgather reducescatter alltoall" RANKS=${RANKS:-2 4 8} LIMIT=$left TAG=shm \
  bash benchmarks/gpu/cpu-compare.sh --transport shm --only "jcoll openmpi-shm gloo" -b 1M -e 64M -f 4 -r 2 -w 3 -i 10
