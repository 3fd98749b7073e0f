#!/usr/bin/env bash
# Issue 19 on the GPU host's CPUs, one lease: (1) the host's memory-copy ceiling; (2) small calls of the shm
# transport through its boxes against the slots (JCOLL_SHM_BOX=0) and Open MPI's shared-memory path; (3) AllReduce
# 1-64 MB: this build's crews against copying alone (JCOLL_SHM_THREADS=1) and Open MPI, and, where OLD_JARS names
# an earlier build's jars, that build first (see ab.sh). Alternated rounds throughout (benchmarks/compare/ab.sh).
#   [OLD_JARS=.gpu-old] [SMALL_RANKS="2 4 8"] [SMALL_OPS="allreduce allgather"] [LARGE_RANKS="2 8"] \
#     bash benchmarks/gpu/boxes.sh          (carry .gpu, and .gpu-old where used; writes $OUT/{ceiling.csv,small,large})
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
step "memory-copy ceiling: threads, bytes per thread, GB/s copied"
timeout 90 java -cp "$JCOLL_CP" io.jcoll.bench.CopyCeiling 2>&1 | tee "$OUT/ceiling.csv"
step "small calls: boxes, slots, Open MPI"
OLD_JARS= OUT=$OUT/small TRANSPORT=shm RANKS=${SMALL_RANKS:-2 4 8} OPS=${SMALL_OPS:-allreduce allgather} LO=8 HI=4K FACTOR=8 \
  WARM=2000 ITERS=20000 ROUNDS=3 LIMIT=120 VARIANTS="slots:JCOLL_SHM_BOX=0" bash benchmarks/gpu/ab.sh
step "AllReduce 1-64 MB: crews, alone, Open MPI"
OUT=$OUT/large TRANSPORT=shm RANKS=${LARGE_RANKS:-2 8} OPS=allreduce LO=1M HI=64M FACTOR=4 WARM=3 ITERS=10 ROUNDS=2 \
  LIMIT=150 VARIANTS="alone:JCOLL_SHM_THREADS=1" bash benchmarks/gpu/ab.sh
