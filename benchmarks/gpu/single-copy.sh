#!/usr/bin/env bash
# Issue 19's large moves with single copy (each rank reads its peers' buffers with process_vm_readv, the default
# where the ranks may: all-to-alls from 512 KB, all-gathers from 32 MB) against the same build with
# JCOLL_SHM_SINGLE_COPY=off (the slots' two copies) and Open MPI's shared-memory path, alternated in rounds on the
# GPU host's CPUs (benchmarks/gpu/ab.sh). VARIANTS adds settings of the new build to compare (the trial that chose
# the defaults timed broadcast too, with JCOLL_SHM_SINGLE_COPY_MIN=512K applied to every op).
#   [RANKS="2 4 8"] [OPS="alltoall allgather"] [LO=1M HI=64M] [ROUNDS=2] [LIMIT=60] [VARIANTS="..."] \
#     bash benchmarks/gpu/single-copy.sh       (carry .gpu and .gpu-tests; writes $OUT/ab.log)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jcoll-gpu}; mkdir -p "$OUT"
TRANSPORT=shm RANKS="${RANKS:-2 4 8}" OPS="${OPS:-alltoall allgather}" LO="${LO:-1M}" HI="${HI:-64M}" \
  FACTOR=4 WARM=3 ITERS=10 ROUNDS="${ROUNDS:-2}" LIMIT="${LIMIT:-60}" VARIANTS="off:JCOLL_SHM_SINGLE_COPY=off ${VARIANTS:-}" \
  bash benchmarks/gpu/ab.sh
