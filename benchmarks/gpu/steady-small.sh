#!/usr/bin/env bash
# Issue 19's small calls at their steady time, against Open MPI's shared-memory path, on the GPU host's CPUs: every
# collective at 8 B-4 KB, jcoll perf with --jit-warmup (a long untimed run before the sweep, so that what is timed
# is compiled code, as a C library's is from its first call) and Open MPI alternated in rounds. PART=1 runs issue
# 17's All-to-All sweep first (alltoall-loops.sh, ROUNDS rounds) and then 2 ranks; PART=2 runs 4 and 8 ranks;
# PART=all runs 2, 4 and 8 ranks. VARIANTS are ab.sh's, timed beside the bundle's build (e.g. one:JCOLL_THREADS=one).
#   PART=1|2|all [ROUNDS=6] [SMALL_ROUNDS=2] [JIT_WARMUP=2000000] [VARIANTS=...] bash benchmarks/gpu/steady-small.sh
#     (carry .gpu and .gpu-tests, where mpi_bench is built: mpicc -O2 -o .gpu-tests/mpi_bench
#     benchmarks/compare/mpi_bench.c; writes $OUT/a2a/alltoall-loops.log and $OUT/small-N/ab.log)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jcoll-gpu}
small() {
  for n in "$@"; do
    OUT=$OUT/small-$n TRANSPORT=shm RANKS=$n OPS="allreduce broadcast allgather reducescatter alltoall" LO=8 HI=4K \
      FACTOR=8 WARM=20000 ITERS=100000 JIT_WARMUP=${JIT_WARMUP:-2000000} ROUNDS=${SMALL_ROUNDS:-2} LIMIT=150 \
      VARIANTS="${VARIANTS:-}" bash benchmarks/gpu/ab.sh
  done
}
case ${PART:-1} in
  1) OUT=$OUT/a2a ROUNDS=${ROUNDS:-6} bash benchmarks/gpu/alltoall-loops.sh > /dev/null
     small 2 ;;
  2) small 4 8 ;;
  all) small 2 4 8 ;;
esac
