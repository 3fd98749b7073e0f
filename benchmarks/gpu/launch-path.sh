#!/usr/bin/env bash
# The small-size launch path on NCCL (issue 17's last GPU figure), jcoll beside NCCL in C in alternated rounds:
# launch_bench.c (built here with gcc) and `GroupBench launch`, each timing 2000 calls issued back to back at
# 64 B-32 KB, the issuing alone and with the wait for the last; then `jcoll perf` at the same sizes. [ROUNDS=2]
# rounds, the order of the two turning each round.
#   here:       bash ../shared/gpu/bundle.sh
#   GPU host:   bash benchmarks/gpu/launch-path.sh        (with .gpu carried; results under $OUT)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
ROUNDS=${ROUNDS:-2}
{
  step "machine"; nvidia-smi -L
  nccl_c_bench launch_bench
  for round in $(seq "$ROUNDS"); do
    order="C jcoll"; (( round % 2 == 0 )) && order="jcoll C"   # neither always first: the host drifts
    for who in $order; do
      if [[ $who == C ]]; then
        step "round $round: NCCL in C"
        [ -x /tmp/launch_bench ] && timeout 120 /tmp/launch_bench "$N" 2000
      else
        step "round $round: jcoll"
        RANKS=$N timeout 240 java --enable-native-access=ALL-UNNAMED -cp "$JCOLL_CP" io.jcoll.bench.GroupBench launch \
          2000 2>&1 | grep -E "^jcoll"
      fi
    done
  done
  step "jcoll perf at the same sizes (2000 iterations)"
  for op in reducescatter allgather; do
    timeout 120 ./jcoll perf $op -n "$N" -b 64 -e 32K -f 8 -w 100 -i 2000 | perf_rows
  done
} 2>&1 | tee "$OUT/launch-path.log"
