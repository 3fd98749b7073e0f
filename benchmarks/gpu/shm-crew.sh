#!/usr/bin/env bash
# The shm transport's crews (JCOLL_SHM_THREADS: helper threads sharing each rank's copies) against each rank
# copying alone, jcoll only, alternated in rounds: per op, rank count, round and setting, one line per size with
# bytes, out-of-place time (us) and bus bandwidth (GB/s). Peers are not rerun here.
#   [RANKS="2 4 8"] [OPS="allreduce broadcast"] [ROUNDS=2] [VARIANTS="alone:JCOLL_SHM_THREADS=1 crew:"] \
#     bash benchmarks/gpu/shm-crew.sh -b 1M -e 64M -f 4 -w 3 -i 10        (writes $OUT/shm-crew${TAG:+-$TAG}.log)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
read -ra variants <<< "${VARIANTS:-alone:JCOLL_SHM_THREADS=1 crew:}"
for n in ${RANKS:-2 4 8}; do
  for op in ${OPS:-allreduce broadcast allgather reducescatter alltoall}; do
    for round in $(seq 1 "${ROUNDS:-2}"); do
      for v in "${variants[@]}"; do
        label=${v%%:*}; setting=${v#*:}
        step "$op, $n ranks, round $round, $label"
        env $setting timeout 90 ./jcoll perf "$op" -n "$n" --transport shm "$@" 2>&1 \
          | grep -E '^ +[0-9]|shared by|copies alone|rror' | awk '/^ +[0-9]/ {print $1, $6, $8; next} {print}'
      done
    done
  done
done 2>&1 | tee "$OUT/shm-crew${TAG:+-$TAG}.log"
