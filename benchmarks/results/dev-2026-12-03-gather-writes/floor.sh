#!/usr/bin/env bash
# cma_floor.c's reading and writing all-gathers (and all-to-alls) beside Open MPI's, alternated in ROUNDS rounds on
# the development VM (2 ranks, the host probed before each run): benchmarks/results/dev-2026-12-03-gather-writes.
#   [OPS="allgather allgather-write"] [ROUNDS=3] bash floor.sh OUT.txt
set -uo pipefail
out=$(realpath -m "$1")
cd "$(dirname "$0")/../../compare"
mpicc -O2 -o /tmp/cma_floor cma_floor.c
for r in $(seq 1 "${ROUNDS:-3}"); do
  for op in ${OPS:-allgather allgather-write}; do
    echo "== $op round $r $(date +%T) $(/tmp/host_probe 1)"
    mpirun --allow-run-as-root --bind-to none -np 2 /tmp/cma_floor "$op" 131072 33554432 4 20 10 21 2>&1
  done
done | tee "$out"
