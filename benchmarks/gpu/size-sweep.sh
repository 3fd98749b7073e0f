#!/usr/bin/env bash
# One op at one rank count over a list of sizes (benchmarks/gpu/ab.sh at each size: the bundle's build, VARIANTS of
# it and Open MPI alternated in ROUNDS rounds): for a slow point between sizes, such as 8-rank AllGather and
# All-to-All at 16 MB on the 16-core host, to see whether it is one size or a trend, and what moves it.
#   OP=allgather RANKS=8 SIZES="8M 12M 16M 20M 24M 32M" [ROUNDS=2 VARIANTS="seg1M:JCOLL_TCP_SEGMENT=1M"] \
#     bash benchmarks/gpu/size-sweep.sh                     (writes $OUT/sweep-<op>.log and the ab.sh logs, as a tgz)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/steps.sh"
op=${OP:-allgather}; top=$OUT
for s in ${SIZES:-8M 12M 16M 20M 24M 32M}; do
  mkdir -p "/tmp/sweep-$op/$s"
  OUT=/tmp/sweep-$op/$s LO=$s HI=$s RANKS=${RANKS:-8} OPS=$op ROUNDS=${ROUNDS:-2} LIMIT=${LIMIT:-120} \
    bash "$here/ab.sh" 2>&1 | grep -v "^=== "
done 2>&1 | tee "$top/sweep-$op.log"
tar czf "$top/sweep-$op.tgz" -C /tmp "sweep-$op"
