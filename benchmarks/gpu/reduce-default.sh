#!/usr/bin/env bash
# The bundle's AllReduce defaults (`new`: reading the peers from 8 MB where every rank copies alone) against the
# slots (JCOLL_SHM_SINGLE_COPY_REDUCE_MIN=1G) and Open MPI's shared-memory path (not with NO_MPI=1), LO-HI (1-64
# MB, times FACTOR 4), alternated in ROUNDS rounds (benchmarks/gpu/ab.sh). FORMS names RANKS:PLACE pairs; 8 ranks
# run on every core (no crews on 16), 4 or fewer under `taskset -c 0-(RANKS-1)` (one core a rank, no crews).
#   [FORMS="8:out 8:in 4:out"] [LO=1M HI=64M FACTOR=4] [NO_MPI=1] [ROUNDS=3] [LIMIT=170]
#     bash benchmarks/gpu/reduce-default.sh
#   (carry .gpu and .gpu-tests; writes $OUT/RANKS-PLACE/ab.log)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jcoll-gpu}; mkdir -p "$OUT"
for form in ${FORMS:-8:out 8:in 4:out}; do
  ranks=${form%%:*} place=${form#*:}
  dir=$OUT/$ranks-$place; mkdir -p "$dir"
  cpus=(); [[ $ranks -le 4 ]] && cpus=(taskset -c "0-$((ranks - 1))")
  flags=(); [[ $place == in ]] && flags=(IN_PLACE=1)
  env OUT="$dir" TRANSPORT=shm RANKS="$ranks" OPS=allreduce LO="${LO:-1M}" HI="${HI:-64M}" \
    FACTOR="${FACTOR:-4}" WARM=10 ITERS=50 \
    ROUNDS="${ROUNDS:-3}" LIMIT="${LIMIT:-170}" VARIANTS="slots:JCOLL_SHM_SINGLE_COPY_REDUCE_MIN=1G" "${flags[@]}" \
    "${cpus[@]}" bash benchmarks/gpu/ab.sh > /dev/null 2>&1
  echo "=== $ranks ranks, $place of place"; grep medians "$dir/ab.log"
done
