#!/usr/bin/env bash
# A build's small calls over shared memory against an earlier build's, each confined to one thread and not, with
# Open MPI's shared-memory path in the same rotated rounds (benchmarks/gpu/ab.sh): the runs of
# benchmarks/results/gpu-2026-11-30-lean-call (leases 3 and 5) and gpu-2026-11-30-default-lean.
#   GPU host, .gpu-old holding the earlier build's jars (benchmarks/gpu/ab.sh says how):
#   [ROUNDS=4] [SPECS="broadcast:2 allreduce:2 broadcast:8"] [LIMIT=150] bash benchmarks/gpu/lean-call.sh
#   (carry .gpu, .gpu-tests and .gpu-old). Writes $OUT/<op>-<ranks>-ab.log; variants old, new (calls from any
#   thread), one-old and one (JCOLL_THREADS=one), and mpi.
set -uo pipefail
for spec in ${SPECS:-broadcast:2 allreduce:2 broadcast:8}; do
  op=${spec%%:*} n=${spec#*:}
  OLD_JARS=.gpu-old TRANSPORT=shm RANKS="$n" OPS="$op" LO=8 HI=64 FACTOR=8 WARM=20000 ITERS=100000 \
    JIT_WARMUP=2000000 ROUNDS="${ROUNDS:-4}" LIMIT="${LIMIT:-150}" \
    VARIANTS="one-old:JCOLL_CP=$PWD/.gpu-old/*:$JCOLL_CP,JCOLL_THREADS=one one:JCOLL_THREADS=one" \
    bash benchmarks/gpu/ab.sh > /dev/null 2>&1
  mv "$OUT/ab.log" "$OUT/$op-$n-ab.log"
  grep medians "$OUT/$op-$n-ab.log"
done
