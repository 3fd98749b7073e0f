#!/usr/bin/env bash
# Issue 19's small calls on the GPU host's CPUs, one lease: (1) the call path alone, one rank of the shm transport
# (8-byte AllReduce, nothing to wait for), the build in OLD_JARS against this one, alternated; (2) every collective
# at 8 B-4 KB at SMALL_RANKS ranks: the old build, this one and Open MPI's shared-memory path in alternated rounds.
#   OLD_JARS=.gpu-old [SMALL_RANKS="2 4 8"] [SMALL_OPS="allreduce broadcast allgather reducescatter alltoall"] \
#     bash benchmarks/gpu/call-path.sh        (carry .gpu and .gpu-old; writes $OUT/call-path.log, $OUT/small/ab.log)
# .gpu-old holds the old build's jcoll-api and jcoll-shm jars only, so that both builds run this build's perf.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
{
  for round in 1 2 3; do
    for v in old new; do
      cp=$JCOLL_CP
      [[ $v == old ]] && cp="$PWD/$OLD_JARS/*:$JCOLL_CP"
      step "round $round: $v, one rank"
      JCOLL_CP=$cp JCOLL_TRANSPORT=shm timeout 60 ./jcoll perf allreduce -n 1 -b 8 -e 8 -w 50000 -i 2000000 \
        | grep -E "^ +8 |heap"
    done
  done
} 2>&1 | tee "$OUT/call-path.log"
OUT=$OUT/small TRANSPORT=shm RANKS=${SMALL_RANKS:-2 4 8} \
  OPS=${SMALL_OPS:-allreduce broadcast allgather reducescatter alltoall} \
  LO=8 HI=4K FACTOR=8 WARM=2000 ITERS=20000 ROUNDS=2 LIMIT=60 VARIANTS="" bash benchmarks/gpu/ab.sh
