#!/usr/bin/env bash
# Chosen points of the shared-memory figure (issue 19) again, with more timed calls and rounds than the sweep of
# every op: jcoll's shm transport against Open MPI's shared-memory path, alternated (benchmarks/gpu/ab.sh), one
# ab.sh run per "RANKS:OP" pair in POINTS, each cut at LIMIT seconds.
#   POINTS="8:alltoall 4:allreduce" [LO=1M HI=64M FACTOR=4 WARM=5 ITERS=50 ROUNDS=3 LIMIT=60] \
#     bash benchmarks/gpu/shm-points.sh       (carry .gpu and .gpu-tests; writes $OUT/points.log)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jcoll-gpu}; mkdir -p "$OUT"
for point in ${POINTS:?name RANKS:OP pairs}; do
  mkdir -p "$OUT/${point/:/-}"
  OUT="$OUT/${point/:/-}" TRANSPORT=shm RANKS="${point%%:*}" OPS="${point#*:}" LO="${LO:-1M}" HI="${HI:-64M}" \
    FACTOR="${FACTOR:-4}" WARM="${WARM:-5}" ITERS="${ITERS:-50}" ROUNDS="${ROUNDS:-3}" LIMIT="${LIMIT:-60}" \
    bash benchmarks/gpu/ab.sh > /dev/null 2>&1
  cat "$OUT/${point/:/-}/ab.log"
done > "$OUT/points.log"
grep -E "medians" "$OUT/points.log"
