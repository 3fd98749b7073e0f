#!/usr/bin/env bash
# The 8-byte Broadcast's floor on the GPU host's CPUs: a one-rank call (the call path alone: validation, record,
# flight recorder, the box; no peer) with the flight recorder on and off (perf's row: out of place, then in place),
# alternated in ROUNDS rounds, beside the two-rank call against Open MPI's shared-memory path (benchmarks/gpu/ab.sh).
#   GPU host: bash benchmarks/gpu/call-floor.sh   (carry .gpu and .gpu-tests with mpi_bench built:
#             mpicc -O2 -o .gpu-tests/mpi_bench benchmarks/compare/mpi_bench.c; writes $OUT/call-floor.log)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
ROUNDS=${ROUNDS:-3}
one_rank() { # $1: a label, then settings and perf flags
  local label=$1; shift
  local t
  t=$(env JCOLL_TRANSPORT=shm "$@" 2>&1 | awk '/^ +8 /{print $0}' | head -1)
  echo "$label: $t"
}
{
  step "one rank, 8 B (the rows: time out of place, in place), --jit-warmup 2000000 -w 100000 -i 3000000, $ROUNDS rounds"
  for round in $(seq "$ROUNDS"); do
    for trace in on off; do
      buffer=(); [[ $trace == off ]] && buffer=(JCOLL_TRACE_BUFFER=0)
      one_rank "round $round, recorder $trace" "${buffer[@]}" timeout 120 ./jcoll perf broadcast -n 1 -b 8 -e 8 \
        --jit-warmup 2000000 -w 100000 -i 3000000
    done
  done
} 2>&1 | tee "$OUT/call-floor.log"
TRANSPORT=shm RANKS="${RANKS:-2 4}" OPS=broadcast LO=8 HI=64 FACTOR=8 WARM=20000 ITERS=100000 JIT_WARMUP=2000000 \
  ROUNDS="$ROUNDS" LIMIT=150 bash benchmarks/gpu/ab.sh > /dev/null
