#!/usr/bin/env bash
# Per-size mean and 99th percentile of `jcoll perf` under each setting, alternated in rounds: for changes that move
# the tail more than the mean (how a wait spins or yields). One line per size: bytes, out-of-place us, in-place us,
# out-of-place 99th percentile us. Run under taskset to see a host whose ranks fill its cores.
#   [RANKS=2 OP=allreduce ROUNDS=3 TRANSPORT=tcp] bash benchmarks/gpu/tail-sweep.sh "default:" "yield:JCOLL_TCP_YIELD=1" \
#     -- -b 8 -e 2M -f 4 -w 20 -i 300        (writes $OUT/tail-sweep.log)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
variants=()
while [[ $# -gt 0 && $1 != -- ]]; do variants+=("$1"); shift; done
[[ ${1:-} == -- ]] && shift
for round in $(seq 1 "${ROUNDS:-3}"); do
  for v in "${variants[@]}"; do
    label=${v%%:*}; setting=${v#*:}
    step "round $round of ${ROUNDS:-3}, $label"
    env $setting timeout 120 ./jcoll perf "${OP:-allreduce}" -n "${RANKS:-2}" --transport "${TRANSPORT:-tcp}" "$@" 2>&1 \
      | grep -E '^ +[0-9]' | awk '{print $1, $6, $10, $14}'
  done
done 2>&1 | tee "$OUT/tail-sweep.log"
