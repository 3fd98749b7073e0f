#!/usr/bin/env bash
# Calls confined to one thread (JCOLL_THREADS=one: no locks, no clock read on a small shared-memory call) against the
# default (calls from any thread) and Open MPI's shared-memory path, on the GPU host's CPUs, in rotated rounds
# (benchmarks/gpu/ab.sh), then NCCL with calls confined, blocking and asynchronous, for wrong values:
#   GPU host: [ROUNDS=6] [RANKS="2 8"] [OPS="broadcast allreduce"] [NCCL=1] bash benchmarks/gpu/confined.sh
#   (carry .gpu and .gpu-tests). Writes $OUT/<op>-ab.log and $OUT/nccl-confined.log.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
for op in ${OPS:-broadcast allreduce}; do
  TRANSPORT=shm RANKS="${RANKS:-2 8}" OPS="$op" LO=8 HI=64 FACTOR=8 WARM=20000 ITERS=100000 JIT_WARMUP=2000000 \
    ROUNDS="${ROUNDS:-6}" LIMIT="${LIMIT:-150}" VARIANTS="one:JCOLL_THREADS=one" bash benchmarks/gpu/ab.sh
  mv "$OUT/ab.log" "$OUT/$op-ab.log"
done
if [ "${NCCL:-1}" = 1 ]; then
  {
    for async in 0 1; do
      step "NCCL, JCOLL_THREADS=one, device memory, --async $async"
      JCOLL_THREADS=one timeout 120 ./jcoll perf allreduce -n "$N" --memory device --async "$async" -b 8 -e 16M -f 8 \
        -w 20 -i 200 2>&1 | grep -E "^ +[0-9]|Out of bounds|transport:"
    done
  } 2>&1 | tee "$OUT/nccl-confined.log"
fi
