#!/usr/bin/env bash
# jcoll's time over Open MPI's at each size, a line per run (VARIANT-ROUND), an op at a time, from ab.sh's OUT.
#   bash ratios.sh OUT
cd "$1" || exit 1
for op in allreduce reducescatter allgather alltoall broadcast; do
  grep -qs "PairedMpi $op," */paired.log || continue
  echo "== $op"
  for run in */; do
    printf '%-9s' "${run%/}"
    awk -v op="$op" '/^# PairedMpi/ { current = $3; sub(",", "", current) }
                     /^ +[0-9]/ { if (current == op) printf " %7s", $4 }' "$run/paired.log"
    echo
  done
done
