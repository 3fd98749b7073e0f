#!/usr/bin/env bash
# The CPU figures issues 18 and 19 ask of the GPU host (32 cores), in one go:
#  1. namespace hosts (if this host lets root make them): benchmarks/netns/hierarchy.sh, 2 x 2 and 2 x 4 ranks on
#     1 Gbit/s links, contiguous and interleaved, jcoll's two levels, its one ring in host order, and Gloo;
#  2. jcoll's shared-memory transport against Open MPI's shared-memory path and Gloo on loopback, 2, 4 and 8
#     ranks (benchmarks/compare/compare.sh --transport shm through cpu-compare.sh; mpi_bench built here against
#     the same libmpi.so.40 and carried in .gpu-tests).
#   here:      mpicc -O2 -o .gpu-tests/mpi_bench benchmarks/compare/mpi_bench.c; bash ../shared/gpu/bundle.sh
#  3. the host's memory-copy ceiling (io.jcoll.bench.CopyCeiling: 1, 2, 4, ... threads each copying between
#     buffers of their own), the bound for every shared-memory figure of part 2.
#   GPU host:  source .gpu/env.sh && PART=hosts|shm|ceiling bash benchmarks/gpu/hosts-and-shm.sh   (carry .gpu, .gpu-tests)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
case ${PART:-hosts} in
  hosts)
    step "can root make network namespaces here?"
    if ip netns add jc-probe 2>&1 && ip netns delete jc-probe; then
      step "two levels: 2 x 2 and 2 x 4 ranks on 1 Gbit/s links"
      CP=$JCOLL_CP ROUNDS=${ROUNDS:-2} OUT=$OUT/hierarchy timeout "${LIMIT:-540}" bash benchmarks/netns/hierarchy.sh \
        2>&1 | tee "$OUT/hierarchy.log" | grep -vE "^rank [1-9]"
    else
      echo "no: the namespace figures stay the development machine's"
    fi
    ;;
  ceiling)
    step "memory-copy ceiling: threads, bytes per thread, GB/s copied"
    java -cp "$JCOLL_CP" io.jcoll.bench.CopyCeiling 2>&1 | tee "$OUT/ceiling.csv"
    ;;
  shm)
    OPS=${OPS:-allreduce} RANKS=${RANKS:-2 4 8} LIMIT=${LIMIT:-540} TAG=shm bash benchmarks/gpu/cpu-compare.sh \
      --transport shm --only "jcoll openmpi-shm gloo" -b 8 -e 32M -f 8 -r 2 -W 100 -I 1000 -w 3 -i 10
    ;;
esac
