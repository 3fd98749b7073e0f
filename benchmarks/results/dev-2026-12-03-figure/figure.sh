#!/usr/bin/env bash
# Issue 19's VM figure on one build, ROUNDS rounds: every collective at 128 KB-32 MB out of place beside Open MPI's
# shared-memory path (benchmarks/compare/paired.sh --transport shm), then the Broadcast in place (MPI_Bcast's like),
# the host probed (benchmarks/compare/host_probe.c, built as /tmp/host_probe) before each run; results in
# OUT/out-ROUND/ and OUT/in-ROUND/. JDK from PATH.
#   [ROUNDS=6] bash figure.sh OUT
set -uo pipefail
out=$(realpath -m "$1")  # before the cd below
cd "$(dirname "$0")/../../.."
sizes=(-b 128K -e 32M -f 4 -w 1000 -k 20 -B 20 --jit-warmup 20000)
for r in $(seq 1 "${ROUNDS:-6}"); do
  echo "== round $r out-of-place $(date +%T) $(/tmp/host_probe 1)"
  timeout 900 bash benchmarks/compare/paired.sh --transport shm -o "allreduce reducescatter allgather alltoall broadcast" \
    --out "$out/out-$r" -- "${sizes[@]}" > /dev/null 2>&1
  echo "== round $r in-place broadcast $(date +%T) $(/tmp/host_probe 1)"
  timeout 900 bash benchmarks/compare/paired.sh --transport shm -o broadcast --out "$out/in-$r" \
    -- "${sizes[@]}" --in-place > /dev/null 2>&1
done
echo "== end $(date +%T) $(/tmp/host_probe 1)"
