#!/usr/bin/env bash
# Issue 17's "sub-communicator collectives as fast as the same collective on a parent of that size" on the MPI
# transport: `jcoll perf OP --transport mpi` under mpirun on the job's communicator and on one split from it with
# every rank (--group-size N, MPI_Comm_split), in ROUNDS rounds whose order alternates (odd rounds the parent
# first), Open MPI's default path (shared memory on one host). Ends with the ratios split / parent per round and
# their medians, time per call out of place (in place in brackets).
#   [N=2] [ROUNDS=6] [OPS="allreduce alltoall"] [SWEEP="-b 8 -e 16M -f 16 -w 200 -i 2000"] [OUT=/tmp/jcoll-sub-mpi] \
#     bash benchmarks/compare/sub-communicators-mpi.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
source benchmarks/compare/openmpi.sh
N=${N:-2} ROUNDS=${ROUNDS:-6} OPS=${OPS:-allreduce alltoall} SWEEP=${SWEEP:--b 8 -e 16M -f 16 -w 200 -i 2000}
OUT=${OUT:-/tmp/jcoll-sub-mpi}; mkdir -p "$OUT"; rm -f "$OUT"/sub-*.csv
./jcoll classpath > /dev/null   # builds the jars once, outside the timed runs
{
  echo "# $(date -u +%FT%TZ) $(uname -n), $(nproc) cores, $(mpirun --version 2>&1 | head -1), $N ranks, $SWEEP"
  for round in $(seq "$ROUNDS"); do
    for op in $OPS; do
      order="parent split"; (( round % 2 == 0 )) && order="split parent"
      for which in $order; do
        echo "=== round $round: MPI $op, $N ranks, $which"
        group=(); [[ $which == split ]] && group=(--group-size "$N")
        timeout 300 "${mpirun_shm[@]}" --bind-to none -np "$N" ./jcoll perf "$op" $SWEEP --transport mpi "${group[@]}" \
          --csv "$OUT/sub-$round-$op-$which.csv" 2>&1 | grep -E "^ +[0-9]|Exception|rank"
      done
    done
  done
  python3 benchmarks/compare/split_ratios.py "$OUT" "MPI {op}"
} 2>&1 | tee "$OUT/sub-mpi.log"
