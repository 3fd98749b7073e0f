#!/usr/bin/env bash
# Issue 19's small Broadcast with eight boxes a rank (a root runs up to seven calls ahead of its receivers) against
# the build in OLD_JARS (two boxes: one call ahead) and Open MPI's shared-memory path, on the GPU host's CPUs, the
# builds alternated in rounds, 8 B-4 KB, after a long untimed run (--jit-warmup) so that compiled code is timed.
#   PART=1: Broadcast at RANKS (default "2 4 8"), with Open MPI.
#   PART=2: AllReduce (every rank waits for every box: the deeper boxes must cost it nothing) at 2 and 8 ranks,
#           with Open MPI.
#   PART=3: the other one-sided calls (reduce, gather, scatter; mpi_bench runs none of them) at 2 and 8 ranks.
#   MID_JARS names a directory of a third build's jars (put first on the bundle's class path), timed as "mid".
#   OLD_JARS=.gpu-old PART=1|2|3 [MID_JARS=.gpu-old/mid] [ROUNDS=3] [JIT_WARMUP=2000000] bash benchmarks/gpu/deep-boxes.sh
#     (carry .gpu, .gpu-old and .gpu-tests, where mpi_bench is built: mpicc -O2 -o .gpu-tests/mpi_bench
#     benchmarks/compare/mpi_bench.c; writes $OUT/broadcast/ab.log, $OUT/others/ab.log, $OUT/allreduce/ab.log)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jcoll-gpu}
common=(TRANSPORT=shm LO=8 HI=4K FACTOR=8 WARM=20000 ITERS=100000 "ROUNDS=${ROUNDS:-3}" LIMIT=170
  "VARIANTS=${MID_JARS:+mid:JCOLL_CP=$PWD/$MID_JARS/*:$JCOLL_CP}" "JIT_WARMUP=${JIT_WARMUP:-2000000}")
case ${PART:-1} in
  1) mkdir -p "$OUT/broadcast"
     env "${common[@]}" OUT="$OUT/broadcast" "RANKS=${RANKS:-2 4 8}" OPS=broadcast bash benchmarks/gpu/ab.sh ;;
  2) mkdir -p "$OUT/allreduce"
     env "${common[@]}" OUT="$OUT/allreduce" RANKS="2 8" OPS=allreduce bash benchmarks/gpu/ab.sh ;;
  3) mkdir -p "$OUT/others"
     env "${common[@]}" OUT="$OUT/others" RANKS="2 8" OPS="reduce gather scatter" NO_MPI=1 bash benchmarks/gpu/ab.sh ;;
esac
