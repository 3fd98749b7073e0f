#!/usr/bin/env bash
# The measurement behind JCOLL_TRANSPORT=auto's order between mpi and tcp for host buffers: the same
# jcoll perf sweep over both transports, under one mpirun, for each rank count, one after the other.
#   bash benchmarks/mpi-vs-tcp.sh [RANKS...]      (default: 2 4)
set -uo pipefail
cd "$(dirname "$0")/.."
mpi=(mpirun --oversubscribe --mca btl_vader_single_copy_mechanism none)
[[ $(id -u) == 0 ]] && mpi+=(--allow-run-as-root)
for n in ${@:-2 4}; do
  for t in tcp mpi; do
    echo "=== $n ranks, JCOLL_TRANSPORT=$t"
    "${mpi[@]}" -np "$n" ./jcoll perf allreduce -b 8 -e 16M -f 8 -w 100 -i 200 --transport "$t" 2>&1 \
      | grep -E "^ +[0-9]|Avg bus"
  done
done
