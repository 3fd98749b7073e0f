#!/usr/bin/env bash
# Issue 19's small calls in which one side has nothing to receive (a broadcast's root, a reduce's, gather's or
# scatter's other side), on the GPU host's CPUs, one lease: the build in OLD_JARS against this one, alternated in
# rounds; Broadcast with Open MPI's shared-memory path in the same rounds, the other three without it (mpi_bench
# does not run them).
#   OLD_JARS=.gpu-old [RANKS="2 4 8"] [ROUNDS=3] bash benchmarks/gpu/one-sided.sh   (carry .gpu and .gpu-old)
# Writes $OUT/broadcast/ab.log and $OUT/others/ab.log.
set -uo pipefail
common=(TRANSPORT=shm "RANKS=${RANKS:-2 4 8}" LO=8 HI=4K FACTOR=8 WARM=20000 ITERS=50000 "ROUNDS=${ROUNDS:-3}"
  LIMIT=150 VARIANTS="")
mkdir -p "$OUT/broadcast" "$OUT/others"
env "${common[@]}" OUT="$OUT/broadcast" OPS=broadcast bash benchmarks/gpu/ab.sh
env "${common[@]}" OUT="$OUT/others" OPS="reduce gather scatter" NO_MPI=1 bash benchmarks/gpu/ab.sh
