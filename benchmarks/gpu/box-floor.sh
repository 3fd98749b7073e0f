#!/usr/bin/env bash
# What the 2-rank small Broadcast's exchange costs at its floor on the GPU host's CPUs, beside jcoll and Open MPI:
# box_stride.c (a root streaming 8-byte messages through 8 boxes to a receiver, in C, threads pinned to CPUs 0 and 1,
# and 0 and 16), with the boxes' header lines 4160 bytes apart as jcoll's are and 64 bytes apart; then a trial build
# of jcoll (TRIAL_JARS, put before the bundle's jars) that counts, per rank, the box reads that found the peer's box
# not yet posted and the calls that waited for room (-Djcoll.trial.boxes=true prints them as the transport closes),
# from any thread and confined; then mpi_bench's Broadcast, bound as mpirun binds by default.
#   [TRIAL_JARS=.gpu-trial] [ROUNDS=3] bash benchmarks/gpu/box-floor.sh   (carry .gpu and the trial jars)
# Writes $OUT/box-stride.log, $OUT/trial-counters.log and $OUT/mpi.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
source benchmarks/compare/openmpi.sh
work=$(mktemp -d)
cc -O2 -pthread -o "$work/box_stride" benchmarks/gpu/box_stride.c
build_mpi_bench "$work"
for r in $(seq "${ROUNDS:-3}"); do
  for s in 4160 64; do
    "$work/box_stride" "$s" 0 1 20000000
    "$work/box_stride" "$s" 0 16 20000000
  done
  "${mpirun_shm[@]}" -np 2 "$work/mpi_bench" broadcast 8 64 8 20000 100000 >> "$OUT/mpi.log" 2>&1
  for mode in any one; do
    echo "== round $r, JCOLL_THREADS=$mode" >> "$OUT/trial-counters.log"
    JCOLL_CP="$PWD/${TRIAL_JARS:-.gpu-trial}/*:$JCOLL_CP" JCOLL_THREADS=$mode \
      JCOLL_JAVA_OPTS="-Djcoll.trial.boxes=true" timeout 120 ./jcoll perf broadcast -n 2 --transport shm -b 8 -e 64 \
      -f 8 --jit-warmup 2000000 -w 20000 -i 100000 >> "$OUT/trial-counters.log" 2>&1
  done
done > "$OUT/box-stride.log"
rm -rf "$work"
