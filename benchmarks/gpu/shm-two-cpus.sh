#!/usr/bin/env bash
# Issue 19's development-machine figure (2 cores, 2 ranks: every collective's bus bandwidth at 128 KB-32 MB at
# least Open MPI's shared-memory path's, median of rounds) on two CPUs of a quiet GPU host: every process under
# `taskset -c 0,1`, so that jcoll sees two cores as it does on the 2-vCPU development VM (no crews) and Open MPI
# binds its two ranks to them, without the VM's neighbours moving single runs 3-5x. ROUNDS alternated rounds.
# Two passes, each with the same untimed calls before the timed ones for both systems: on two CPUs the JIT
# compiler shares the cores with the two spinning ranks, and 20 warm-up calls left it compiling the large-message
# path while the first sizes were timed (a 128 KB AllGather at 66-95 us a call in some runs, 23 us in others).
#   SMALL: 128 KB and 512 KB, SMALL_WARM (5000) untimed and SMALL_ITERS (1000) timed calls;
#   LARGE: 2-32 MB, LARGE_WARM (500) and LARGE_ITERS (200).
#   [OPS="allreduce allgather reducescatter alltoall broadcast"] [ROUNDS=3] [PASSES="small large"]
#     bash benchmarks/gpu/shm-two-cpus.sh
#     (carry .gpu and .gpu-tests: mpicc -O2 -o .gpu-tests/mpi_bench benchmarks/compare/mpi_bench.c)
set -uo pipefail
cd "$(dirname "$0")/../.."
ops=${OPS:-allreduce allgather reducescatter alltoall broadcast}
for pass in ${PASSES:-small large}; do
  case $pass in
    small) sizes=(-b 128K -e 512K -w "${SMALL_WARM:-5000}" -i "${SMALL_ITERS:-1000}") ;;
    large) sizes=(-b 2M -e 32M -w "${LARGE_WARM:-500}" -i "${LARGE_ITERS:-200}") ;;
  esac
  OPS=$ops RANKS=2 TAG=two-cpus-$pass LIMIT=${LIMIT:-400} taskset -c 0,1 bash benchmarks/gpu/cpu-compare.sh \
    --transport shm --only "jcoll openmpi-shm" -f 4 -r "${ROUNDS:-3}" "${sizes[@]}"
done
