#!/usr/bin/env bash
# A rank's own block in the shared-memory AllGather and All-to-All: this build (new) against the build before it
# (OLD_JARS, old), alternated in rounds with Open MPI's shared-memory path. PART=1: two CPUs (`taskset -c 0,1`, the
# development machine's shape), 2 ranks, 128 KB-32 MB, out of place then in place (where the new build copies
# nothing of its own block). PART=2: 8 ranks on the host's cores, All-to-All at 1-64 MB, out of place then in place.
#   OLD_JARS=.gpu-old PART=1|2 [ROUNDS=3] bash benchmarks/gpu/own-block.sh
#     (carry .gpu, .gpu-old and .gpu-tests: mpicc -O2 -o .gpu-tests/mpi_bench benchmarks/compare/mpi_bench.c)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jcoll-gpu}
export OLD_JARS=${OLD_JARS:-.gpu-old} TRANSPORT=shm ROUNDS=${ROUNDS:-3} VARIANTS=""
case ${PART:-1} in
  1) for place in out in; do
       OUT=$OUT/two-cpus-$place RANKS=2 OPS="allgather alltoall" LO=128K HI=32M FACTOR=4 WARM=500 ITERS=200 LIMIT=280 \
         IN_PLACE=$([[ $place == in ]] && echo 1) taskset -c 0,1 bash benchmarks/gpu/ab.sh
     done ;;
  2) for place in out in; do
       OUT=$OUT/eight-$place RANKS=8 OPS=alltoall LO=1M HI=64M FACTOR=4 WARM=20 ITERS=50 LIMIT=250 \
         IN_PLACE=$([[ $place == in ]] && echo 1) bash benchmarks/gpu/ab.sh
     done ;;
esac
