#!/usr/bin/env bash
# Reductions over every rank's slot at once (issue 19): ReduceScatter and AllReduce through the shared-memory
# transport with the reduction kernel that reads all n inputs a chunk at a time (this bundle, "new") against the
# previous build's pairwise combines (OLD_JARS: its jcoll-api and jcoll-shm jars, "old"), beside two settings of the
# new build that say where a call's time goes (t1: no crews; slot1m: 1 MB slots, a quarter of the phases) and Open
# MPI's shared-memory path, alternated in ROUNDS rounds (benchmarks/gpu/ab.sh).
#   OLD_JARS=.gpu-old [RANKS="8 4"] [OPS="reducescatter allreduce"] [ROUNDS=3] [LIMIT=140] \
#     bash benchmarks/gpu/many-inputs.sh   (carry .gpu, .gpu-old, .gpu-tests; writes $OUT/ab.log)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jcoll-gpu}; mkdir -p "$OUT"
env TRANSPORT=shm RANKS="${RANKS:-8 4}" OPS="${OPS:-reducescatter allreduce}" LO=1M HI=16M FACTOR=4 WARM=5 ITERS=50 \
  ROUNDS="${ROUNDS:-3}" LIMIT="${LIMIT:-140}" OLD_JARS="${OLD_JARS:-.gpu-old}" \
  VARIANTS="t1:JCOLL_SHM_THREADS=1 slot1m:JCOLL_SHM_SLOT=1M" bash benchmarks/gpu/ab.sh > /dev/null 2>&1
grep -E "^=== |medians" "$OUT/ab.log"
